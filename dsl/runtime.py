"""Semantics shared by the compiled and the reference evaluator.

Both evaluators call these helpers for every operator, so the two can only
disagree about *how* they walk the tree, never about what an operator means.
Values are plain JSON data (None, bool, int, float, str, list, dict); nothing
here ever touches a Python attribute, so user text cannot reach the host.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .ast import Pos


class RuleRuntimeError(Exception):
    """A fault while evaluating ruleset code (bad index, type mismatch, …)."""

    code = "RP500"

    def __init__(self, message: str, pos: Pos | None = None, hint: str = ""):
        self.message = message
        self.pos = pos
        self.hint = hint
        where = f"{pos}: " if pos and pos.line else ""
        super().__init__(f"{where}{message}")


class LimitError(RuleRuntimeError):
    """A configured resource limit was exceeded (loop iterations, depth, steps)."""

    code = "RP501"


class RuleFailure(RuleRuntimeError):
    """Raised by the `fail` statement: the ruleset itself reports an impossible situation."""

    code = "RP502"


MAX_INT_BITS = 1024  # far beyond any game's numbers; keeps runaway products cheap and printable
MAX_ITEMS = 100_000  # list items (nested ones included) that one `range`, `repeat`, `*` or `+` may make
MAX_TEXT = 100_000  # characters of one text made by `+` or join()
DEFAULT_COPIES = 1_000_000


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return "value"


def size(value: Any, cap: int) -> int:
    """List items and map entries in `value`, nested ones included; counting stops once past `cap`.

    The early stop matters: a value may share one list many times over
    (`[x, x]` nested), and its size as data can be astronomically larger than
    the memory it takes now.
    """
    t = type(value)
    if t is not list and t is not dict:
        return 0
    n = len(value)
    for item in (value if t is list else value.values()):
        if n > cap:
            return n
        ti = type(item)
        if ti is list or ti is dict:
            n += size(item, cap - n)
    return n


def clone(value: Any) -> Any:
    """Deep copy of JSON data; scalars are shared (they are immutable)."""
    t = type(value)
    if t is list:
        return [clone(v) if type(v) in (list, dict) else v for v in value]
    if t is dict:
        return {k: (clone(v) if type(v) in (list, dict) else v) for k, v in value.items()}
    return value


def _num(value: Any) -> bool:
    t = type(value)
    return t is int or t is float


def arith(op: str, a: Any, b: Any, pos: Pos | None = None) -> Any:
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            product = a * b
            if type(product) is int and product.bit_length() > MAX_INT_BITS:
                raise RuleRuntimeError(f"a product has {product.bit_length()} bits; numbers are capped at "
                                       f"{MAX_INT_BITS} bits", pos, hint="a loop multiplies without end?")
            return product
        if b == 0 and op in ("/", "//", "%"):
            raise RuleRuntimeError(f"division by zero in `{op}`", pos)
        if op == "/":
            if ta is int and tb is int and a % b == 0:
                return a // b  # exact: a float quotient would lose digits of large ints
            try:
                return a / b
            except OverflowError:
                raise RuleRuntimeError(f"`/` result is too large ({type_name(a)} / {type_name(b)})", pos) from None
        if op == "//":
            return a // b
        if op == "%":
            return a % b
    if op == "+" and ta is tb and ta in (list, str):
        if len(a) + len(b) > (MAX_ITEMS if ta is list else MAX_TEXT):
            what = "list" if ta is list else "text"
            raise LimitError(f"`+` would make a {what} of {len(a) + len(b)} items (at most "
                             f"{MAX_ITEMS if ta is list else MAX_TEXT})", pos,
                             hint=f"a loop keeps growing a {what}?")
        return a + b
    if op == "*" and ta is list and tb is int:
        if b < 0 or b * size(a, MAX_ITEMS) > MAX_ITEMS:
            raise RuleRuntimeError(f"list repetition by {b} is out of range (at most {MAX_ITEMS} items "
                                   f"in all)", pos)
        return [clone(v) for _ in range(b) for v in a]
    raise RuleRuntimeError(f"cannot apply `{op}` to {type_name(a)} and {type_name(b)}", pos)


def compare(op: str, a: Any, b: Any, pos: Pos | None = None) -> bool:
    if op == "==":
        return equal(a, b)
    if op == "!=":
        return not equal(a, b)
    if op == "in":
        return contains(b, a, pos)
    if op == "not in":
        return not contains(b, a, pos)
    if not ((_num(a) and _num(b)) or (type(a) is type(b) and type(a) in (str, list))):
        raise RuleRuntimeError(f"cannot compare {type_name(a)} with {type_name(b)} using `{op}`", pos)
    try:  # lists compare item by item, and their items may not be comparable
        if op == "<":
            return a < b
        if op == "<=":
            return a <= b
        if op == ">":
            return a > b
        if op == ">=":
            return a >= b
    except TypeError:
        raise RuleRuntimeError(f"cannot compare lists whose items differ in type using `{op}`", pos) from None
    raise RuleRuntimeError(f"unknown operator {op}", pos)  # pragma: no cover


def equal(a: Any, b: Any) -> bool:
    """Equality where `true` is never `1` (JSON keeps them apart, so must we)."""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta is list:  # nested values too: `[true] == [1]` is false
        return tb is list and len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if ta is dict:
        return tb is dict and a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return a == b


def contains(container: Any, item: Any, pos: Pos | None = None) -> bool:
    t = type(container)
    if t is list:
        ti = type(item)
        if ti is str or item is None:
            return item in container  # text and null equal only themselves
        if ti is int:
            return item in container and any(type(x) is not bool and x == item for x in container)
        return any(equal(item, x) for x in container)
    if t is dict:
        return item in container if type(item) is str else False
    if t is str and type(item) is str:
        return item in container
    raise RuleRuntimeError(f"`in` needs a list, map or string, not {type_name(container)}", pos)


def truthy(value: Any) -> bool:
    return bool(value)


def negate(value: Any, pos: Pos | None = None) -> Any:
    if _num(value) and type(value) is not bool:
        return -value
    raise RuleRuntimeError(f"cannot negate {type_name(value)}", pos)


def index(obj: Any, key: Any, pos: Pos | None = None) -> Any:
    t = type(obj)
    if t is list or t is str:
        if type(key) is not int:
            raise RuleRuntimeError(f"a {type_name(obj)} index must be an int, not {type_name(key)}", pos)
        if not -len(obj) <= key < len(obj):
            raise RuleRuntimeError(f"index {key} is out of range for a {type_name(obj)} of length {len(obj)}", pos)
        return obj[key]
    if t is dict:
        if type(key) is not str:
            raise RuleRuntimeError(f"a map key must be a string, not {type_name(key)}", pos)
        if key not in obj:
            raise RuleRuntimeError(f"no key {key!r} in map (keys: {', '.join(sorted(obj)[:8])})", pos)
        return obj[key]
    raise RuleRuntimeError(f"cannot index {type_name(obj)}", pos)


def slice_of(obj: Any, lo: Any, hi: Any, pos: Pos | None = None) -> Any:
    if type(obj) not in (list, str):
        raise RuleRuntimeError(f"cannot slice {type_name(obj)}", pos)
    for bound in (lo, hi):
        if bound is not None and type(bound) is not int:
            raise RuleRuntimeError(f"slice bounds must be ints, not {type_name(bound)}", pos)
    return obj[lo:hi]


def field(obj: Any, name: str, components: dict[str, dict], pos: Pos | None = None) -> Any:
    """`obj.name`: a map's field, or a component's property (components are ids)."""
    t = type(obj)
    if t is dict:
        if name not in obj:
            raise RuleRuntimeError(f"no field {name!r} (fields: {', '.join(sorted(obj)[:8])})", pos)
        return obj[name]
    if t is str:
        props = components.get(obj)
        if props is None:
            raise RuleRuntimeError(f"{obj!r} is not a component, so it has no property {name!r}", pos)
        if name not in props:
            raise RuleRuntimeError(f"component {obj!r} has no property {name!r}", pos)
        value = props[name]
        # Component data is shared by every state: hand out a copy of any list or map.
        return clone(value) if type(value) in (list, dict) else value
    raise RuleRuntimeError(f"{type_name(obj)} has no field {name!r}", pos)


def iterate(value: Any, pos: Pos | None = None) -> list:
    t = type(value)
    if t is list:
        return value
    if t is dict:
        return list(value)
    if t is str:
        return list(value)
    raise RuleRuntimeError(f"cannot iterate over {type_name(value)}", pos)


def unpack(item: Any, count: int, pos: Pos | None = None) -> list:
    if type(item) is not list or len(item) != count:
        raise RuleRuntimeError(f"cannot unpack {type_name(item)} into {count} names", pos)
    return item


@contextmanager
def recursion_guard() -> Iterator[None]:
    """Turn Python's own recursion limit into a located-enough rule error.

    Deeply nested calls of ruleset functions can reach Python's frame limit
    before the ruleset's `limits.max_depth`; the user must see a rule error,
    never a RecursionError traceback.
    """
    try:
        yield
    except RecursionError:
        raise LimitError("the rules nest calls too deeply for the interpreter",
                         hint="lower limits.max_depth, or make recursive functions stop sooner") from None


class Budget:
    """Counts the work of one move so runaway rules stop with a clear error.

    Iterations count loop turns and function calls; `copies` counts the list
    items and map entries that statements copy (`let`, assignment, `append`)
    or that comprehensions and functions build.  Time alone is not enough:
    a value can double with each of a few iterations (`x = [x, x]`) until it
    fills the machine's memory.
    """

    __slots__ = ("iterations", "depth", "max_depth", "copies")

    def __init__(self, iterations: int, max_depth: int, copies: int = DEFAULT_COPIES):
        self.iterations = iterations
        self.depth = 0
        self.max_depth = max_depth
        self.copies = copies

    def charge(self, value: Any, pos: Pos | None) -> None:
        """Count a built or copied value against the move's copies."""
        t = type(value)
        if t is list or t is dict:
            self.copies -= size(value, self.copies)
            if self.copies < 0:
                raise LimitError("the values built or copied in one move are too large", pos,
                                 hint="a value keeps growing (e.g. `x = x + x` in a loop)? raise "
                                      "limits.copies_per_move if the game really needs it")

    def copy(self, value: Any, pos: Pos | None) -> Any:
        """clone(), charged: how statements copy values."""
        self.charge(value, pos)
        return clone(value)

    def spend(self, n: int, pos: Pos | None) -> None:
        self.iterations -= n
        if self.iterations < 0:
            raise LimitError(
                "effect iteration limit exceeded in one move",
                pos,
                hint="a loop runs too long, or a function calls itself too often; raise "
                     "limits.iterations_per_move if the game really needs it",
            )


class Signals:
    """Flow-control requests made by effects during one move."""

    __slots__ = ("end_turn", "end_phase", "end_game", "stage", "stage_set", "goto")

    def __init__(self) -> None:
        self.end_turn = False
        self.end_phase = False
        self.end_game = False
        self.stage: str | None = None
        self.stage_set = False
        self.goto: str | None = None


class Ctx:
    """Everything an expression or effect can see while it runs.

    `vars` and `flow` are the state's own dictionaries (mutated in place by
    effects on a fresh copy); `env` holds locals (action parameters, `let`,
    loop variables).  `rng` is the state's seeded generator.
    """

    __slots__ = ("vars", "flow", "env", "model", "rng", "fired", "budget", "signals", "log")

    def __init__(self, vars: dict, flow: dict, model: Any, rng: Any = None,
                 env: dict | None = None, budget: Budget | None = None):
        self.vars = vars
        self.flow = flow
        self.env = env if env is not None else {}
        self.model = model
        self.rng = rng
        self.fired: list[str] = []
        self.budget = budget or Budget(100_000, 64)
        self.signals = Signals()
        self.log: list[Any] = []


Fn = Callable[[Ctx], Any]
