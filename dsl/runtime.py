"""Semantics shared by the compiled and the reference evaluator.

Both evaluators call these helpers for every operator, so the two can only
disagree about *how* they walk the tree, never about what an operator means.
Values are plain JSON data (None, bool, int, float, str, list, dict); nothing
here ever touches a Python attribute, so user text cannot reach the host.
"""

from __future__ import annotations

import json
import math
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .ast import Pos
from .errors import RuleplayError


class RuleRuntimeError(RuleplayError):
    """A fault while evaluating ruleset code (bad index, type mismatch, …)."""

    code = "RP500"

    def __init__(self, message: str, pos: Pos | None = None, hint: str = ""):
        where = f"{pos}: " if pos and pos.line else ""
        Exception.__init__(self, f"{where}{message}")  # the text shows where; `message` is the fault alone
        self.message = message
        self.pos = pos
        self.hint = hint


class LimitError(RuleRuntimeError):
    """A configured resource limit was exceeded (loop iterations, depth, steps)."""

    code = "RP501"


class RuleFailure(RuleRuntimeError):
    """Raised by the `fail` statement: the ruleset itself reports an impossible situation."""

    code = "RP502"


MAX_INT_BITS = 1024  # far beyond any game's numbers; keeps runaway sums and products cheap and printable
_INT_LIMIT = 1 << MAX_INT_BITS
MAX_ITEMS = 100_000  # list items (nested ones included) one `range`, `repeat`, `flatten`, `*` or `+` may make
MAX_TEXT = 100_000  # characters of one text made by `+` or join()
MAX_NESTING = 100  # lists and maps nested in one value built by the rules (a loaded state may hold 200)
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


_CONTAINERS = frozenset({list, dict})  # the types of values that hold others


def size(value: Any, cap: int, pos: Pos | None = None) -> int:
    """List items and map entries in `value`, nested ones included; counting stops once past `cap`.

    The early stop matters: a value may share one list many times over
    (`[x, x]` nested), and its size as data can be astronomically larger than
    the memory it takes now.  Every value the rules copy or build passes
    through here, so this is also where nesting is bounded: comparing,
    sorting or copying a value recurses once per level, and a value nested
    deeper than MAX_NESTING is refused (at `pos`) before any of those could
    exhaust Python's own recursion limit.
    """
    return _size(value, cap, MAX_NESTING, pos)


def _size(value: Any, cap: int, levels: int, pos: Pos | None) -> int:
    t = type(value)
    if t is not list and t is not dict:
        return 0
    if levels == 0:
        raise LimitError(f"a value is nested more than {MAX_NESTING} levels deep", pos,
                         hint="a loop keeps wrapping a value in a list (e.g. `x = [x]`)?")
    n = len(value)
    items = value if t is list else value.values()
    if n > 4 and _CONTAINERS.isdisjoint(map(type, items)):  # nothing nested: no Python step per item
        return n
    for item in items:
        if n > cap:
            return n
        ti = type(item)
        if ti is list and levels > 1 and len(item) <= 4:  # a short item (a pair, a cell): counted here if flat
            for sub in item:
                ts = type(sub)
                if ts is list or ts is dict:
                    n += _size(item, cap - n, levels - 1, pos)
                    break
            else:
                n += len(item)
        elif ti is list or ti is dict:
            n += _size(item, cap - n, levels - 1, pos)
    return n


def clone(value: Any) -> Any:
    """Deep copy of JSON data; scalars are shared (they are immutable)."""
    t = type(value)
    if t is list:
        if _CONTAINERS.isdisjoint(map(type, value)):  # flat: a shallow copy is a deep one
            return value.copy()
        return [clone(v) if type(v) in (list, dict) else v for v in value]
    if t is dict:
        if _CONTAINERS.isdisjoint(map(type, value.values())):
            return value.copy()
        return {k: (clone(v) if type(v) in (list, dict) else v) for k, v in value.items()}
    return value


