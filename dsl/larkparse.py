"""The Lark side of parsing: the LALR parser, the tree-to-AST transformer, Lark's errors in ruleplay's words.

Only `dsl.parser` imports this module, and only when it has text to parse,
so importing ruleplay (or loading a game whose code is all in the parse
cache) never loads Lark.  The parser is made once per process, on first
use, from the tables kept beside `grammar.lark` (`dsl.larktables`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast as A
from . import larktables
from .keywords import KEYWORDS
from .located import DslSyntaxError, Origin
from .runtime import MAX_INT_BITS

MAX_INT_DIGITS = len(str(2 ** MAX_INT_BITS))  # 309: a literal with more digits cannot be a number of the rules

MAX_TREE_DEPTH = 100  # syntax-tree levels (operator chains count): every later pass recurses per level
# Loops and comprehensions inside one another in one text: each is a block of the function generated for the
# text, and Python compiles at most 20 nested blocks (CPython's CO_MAXBLOCKS), some of them the generator's own.
MAX_LOOP_NESTING = 16
_LOOPS = frozenset({"for_stmt", "repeat_stmt"})


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return larktables.parser()


ESCAPES = {'"': '"', "'": "'", "\\": "\\", "n": "\n", "t": "\t"}  # and \uXXXX; the same in both quotes
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)


def _unescape(token: str) -> tuple[str, int, str]:
    """The text a string token stands for; on a bad escape, ("", offset of its backslash, what is wrong)."""
    out, at = [], 1
    body = token[:-1]
    for m in _ESCAPE.finditer(body, 1):
        out.append(body[at:m.start()])
        code = m.group(1)
        if code in ESCAPES:
            out.append(ESCAPES[code])
        elif len(code) == 5 and not 0xD800 <= int(code[1:], 16) <= 0xDFFF:
            out.append(chr(int(code[1:], 16)))
        elif len(code) == 5:
            return "", m.start(), f"\\{code} is half of a surrogate pair, which is no character"
        else:
            return "", m.start(), "invalid escape in string"
        at = m.end()
    out.append(body[at:])
    return "".join(out), 0, ""


@v_args(meta=True)
class _Build(Transformer):
    """Turns Lark's tree into `dsl.ast` nodes with file positions."""

    def __init__(self, origin: Origin):
        super().__init__()
        self.origin = origin

    def _p(self, meta) -> A.Pos:
        if getattr(meta, "empty", True):
            return self.origin.pos(1, 1)
        return self.origin.pos(meta.line, meta.column)

    def _tp(self, tok: Token) -> A.Pos:
        return self.origin.pos(tok.line or 1, tok.column or 1)

    # -- start rules
    def expr_start(self, meta, c):
        return c[0]

    def effects_start(self, meta, c):
        return c[0]

    # -- atoms
    def number(self, meta, c):
        text = str(c[0])
        if len(text) > 1 and text[0] == "0" and text[1] != ".":  # as YAML refuses `012` (octal 10 to YAML 1.1)
            plain = text.lstrip("0")
            plain = "0" + plain if not plain or plain[0] == "." else plain
            raise DslSyntaxError(f"the number {text} starts with a zero", self._p(meta),
                                 hint=f"write {plain}: YAML 1.1 and other languages read a leading zero as "
                                      "octal, so the language takes none")
        # Digits past what MAX_INT_BITS holds are refused unread: int() of a huge digit string costs time.
        value = float(text) if "." in text else int(text) if len(text) <= MAX_INT_DIGITS else None
        if value is None or value in (float("inf"), float("-inf")) \
                or (type(value) is int and value.bit_length() > MAX_INT_BITS):
            raise DslSyntaxError(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is too large: whole "
                                 f"numbers hold at most {MAX_INT_BITS} bits ({MAX_INT_DIGITS} digits), and "
                                 "decimals must be finite", self._p(meta), hint="numbers in rules are small",
                                 code="RP203")
        return A.Literal(self._p(meta), value)

    def string(self, meta, c):
        text, offset, problem = _unescape(str(c[0]))
        if problem:
            tok = c[0]  # a string token never spans lines: the escape is on the token's line
            raise DslSyntaxError(problem, self.origin.pos(tok.line or 1, (tok.column or 1) + offset),
                                 hint="strings know the escapes \\\" \\' \\\\ \\n \\t and \\uXXXX "
                                      "(not a surrogate); write any other character as itself")
        return A.Literal(self._p(meta), text)

    def true(self, meta, c):
        return A.Literal(self._p(meta), True)

    def false(self, meta, c):
        return A.Literal(self._p(meta), False)

    def null(self, meta, c):
        return A.Literal(self._p(meta), None)

    def name(self, meta, c):
        return A.Name(self._p(meta), str(c[0]))

    def call(self, meta, c):
        args = tuple(a for a in c[1:] if a is not None)
        return A.Call(self._p(meta), str(c[0]), args)

    def call_gen(self, meta, c):
        return A.Call(self._p(meta), str(c[0]), (c[1],))

    def list_lit(self, meta, c):
        return A.ListLit(self._p(meta), tuple(x for x in c if x is not None))

    def list_comp(self, meta, c):
        return c[0]

    def comp_for(self, meta, c):
        first, second, source, cond = c
        names = (str(first),) if second is None else (str(first), str(second))
        return A.CompFor(self._p(meta), names, source, cond)

    def comp_body(self, meta, c):
        elem, first, *more = c
        return A.Comprehension(self._p(meta), elem, first.names, first.source, first.cond, tuple(more))

    # -- operators
    def attr(self, meta, c):
        return A.Attr(self._p(meta), c[0], str(c[1]))

    def index(self, meta, c):
        return A.Index(self._p(meta), c[0], c[1])

    def slice(self, meta, c):
        return A.Slice(self._p(meta), c[0], c[1], c[2])

    def neg(self, meta, c):
        if isinstance(c[0], A.Literal) and type(c[0].value) in (int, float):
            return A.Literal(self._p(meta), -c[0].value)
        return A.Unary(self._p(meta), "-", c[0])

    def not_(self, meta, c):
        return A.Unary(self._p(meta), "not", c[0])

    def _boolop(self, op: str, meta, c) -> A.BoolOp:
        left, right = c
        parts = left.operands if isinstance(left, A.BoolOp) and left.op == op else (left,)
        return A.BoolOp(self._p(meta), op, parts + (right,))

    def or_(self, meta, c):
        return self._boolop("or", meta, c)

    def and_(self, meta, c):
        return self._boolop("and", meta, c)

    def comp_op(self, meta, c):
        return " ".join(str(t) for t in c)

    def compare(self, meta, c):
        return A.Binary(self._p(meta), c[1], c[0], c[2])

    def arith(self, meta, c):
        return A.Binary(c[0].pos, str(c[1]), c[0], c[2])

    def cond(self, meta, c):
        return A.Cond(self._p(meta), c[0], c[1], c[2])

    def let_expr(self, meta, c):
        return A.LetExpr(self._p(meta), str(c[0]), c[1], c[2])

    # -- effects
    def block(self, meta, c):
        return A.Block(self._p(meta), tuple(s for s in c if s is not None))

    def empty_stmt(self, meta, c):
        return None

    def _cited(self, meta, c):
        node = c[-1]
        for ref in reversed(c[:-1]):  # `@A @B stmt`: A wraps B wraps the statement
            node = A.Cited(self._tp(ref), str(ref)[1:], node)
        return node

    cited_block = _cited
    cited_stmt = _cited

    def target(self, meta, c):
        return A.Target(self._p(meta), str(c[0]), tuple(c[1:]))

    def index_access(self, meta, c):
        return c[0]

    def field_access(self, meta, c):
        return str(c[0])

    def assign(self, meta, c):
        return A.Assign(self._p(meta), c[0], "=", c[1])

    def aug_assign(self, meta, c):
        return A.Assign(self._p(meta), c[0], str(c[1]), c[2])

    def let_stmt(self, meta, c):
        return A.Let(self._p(meta), str(c[0]), c[1])

    def elif_clause(self, meta, c):
        return (c[0], c[1])

    def else_clause(self, meta, c):
        return c[0]

    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        orelse = None
        for extra in c[2:]:
            if isinstance(extra, tuple):
                branches.append(extra)
            elif isinstance(extra, A.Block):
                orelse = extra
        return A.If(self._p(meta), tuple(branches), orelse)

    def for_stmt(self, meta, c):
        first, second, source, body = c
        names = (str(first),) if second is None else (str(first), str(second))
        return A.For(self._p(meta), names, source, body)

    def repeat_stmt(self, meta, c):
        return A.Repeat(self._p(meta), c[0], c[1])

    def append_stmt(self, meta, c):
        return A.ListOp(self._p(meta), "append", c[0], None, c[1])

    def prepend_stmt(self, meta, c):
        return A.ListOp(self._p(meta), "prepend", c[0], None, c[1])

    def remove_stmt(self, meta, c):
        return A.ListOp(self._p(meta), "remove", c[0], c[1], None)

    def move_stmt(self, meta, c):
        return A.ListOp(self._p(meta), "move", c[0], c[1], c[2])

    def draw_stmt(self, meta, c):
        return A.ListOp(self._p(meta), "draw", c[0], c[1], c[2])

    def shuffle_stmt(self, meta, c):
        return A.ListOp(self._p(meta), "shuffle", None, c[0], None)

    def end_turn_stmt(self, meta, c):
        return A.Control(self._p(meta), "end_turn")

    def end_phase_stmt(self, meta, c):
        return A.Control(self._p(meta), "end_phase")

    def end_game_stmt(self, meta, c):
        return A.Control(self._p(meta), "end_game")

    def stage_stmt(self, meta, c):
        return A.Control(self._p(meta), "stage", str(c[0]))

    def goto_stmt(self, meta, c):
        return A.Control(self._p(meta), "goto", str(c[0]))

    def pass_stmt(self, meta, c):
        return A.Control(self._p(meta), "pass")

    def call_stmt(self, meta, c):
        return A.CallProc(self._p(meta), str(c[0]), tuple(a for a in c[1:] if a is not None))

    def log_stmt(self, meta, c):
        return A.Log(self._p(meta), c[0])

    def announce_stmt(self, meta, c):
        return A.Announce(self._p(meta), c[0], c[1])

    def fail_stmt(self, meta, c):
        return A.Fail(self._p(meta), c[0])



