"""Speed measurements of ruleplay against hand-written games, OpenSpiel's own and older commits; not installed.

`tictactoe`, `connect_four` and `nautilus_cards` are pure-Python games
written by hand, as fast as plain Python allows, each playing the same game
as its built-in ruleset.  They share the engine's public shape (`legal_moves()`,
`apply(move)` returning a new state, `is_terminal()`), so one playout loop
drives both and the ratio compares rule evaluation alone.  `run` measures
the Python engine, the native backend (whole games in C, and its state
handle stepped from Python) and OpenSpiel's own games against those
alternately in one process (`native` holds the native contenders);
`against` runs an older commit beside the current tree (`worker` is its
per-tree process); `startup` times `import ruleplay`, a first load and a
native build and load in fresh processes.  `python -m benchmarks --help`
lists the commands; docs/performance.md has the figures.
"""
