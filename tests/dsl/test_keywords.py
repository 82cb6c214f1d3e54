"""The keyword list, kept without Lark, is exactly the grammar's own reserved words."""

from __future__ import annotations

import re

from ruleplay.dsl.keywords import KEYWORDS
from ruleplay.dsl.larkparse import _parser


def test_the_keyword_list_is_the_grammars_own_words():
    words = {t.pattern.value for t in _parser().terminals
             if t.pattern.type == "str" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t.pattern.value)}
    assert words == KEYWORDS
