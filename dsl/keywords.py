"""The grammar's reserved words: where the grammar accepts one, the lexer reads it as the keyword, not as a name.

Kept apart from the parser, and not read from Lark, so code that needs only
the list (the move reader, which leaves a move named by a keyword to the
parser) never loads Lark; a test checks it against the word terminals of
`grammar.lark`.
"""

from __future__ import annotations

KEYWORDS = frozenset({
    "if", "then", "else", "elif", "for", "in", "not", "and", "or", "let", "repeat",
    "append", "prepend", "remove", "move", "draw", "shuffle", "to", "from", "end_turn",
    "end_phase", "end_game", "stage", "goto", "call", "log", "announce", "fail", "pass", "true",
    "false", "null",
})