def _check_depth(tree: Tree, origin: Origin) -> None:
    """Refuse trees too deep to transform, compile or evaluate recursively.

    Brackets are capped before parsing, but a chain like `1 + 1 + … + 1` or
    `not not … x` nests without any bracket; found here, iteratively, it becomes
    a located error instead of a RecursionError in a later pass.
    """
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            meta = node.meta
            where = origin.pos(meta.line, meta.column) if not getattr(meta, "empty", True) else origin.pos(1, 1)
            raise DslSyntaxError(f"the code is nested more than {MAX_TREE_DEPTH} levels deep (each block such as "
                                 "`if … { … }` counts two or more, and a long chain of operators one per operator)",
                                 where, hint="split it with `let`, a named function or a procedure", code="RP203")
        # Children pushed last-first, so the first too-deep node found is the first in the text.
        stack.extend((child, depth + 1) for child in reversed(node.children) if isinstance(child, Tree))


def _check_loops(tree: Tree, origin: Origin) -> None:
    """Refuse loops and comprehensions nested past `MAX_LOOP_NESTING` in one text, where it is written:
    deeper, the function generated for the text would not compile, on its first call, mid-game."""
    stack = [(tree, 0)]
    while stack:
        node, loops = stack.pop()
        # A comprehension nests one loop per `for` clause, and its element sits inside all of them.
        added = 1 if node.data in _LOOPS else sum(c.data == "comp_for" for c in node.children
                                                  if isinstance(c, Tree)) if node.data == "comp_body" else 0
        if added:
            loops += added
            if loops > MAX_LOOP_NESTING:
                meta = node.meta
                raise DslSyntaxError(f"loops and comprehensions are nested more than {MAX_LOOP_NESTING} deep "
                                     f"(`for`, `repeat` and `[... for ...]` inside one another)",
                                     origin.pos(meta.line, meta.column), code="RP203",
                                     hint="move the inner loops into a named function or procedure")
        stack.extend((child, loops) for child in reversed(node.children) if isinstance(child, Tree))


