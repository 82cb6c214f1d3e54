"""The rules language: safe YAML loading, the expression grammar and parser, the compiler and its reference evaluator.

`yamlload` reads ruleset files with positions for every value; `variants`
applies `extends:`, `include:` and variant patches; `parser` (on
`grammar.lark`) builds the typed AST of `ast`; `codegen` turns it into
generated Python functions (built and checked by `emit`), `compiler` into
closures (the oracle, chosen with `RULEPLAY_COMPILER=closures`), and
`reference` evaluates it the simple way, all sharing the operator semantics
of `runtime` and the builtins of `builtins`.  Imports nothing else
of ruleplay: the engine and the validators are built on it.
"""
