"""Authoring tools: rule behaviour tested as data, and tests of those tests.

Scenario files are read and checked (`scenario_file`), played step by step
against their game (`steps`) and run in batches (`runner`); `mutation`
switches each cited rule off in turn to find rules no scenario pins down;
`profile` times the ruleset's own code, piece by piece, while games play.
Imports `engine`, `agents`, `runs`, `ruleplay.files`, and the language
(`ruleplay.dsl`, `ruleplay.validators`) because scenario checks are
expressions compiled against the game's own names.
"""