# Words of other languages a new author writes first, read by the parser as a plain name: the hint says what
# this language has instead of listing the tokens it expected after a name.
FOREIGN_WORDS = {
    "while": "the language has no `while`: loop over a list with `for x in list { … }`, or `repeat n { … }`",
    "until": "the language has no `until`: loop over a list with `for x in list { … }`, or `repeat n { … }`",
    "def": "functions are declared under `functions:` and procedures under `procedures:`, not in code",
    "function": "functions are declared under `functions:` and procedures under `procedures:`, not in code",
    "return": "there is no `return`: a function's value is its `value:` expression",
    "var": "declare a local with `let name = value`, a state variable under `state:`",
    "const": "declare a local with `let name = value`, a constant under `constants:`",
}


_TOKEN_NAMES = {
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'",
    "RBRACE": "'}'", "COMMA": "','", "COLON": "':'", "EQUAL": "'='", "DOT": "'.'",
    "NAME": "a name", "NUMBER": "a number", "STRING": "a string", "$END": "end of text",
    "SEMICOLON": "';'", "RULEREF": "a rule reference (@ID)",
}


def _describe_expected(expected: set[str]) -> str:
    names = sorted({_TOKEN_NAMES.get(e, e.lower().strip("_")) for e in expected})
    if len(names) > 8:
        names = names[:8] + ["…"]
    return ", ".join(names)


