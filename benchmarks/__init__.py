"""Speed measurements of ruleplay against hand-written games; not part of the installed package.

`tictactoe`, `connect_four` and `nautilus_cards` are pure-Python games
written by hand, as fast as plain Python allows, each playing the same game
as its built-in ruleset.  They share the engine's public shape (`legal_moves()`,
`apply(move)` returning a new state, `is_terminal()`), so one playout loop
drives both and the ratio compares rule evaluation alone.  `run` measures
engine and baseline alternately in one process; `against` runs an older
commit beside the current tree (`worker` is its per-tree process);
`startup` times `import ruleplay` and a first load in fresh processes.
`python -m benchmarks --help` lists the commands; docs/performance.md has
the figures.
"""
