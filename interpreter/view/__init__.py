"""Views: a game shown to people and other tools.

Graph export to DOT, GraphML and JSON (`graphs`) for now; pictures of
states and the replay viewer join it.  The plain-text renderer behind
`State.render()` lives in `engine.render`, since a state renders itself.
Imports `engine`, `agents`, `runs` and `ruleplay.files`.
"""