def _end(text: str) -> tuple[int, int]:
    """Line and column just after the last character of the text, lines counted as the lexer counts them
    (at LF; str.splitlines would also break at form feeds and other characters Lark reads as spaces)."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final line break ends the last line; it starts no new one
    return len(lines), len(lines[-1].removesuffix("\r")) + 1


def parse_tree(text: str, origin: Origin, start: str):
    """The AST of `text` (already checked for length, nesting and surrogates, line breaks made LF)."""
    try:
        tree = _parser().parse(text, start=start)
    except UnexpectedCharacters as err:
        ch = text[err.pos_in_stream]
        hint = "expressions use names, numbers, \"strings\", operators and calls"
        if ch.isnumeric():  # Python's int() would take ১ or １ for a digit; the language takes 0-9 only
            hint = f"{ch!r} is a digit of another script, or a numeral sign: write numbers with the digits 0-9"
        raise DslSyntaxError(f"unexpected character {ch!r}", origin.pos(err.line, err.column), hint=hint) from None
    except UnexpectedEOF as err:
        raise DslSyntaxError(
            "unexpected end of text",
            origin.pos(*_end(text)),
            hint=f"expected {_describe_expected(set(err.expected))}",
        ) from None
    except UnexpectedToken as err:
        tok = err.token
        found = "end of text" if tok.type == "$END" else repr(str(tok))
        hint = f"expected {_describe_expected(set(err.expected))}"
        before = re.search(r"([A-Za-z_]\w*)\s*$", text[:tok.start_pos]) if tok.start_pos is not None else None
        if before is not None and before.group(1) in FOREIGN_WORDS:
            hint = FOREIGN_WORDS[before.group(1)]
        elif str(tok) in KEYWORDS:
            hint += f"; `{tok}` is a reserved word"
        elif str(tok) == "=" and start == "expr_start":
            hint = "compare with `==`; `=` changes a variable and belongs in effects"
        line = tok.line if tok.line is not None else 1
        col = tok.column if tok.column is not None else 1
        if tok.type == "$END":
            line, col = _end(text)
        raise DslSyntaxError(f"unexpected {found}", origin.pos(line, col), hint=hint) from None
    except UnexpectedInput as err:  # pragma: no cover - other Lark errors
        raise DslSyntaxError(str(err), origin.pos(1, 1)) from None
    _check_depth(tree, origin)
    _check_loops(tree, origin)
    try:
        return _Build(origin).transform(tree)
    except Exception as err:  # Lark wraps transformer errors in VisitError
        inner = getattr(err, "orig_exc", err)
        if isinstance(inner, DslSyntaxError):
            raise inner from None
        raise