def value_key(value: Any) -> Any:
    """A hashable stand-in for a value: two keys are equal exactly when `equal` says the values are.

    Python's own `==` and hashing make `true`, `1` and `1.0` one key; the
    language keeps booleans apart from numbers (while `1 == 1.0`), so booleans,
    lists and maps are tagged.  Tags are the first item of a tuple, and only
    these three kinds become tuples, so no two kinds can meet.
    """
    t = type(value)
    if t is bool:
        return ("b", value)
    if t is list:
        return ("l", tuple(value_key(v) for v in value))
    if t is dict:
        return ("m", tuple(sorted((k, value_key(v)) for k, v in value.items())))
    return value  # null, text, int and float: equal in Python exactly when in the language


SHOWN_ITEMS = 100  # list items and map entries a message spells out


def shown(value: Any) -> str:
    """A value as a message shows it: text as itself, anything else as the language writes it (`true`, `null`,
    `[1, "a"]`), never Python's spelling (`True`, `None`); a large list or map only by its size."""
    if type(value) is str:
        return value
    if size(value, SHOWN_ITEMS) > SHOWN_ITEMS:
        return f"a {type_name(value)} of {len(value)} items"
    return json.dumps(value, ensure_ascii=False)


def quoted(value: Any) -> str:
    """`shown`, but text in quotes: for a message naming a value that should have been something else."""
    return repr(value) if type(value) is str else shown(value)


def _num(value: Any) -> bool:
    t = type(value)
    return t is int or t is float


def number(result: Any, op: str, pos: Pos | None = None) -> Any:
    """An arithmetic result, refused once it is no longer a number the rules can keep.

    Ints past MAX_INT_BITS make every later step slower and cannot be printed
    (Python refuses 4300 digits); a float past its range becomes inf or nan,
    which JSON cannot hold and which compare false with everything.
    """
    t = type(result)
    if t is int:
        if -_INT_LIMIT < result < _INT_LIMIT:
            return result
        raise RuleRuntimeError(f"`{op}` makes a number of {result.bit_length()} bits; numbers are capped at "
                               f"{MAX_INT_BITS} bits", pos, hint="a loop adds or multiplies without end?")
    if t is float and not math.isfinite(result):
        raise RuleRuntimeError(f"`{op}` makes a number too large for a float ({result})", pos,
                               hint="a loop multiplies without end? use ints, or smaller values")
    return result


