"""Views: a game shown to people and other tools.

Graph export to DOT, GraphML and JSON (`graphs`); SVG and PNG pictures of
states (`picture`, drawn with the small builder in `svg`); the HTML replay
page (`html`); charts of simulation runs (`charts`, matplotlib, optional);
the states of saved files and logs (`sources`).  What a
picture shows is evaluated in `engine.scene` (only the engine runs rules)
and the plain-text renderer behind `State.render()` lives in
`engine.render`, since a state renders itself.
Imports `engine`, `agents`, `runs` and `ruleplay.files`.
"""
