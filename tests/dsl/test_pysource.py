"""`dsl.pysource` must write text that Python reads back as the very tree it was given."""

from __future__ import annotations

import ast
import copy
import math

import pytest

from ruleplay.dsl import emit, pysource
from ruleplay.engine.game import load_game
from ruleplay.engine.loader import builtin_games


def _same(tree: ast.Module) -> None:
    text = pysource.source(tree)
    reference = ast.unparse(ast.fix_missing_locations(copy.deepcopy(tree)))  # it reads statements' lines
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(reference)), text


@pytest.mark.parametrize("code", [
    "def _f(ctx):\n    return a + b * c - (d - e) // f % g\n",
    "x = -1\ny = (-1).bit\nz = -(-x)\nw = not not a\n",
    "a = b = c[d][(e, f)]\n(g, h) = i\nj[k] += 1\nl.m = n\n",
    "t = (1,)\nu = ()\nv = [1, [2], {}]\nw = {'k': 1, 2: [3]}\n",
    "s = ['it\\'s', \"q\\\"\", 'line\\nbreak', '\\ud800', '\\\\']\n",
    "r = (a if b else c if d else e)\nq = a and (b or c) and not d\np = a < b <= c is not None in d\n",
    "if (n := f(x)) is None:\n    pass\nelif n == 1:\n    break\nelif n:\n    x = 2\nelse:\n    raise E(1) from None\n",
    "if a:\n    if b:\n        pass\n    else:\n        x = 1\nelse:\n    if c:\n        y = 2\n    z = 3\n",
    "for (a, b) in xs:\n    f(a)\nelse:\n    g()\n",
    "try:\n    f()\nexcept E as err:\n    raise\nexcept F:\n    pass\nexcept:\n    pass\nelse:\n    g()\nfinally:\n    h()\n",
    "x = 1.5\ny = -2.5e-300\nz = True\nw = None\n",
])
def test_reads_back_as_the_same_tree(code):
    _same(ast.parse(code))


@pytest.mark.parametrize("value", [math.inf, -math.inf, 1e308, -0.0, 10 ** 40, -(10 ** 40)])
def test_numbers_read_back_as_themselves(value):
    tree = ast.Module([ast.Assign([ast.Name("x", ast.Store())], ast.Constant(value))], [])
    namespace: dict = {}
    exec(pysource.source(tree), namespace)
    assert namespace["x"] == value and type(namespace["x"]) is type(value)
    assert math.copysign(1, namespace["x"]) == math.copysign(1, value)


def test_nan_reads_back_as_nan():
    tree = ast.Module([ast.Assign([ast.Name("x", ast.Store())], ast.Constant(math.nan))], [])
    namespace: dict = {}
    exec(pysource.source(tree), namespace)
    assert math.isnan(namespace["x"])


def test_a_node_the_generator_never_emits_is_refused():
    with pytest.raises(ValueError, match="Lambda"):
        pysource.source(ast.parse("x = lambda: 1\n"))
    with pytest.raises(ValueError, match="While"):
        pysource.source(ast.parse("while x:\n    pass\n"))
    with pytest.raises(ValueError, match="keyword"):
        pysource.source(ast.parse("f(x, key=1)\n"))
    with pytest.raises(ValueError, match="plain parameters"):
        pysource.source(ast.parse("@cache\ndef f(ctx):\n    pass\n"))


@pytest.mark.slow  # every built-in game and variant loaded anew: some fifteen seconds
def test_every_tree_a_built_in_ruleset_generates(monkeypatch):
    """Each function generated for the built-in games: the text reads back as ast.unparse's would."""
    trees: list[ast.Module] = []
    verify = emit.verify

    def recorded(tree: ast.Module, *args) -> None:  # every tree is verified when made, written when first run
        trees.append(tree)
        verify(tree, *args)

    monkeypatch.setattr(emit, "verify", recorded)
    for game in builtin_games():
        load_game(game)
    assert len(trees) > 300
    for tree in trees:
        _same(tree)