def arith(op: str, a: Any, b: Any, budget: Budget, pos: Pos | None = None) -> Any:
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        if b == 0 and op in ("/", "//", "%"):
            raise RuleRuntimeError(f"division by zero in `{op}`", pos)
        try:
            if op == "+":
                return number(a + b, op, pos)
            if op == "-":
                return number(a - b, op, pos)
            if op == "*":
                return number(a * b, op, pos)
            if op == "/":
                if ta is int and tb is int and a % b == 0:
                    return a // b  # exact: a float quotient would lose digits of large ints
                return number(a / b, op, pos)
            if op == "//":
                return number(a // b, op, pos)
            if op == "%":
                return number(a % b, op, pos)
        except OverflowError:  # an int too large to become a float, mixed with one
            raise RuleRuntimeError(f"`{op}` result is too large ({type_name(a)} {op} {type_name(b)})",
                                   pos) from None
    if op == "+" and ta is tb and ta in (list, str):
        if len(a) + len(b) > (MAX_ITEMS if ta is list else MAX_TEXT):
            what = "list" if ta is list else "text"
            raise LimitError(f"`+` would make a {what} of {len(a) + len(b)} items (at most "
                             f"{MAX_ITEMS if ta is list else MAX_TEXT})", pos,
                             hint=f"a loop keeps growing a {what}?")
        budget.built(len(a) + len(b), pos)
        return a + b
    if op == "*" and ta is list and tb is int:
        if b < 0:
            raise RuleRuntimeError(f"list repetition by {b} is out of range (the count must not be negative)",
                                   pos)
        if not a:  # nothing to repeat: no work either, however large the count
            return []
        # Each repetition copies the whole list, so the work is b times its size, nested items included
        # (at least one per item, even when they are scalars), and it is counted before any copy is made.
        items = b * size(a, MAX_ITEMS, pos)
        if items > MAX_ITEMS:
            raise RuleRuntimeError(f"list repetition by {b} is out of range (at most {MAX_ITEMS} items "
                                   f"in all)", pos)
        budget.built(items, pos)
        return [clone(v) for _ in range(b) for v in a]
    raise RuleRuntimeError(f"cannot apply `{op}` to {type_name(a)} and {type_name(b)}", pos)


def compare(op: str, a: Any, b: Any, budget: Budget, pos: Pos | None = None) -> bool:
    """A comparison operator; walking two lists or maps item by item costs the left one's size."""
    if op in ("in", "not in"):
        return contains(b, a, budget, pos) is (op == "in")
    if op == "==":
        return equals(a, b, budget, pos)
    if op == "!=":
        return not equals(a, b, budget, pos)
    ta = type(a)
    if not ((_num(a) and _num(b)) or (ta is type(b) and ta in (str, list))):
        raise RuleRuntimeError(f"cannot compare {type_name(a)} with {type_name(b)} using `{op}`", pos)
    if ta is list:
        budget.scan(a, pos)
    c = order(a, b, op, pos)
    if op == "<":
        return c < 0
    if op == "<=":
        return c <= 0
    if op == ">":
        return c > 0
    if op == ">=":
        return c >= 0
    raise RuleRuntimeError(f"unknown operator {op}", pos)  # pragma: no cover


def order(a: Any, b: Any, op: str = "<", pos: Pos | None = None) -> int:
    """-1, 0 or 1 as `a` sorts before, with or after `b`: numbers, texts, or lists of them.

    Lists compare like Python's, at the first items that differ, but "differ"
    is the language's `equal` (so `[true]` and `[1]` differ) and those items must
    be comparable themselves: a boolean never sorts among numbers.
    """
    ta, tb = type(a), type(b)
    if ((ta is int or ta is float) and (tb is int or tb is float)) or (ta is str and tb is str):
        return (a > b) - (a < b)
    if ta is list and tb is list:
        for x, y in zip(a, b):
            if not equal(x, y):
                return order(x, y, op, pos)
        return (len(a) > len(b)) - (len(a) < len(b))
    raise RuleRuntimeError(f"cannot compare lists whose items differ in type using `{op}` "
                           f"({type_name(a)} with {type_name(b)})", pos)


def equals(a: Any, b: Any, budget: Budget, pos: Pos | None = None) -> bool:
    """`a == b` in the rules: two lists or maps are compared item by item, which costs the left one's size."""
    ta = type(a)
    if (ta is list or ta is dict) and ta is type(b):
        budget.scan(a, pos)
    return equal(a, b)


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


def contains(container: Any, item: Any, budget: Budget, pos: Pos | None = None) -> bool:
    """`item in container`; searching a list costs its size, a text its length (a substring is searched
    in C, but its time still grows with the text), a map nothing (its keys are hashed)."""
    t = type(container)
    if t is list:
        budget.scan(container, pos)
        ti = type(item)
        if ti is str or item is None:
            return item in container  # text and null equal only themselves
        if ti is int:
            return item in container and any(type(x) is not bool and x == item for x in container)
        return any(equal(item, x) for x in container)
    if t is dict:
        return item in container if type(item) is str else False
    if t is str and type(item) is str:
        budget.spend(len(container), pos)
        return item in container
    raise RuleRuntimeError(f"`in` needs a list, map or string, not {type_name(container)}", pos)


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


def slice_of(obj: Any, lo: Any, hi: Any, budget: Budget, pos: Pos | None = None) -> Any:
    """`obj[lo:hi]`, a new list or text: it counts as built, item by item or character by character."""
    if type(obj) not in (list, str):
        raise RuleRuntimeError(f"cannot slice {type_name(obj)}", pos)
    for bound in (lo, hi):
        if bound is not None and type(bound) is not int:
            raise RuleRuntimeError(f"slice bounds must be ints, not {type_name(bound)}", pos)
    budget.built(len(range(len(obj))[lo:hi]), pos)  # the slice's length, counted before it is made
    return obj[lo:hi]


def field(obj: Any, name: str, components: dict[str, dict], budget: Budget, pos: Pos | None = None) -> Any:
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
        # Component data is shared by every state: hand out a (charged) copy of any list or map.
        return budget.copy(props[name], pos)
    raise RuleRuntimeError(f"{type_name(obj)} has no field {name!r}", pos)


def iterate(value: Any, budget: Budget, pos: Pos | None = None) -> list:
    """The items a loop or comprehension walks, one iteration each, charged before any is made.

    A map's keys and a text's characters become a new list here, so the
    charge must come first: a long text would otherwise be split into
    characters before the budget could refuse the loop.  A map's keys come
    sorted, as `keys()` gives them: in the order they were added, a game
    went on otherwise from a saved state (saved with its keys sorted) than
    from the equal state it was saved from.
    """
    t = type(value)
    if t is not list and t is not dict and t is not str:
        raise RuleRuntimeError(f"cannot iterate over {type_name(value)}", pos)
    budget.spend(len(value), pos)
    if t is dict:
        return sorted(value)
    return value if t is list else list(value)


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
        raise interpreter_too_deep() from None


def interpreter_too_deep() -> LimitError:
    """The error for Python's own recursion limit: what `recursion_guard` raises, and a move's hot path too."""
    return LimitError("the rules nest calls too deeply for the interpreter",
                      hint="lower limits.max_depth, or make recursive functions stop sooner")


class Budget:
    """Counts the work of one move so runaway rules stop with a clear error.

    Iterations count loop turns, function and procedure calls, and work that
    walks a value: a builtin call costs the size of its list and map
    arguments, `in` the size of the list it searches, comparing two lists or
    maps their size.  `copies` counts the list items and map entries that
    statements copy (`let`, assignment, `append`) or that comprehensions,
    functions, builtins, `+`, `*` and slices build, and the characters of the
    texts they build.  Time alone is not enough: a value can double with each
    of a few iterations (`x = [x, x]`) until it fills the machine's memory.
    """

    __slots__ = ("iterations", "depth", "max_depth", "copies")

    def __init__(self, iterations: int, max_depth: int, copies: int = DEFAULT_COPIES):
        self.iterations = iterations
        self.depth = 0
        self.max_depth = max_depth
        self.copies = copies

    def charge(self, value: Any, pos: Pos | None) -> None:
        """Count a built or copied value against the move's copies: all its items, nested ones included."""
        t = type(value)
        if t is list or t is dict:
            self.copies -= _size(value, self.copies, MAX_NESTING, pos)  # `built`, inline: every copy passes here
            if self.copies < 0:
                raise _too_large(pos)

    def built(self, n: int, pos: Pos | None) -> None:
        """Count n new list items, map entries or characters against the move's copies."""
        self.copies -= n
        if self.copies < 0:
            raise _too_large(pos)

    def copy(self, value: Any, pos: Pos | None) -> Any:
        """clone(), charged: how statements copy values."""
        self.charge(value, pos)
        return clone(value)

    def scan(self, value: Any, pos: Pos | None) -> None:
        """Count the work of walking a list or map once: its items and entries, nested ones included.

        Counting stops past the iterations left, so a value too large to walk
        within the budget costs no more than the budget to refuse.
        """
        t = type(value)
        if t is list or t is dict:
            self.iterations -= _size(value, self.iterations, MAX_NESTING, pos)  # `spend`, inline
            if self.iterations < 0:
                raise iterations_exceeded(pos)

    def spend(self, n: int, pos: Pos | None) -> None:
        self.iterations -= n
        if self.iterations < 0:
            raise iterations_exceeded(pos)


def _too_large(pos: Pos | None) -> LimitError:
    return LimitError("the values built or copied in one move are too large", pos,
                      hint="a value keeps growing (e.g. `x = x + x` in a loop)? raise "
                           "limits.copies_per_move if the game really needs it")


def copied_property(entry: tuple[Any, int], budget: Budget, pos: Pos | None) -> Any:
    """A component's list or map property, as `field` hands it out: charged (its size, known beforehand) and
    copied, since component data is shared by every state."""
    value, n = entry
    budget.built(n, pos)
    return clone(value)


def iterations_exceeded(pos: Pos | None) -> LimitError:
    """The error of a move whose iterations ran out; generated code subtracts inline and raises this."""
    return LimitError(
        "effect iteration limit exceeded in one move",
        pos,
        hint="a loop runs too long, a function calls itself too often, or a builtin walks a large "
             "value too often; raise limits.iterations_per_move if the game really needs it",
    )


def depth_exceeded(budget: Budget, name: str, procedure: bool, pos: Pos | None) -> LimitError:
    """The error of a user function or procedure call nested past `limits.max_depth`."""
    if procedure:
        return LimitError(f"call depth over {budget.max_depth} in procedure `{name}`", pos,
                          hint="a procedure calls itself without end")
    return LimitError(f"call depth over {budget.max_depth} in `{name}`", pos,
                      hint="a function calls itself without end")


# ------------------------------------------------ list statements, shared by both compilers
def assign_item(obj: Any, key: Any, value: Any, pos: Pos | None) -> None:
    """The last step of an assignment into a list item or a map entry."""
    t = type(obj)
    if t is list:
        if type(key) is not int or not -len(obj) <= key < len(obj):
            raise RuleRuntimeError(f"cannot assign at index {key!r} of a list of length {len(obj)}", pos)
        obj[key] = value
    elif t is dict:
        if type(key) is not str:
            raise RuleRuntimeError(f"a map key must be a string, not {type_name(key)}", pos)
        obj[key] = value
    else:
        raise RuleRuntimeError(f"cannot assign into a {type_name(obj)}", pos)


def checked_list(value: Any, name: str, pos: Pos | None) -> list:
    """The list a list statement works on; anything else is an error naming the place."""
    if type(value) is not list:
        raise RuleRuntimeError(f"`{name}` is a {type_name(value)}, not a list", pos)
    return value


def take(budget: Budget, lst: list, item: Any, name: str, pos: Pos | None) -> Any:
    """Remove and return the first item of `lst` equal to `item` (`remove`, `move`)."""
    budget.scan(lst, pos)  # the search compares item by item, nested ones included
    for i, x in enumerate(lst):
        if equal(x, item):
            return lst.pop(i)
    raise RuleRuntimeError(f"{item!r} is not in {name}", pos,
                           hint="check membership with `in` before moving or removing")


def prepend(budget: Budget, lst: list, item: Any, pos: Pos | None) -> None:
    budget.spend(len(lst), pos)  # every item moves up one place
    lst.insert(0, item)


def shuffle(rng: Any, budget: Budget, lst: list, pos: Pos | None) -> None:
    if rng is None:
        raise RuleRuntimeError("shuffle needs the game's random generator", pos)
    budget.spend(len(lst), pos)
    rng.shuffle(lst)


def draw(budget: Budget, n: Any, lst: list, name: str, pos: Pos | None) -> list:
    """Take `n` items from the top (front) of `lst`: the items drawn."""
    if type(n) is not int or n < 0:
        raise RuleRuntimeError(f"draw needs a non-negative int, not {n!r}", pos)
    if n > len(lst):
        raise RuleRuntimeError(f"cannot draw {n} from {name}: only {len(lst)} left", pos)
    budget.spend(len(lst), pos)  # the items left move up n places
    taken = lst[:n]
    del lst[:n]
    return taken


def repeat_count(n: Any, pos: Pos | None) -> int:
    if type(n) is not int or n < 0:
        raise RuleRuntimeError(f"repeat needs a non-negative int, not {n!r}", pos)
    return n


def announce(events: list, players: int, text: Any, to: Any, rule: str | None, pos: Pos | None) -> None:
    """Record the event of an `announce` in `events`: its text, the rule it cites, and the seats told
    (`to` None: every seat; a seat number or a list of them: those seats alone, so a card handed over
    secretly is told to its taker only)."""
    seats = None
    if to is not None:
        listed = to if type(to) is list else [to]
        for seat in listed:
            if type(seat) is not int or not 0 <= seat < players:
                raise RuleRuntimeError(f"`announce ... to` names {quoted(seat)}, which is not a seat "
                                       f"(0..{players - 1}); give a seat number or a list of them", pos)
        seats = sorted(set(listed))
    events.append({"text": shown(text), "rule": rule, "to": seats})


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

    __slots__ = ("vars", "flow", "env", "model", "rng", "fired", "budget", "signals", "log", "events")

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
        self.events: list[dict] = []  # what `announce` tells the players, in order


Fn = Callable[[Ctx], Any]
