"""Proof that a lowered module's C source holds no user text before it is compiled.

The lowering builds the source from the parsed tree only: names are
numbered, texts are numbers in a byte array, values are numbers.  `verify`
checks that of every source, as `dsl.emit.verify` checks generated Python:
the one preprocessor line is the runtime's include, there is no string or
character literal, no comment, every word is a C keyword, a name the runtime
declares (csrc/rp.h) or a name the generator makes, and every number is a
plain decimal or a hexadecimal float.  A source that breaks a rule is a bug
in the lowering, never something a ruleset can cause.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

CSRC = Path(__file__).with_name("csrc")

KEYWORDS = frozenset({
    "static", "const", "int", "void", "return", "if", "else", "for", "goto", "break", "unsigned", "char", "free",
    "int32_t", "int64_t", "uint32_t", "uint64_t", "int8_t", "NULL", "INT64_C", "UINT64_C", "out", "__builtin_ctzll",
})
GENERATED = re.compile(
    r"(?:[tlbciaphrs]|e|x|uf|up|T|SA|P|Q|KM|BS|M|L|IM)\d+|uf\d+_[rit]+|[ACKrST]|VARS|PHASES|ACTIONS|ENDS|TRIGGERS|INVARIANTS|TIEBREAKS|HEURISTICS|"
    r"PHASE_NAMES|STAGE_NAMES|TEXT_BYTES|TEXT_ENDS|TEXT_COUNT|CONST_BYTES|CONST_COUNT|RP_MODEL|RP_SHAPE|GRAPH_NODES|"
    r"GRAPH_NODE_LIST|GRAPH_START|GRAPH_ADJ|BN|BL|BV|RP_PROBES|RP_PROBE_EFFECTS|flow_stage|rp_model_init|rp_texts_init|rp_decode_constants|"
    r"blob|ends|n")
HEXFLOAT = r"-?0x[0-9a-f](?:\.[0-9a-f]+)?p[+-]\d+"
NUMBER = r"\d+u?"
WORD = r"[A-Za-z_][A-Za-z0-9_]*"
PUNCT = r"->|\+\+|--|&&|\|\||==|!=|<=|>=|[-+*/%<>=!&|?:;,.(){}\[\]]"
# The whole body as tokens one after another, each the first kind that matches where the one before
# ended (atomic: no other way of cutting the text into tokens is tried).
TOKENS = re.compile(rf"(?>\s+|{HEXFLOAT}|{NUMBER}|{WORD}|{PUNCT})*+")
# Once TOKENS has matched the whole body, searching it for numbers and words meets the same words
# as reading it token by token (only those tokens hold letters), in one pass.
WORDS = re.compile(rf"{HEXFLOAT}|{NUMBER}|({WORD})")
INCLUDE = '#include "rp.h"'


class UnsafeSource(AssertionError):
    """The lowering wrote something it must never write: a bug in the generator, never in a ruleset."""


@lru_cache(maxsize=1)
def runtime_names() -> frozenset[str]:
    """Every word the runtime's headers use: its functions, types, fields, constants and macros."""
    words: set[str] = set()
    for header in ("rp.h", "rp_api.h"):
        text = (CSRC / header).read_text(encoding="utf-8")
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r'"[^"\n]*"', " ", text)
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    return frozenset(words)


def verify(source: str) -> None:
    """Raise UnsafeSource unless `source` keeps to the rules above."""
    if not source.startswith(INCLUDE + "\n"):
        raise UnsafeSource("the source must start with the runtime's include")
    body = source[len(INCLUDE):]
    for banned in ("/*", "//", "#", '"', "'", "\\"):
        if banned in body:
            raise UnsafeSource(f"the source holds {banned!r}: no comment, literal or directive may follow the include")
    whole = TOKENS.match(body)
    at = whole.end() if whole else 0
    if at < len(body):
        raise UnsafeSource(f"unexpected text at offset {at + len(INCLUDE)}: {body[at:at + 20]!r}")
    allowed = runtime_names() | KEYWORDS
    for word in set(WORDS.findall(body)) - allowed - {""}:
        if not GENERATED.fullmatch(word):
            raise UnsafeSource(f"the word {word!r} is no name of the runtime or of the generator")
