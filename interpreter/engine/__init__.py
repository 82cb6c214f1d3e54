"""The engine: the game model and everything a move touches.

Loading (`loader`: find, read, apply variants, check, build), the model
builder (`build`) and the frozen model it fills (`model`); the game and its
states (`game`, `state`), moves (`moves`), legal-move generation (`legal`),
the event loop of phases, turns and stages (`flow`), observation
(`observe`; `textless`: the variables no view shows a text in), scores
and returns (`scoring`, `outcome`), the seeded generator (`rng`), typed
errors (`errors`) and the text renderer behind `State.render()` (`render`).
Imports only `ruleplay.dsl`, `ruleplay.validators`, `ruleplay.files` and
itself: everything else in ruleplay is built on the engine, never the
reverse.
"""
