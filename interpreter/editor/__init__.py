"""What an editor asks of a ruleset while it is written: diagnostics, hover, definitions, references, completion.

`analysis` loads an open ruleset (and each of its variants) with the
editor's unsaved texts as `ruleplay validate` does and keeps what an edit
does not change; `index` finds every declaration and every use of a name,
rule id and file; `hover` and `completion` answer from them; `server` is the
Language Server Protocol over stdio (pygls, the `lsp` extra), the only module
that imports pygls.  Positions are lines and character columns from 1, as
diagnostics give them; the server converts them to the protocol's.
`editor` may import `engine`, `dsl`, `validators` and `files`.
"""
