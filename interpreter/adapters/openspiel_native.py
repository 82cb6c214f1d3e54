"""A ruleset as a C++ OpenSpiel game: states that step the game's native module with no Python in a move.

pyspiel steps a game written in Python through its C++ `apply_action`,
which calls back into Python twice a move; OpenSpiel's loop then costs
more than a whole move of its own games.  So where a ruleset has a native
module and a C++ compiler is there, `register` adds it to pyspiel as a C++
game instead: one generic game (`cxx/rp_spiel.cc`), compiled once per
installed OpenSpiel, compiler and runtime header into the per-user cache
the native modules use (`engine.native.build.cache_dir`: mode 0700, each
library beside the hash of its bytes, checked before it is loaded and
built again when it does not match), linked against the loaded
`pyspiel.so` and handed each ruleset's step functions (`rp_begin`,
`rp_move`, `rp_legal`, `rp_weights`, `rp_returns`, `rp_clone_state`,
`rp_free`).

The questions every loop asks are answered in C++ from the native state.
The rest (action strings, `str(state)`, observation and information-state
strings and tensors, and any step the module gives up on) are asked of
Python through one callback with the state's history, and answered by the
Python game's own code in `openspiel_game` on a handle made by replaying
that history (a seed fixes a whole game; the handles of recent histories
are kept, so a walk down a tree replays one move a node): the two kinds of
game give the same actions, strings, tensors and returns.  Errors the
rules raise reach Python as `pyspiel.SpielError`, with the engine's
message, as OpenSpiel's own C++ games raise theirs.  A state serializes as
OpenSpiel's C++ games do, as its history.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from ..engine.native.build import BuildError, cache_dir, is_kept, keep
from ..engine.native.verify import CSRC
from . import openspiel_answers as py
from .held import Handle

SOURCE = Path(__file__).with_name("cxx") / "rp_spiel.cc"
FLAGS = ("-std=c++20", "-O2", "-fPIC", "-shared", "-g0", "-Wno-deprecated-declarations")
FAILED = -(2**63)  # what the callback returns when Python raised (cxx/rp_spiel.cc kFailed)
KEPT_HANDLES = 4096  # the handles of recent histories (a tree walk asks about each node, then its children)
KEPT_VIEWS = 16384  # recent strings and tensors: a solver asks for each node's information state at every pass

CDEF = """
typedef struct rp_io rp_io;
typedef struct rp_state rp_state;
typedef struct rp_error rp_error;
typedef int64_t (*rpx_ask_fn)(int64_t, int32_t, int32_t, int64_t, const int64_t *, int64_t, void *, int64_t,
                              const char **);
typedef struct rpx_spec {
  int64_t id;
  void *begin, *move, *clone, *free, *legal, *weights, *returns;
  rpx_ask_fn ask;
  const char *short_name, *long_name;
  int32_t dynamics, chance_mode, information, utility, reward_model, max_num_players, min_num_players;
  int32_t provides_information_state_string, provides_information_state_tensor, provides_observation_string,
      provides_observation_tensor, default_loadable, provides_factored_observation_string, is_concrete;
  int32_t num_distinct_actions, max_chance_outcomes, num_players, max_game_length;
  double min_utility, max_utility, utility_sum;
  int32_t has_utility_sum;
  int64_t seeds, max_chance_listed, observation_size, history_rows, history_width;
} rpx_spec;
int rpx_register(const rpx_spec *spec, char *error, int64_t cap);
"""
NATIVE_STEPS = ("begin", "move", "clone", "free", "legal", "weights", "returns")
MODULE_NAMES = {"begin": "rp_begin", "move": "rp_move", "clone": "rp_clone_state", "free": "rp_free",
                "legal": "rp_legal", "weights": "rp_weights", "returns": "rp_returns"}

# What the callback is asked (the `Ask` enum of cxx/rp_spiel.cc).
STEP, PLAYER, LEGAL, OUTCOMES, RETURNS, ACTION_STRING, TO_STRING, OBSERVATION_STRING, INFORMATION_STRING, \
    OBSERVATION_TENSOR, INFORMATION_TENSOR = range(11)


def pyspiel_library() -> Path:
    return Path(pyspiel.__file__).resolve()


def _compiler() -> str:
    cxx = os.environ.get("CXX", "g++").split()[0]
    found = shutil.which(cxx)
    if found is None:
        raise BuildError(f"no C++ compiler: {cxx!r} is not on the PATH (install g++)")
    return found


@lru_cache(maxsize=1)
def _compiler_identity() -> str:
    found = _compiler()
    try:
        version = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as err:
        raise BuildError(f"the C++ compiler {found} does not run: {err}") from None
    return f"{found}\n{version.splitlines()[0] if version else ''}"


def _include_dirs() -> list[str]:
    site = pyspiel_library().parent
    spiel = site / "open_spiel"
    dirs = [site, spiel / "abseil-cpp", spiel / "json" / "include", CSRC]
    if not (spiel / "spiel.h").is_file():
        raise BuildError(f"the installed OpenSpiel has no C++ headers ({spiel / 'spiel.h'} is missing)")
    return [str(d) for d in dirs]


def shim_key() -> str:
    """What the built shim depends on: its source, the runtime's API header, the installed OpenSpiel (version, the
    library's path, size and time, its main header), the compiler and its flags."""
    library = pyspiel_library()
    stat = library.stat()
    spiel_h = library.parent / "open_spiel" / "spiel.h"
    parts = [SOURCE.read_text(encoding="utf-8"), (CSRC / "rp_api.h").read_text(encoding="utf-8"),
             metadata.version("open_spiel"), str(library), str(stat.st_size), str(stat.st_mtime_ns),
             hashlib.sha256(spiel_h.read_bytes()).hexdigest(), _compiler_identity(), " ".join(FLAGS), sys.version]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def shim() -> tuple[Any, Any]:
    """The compiled shim (its cffi `ffi` and library): from the cache when its bytes are what its record says,
    else built now.  BuildError says why it cannot be."""
    try:
        import cffi
    except ImportError:
        raise BuildError("cffi is not installed (pip install 'ruleplay[native]')") from None
    key = shim_key()
    folder = cache_dir()
    name = f"_ruleplay_spiel_{key[:24]}"
    so, record = folder / f"{name}.so", folder / f"{name}.json"
    if not is_kept(so, record, key):
        _build(so, record, key)
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    try:
        lib = ffi.dlopen(str(so))
    except OSError as err:
        raise BuildError(f"the OpenSpiel shim {so} does not load: {err}") from None
    return ffi, lib


def _build(so: Path, record: Path, key: str) -> None:
    folder = so.parent
    work = Path(tempfile.mkdtemp(prefix="spiel-", dir=folder))
    try:
        built = work / so.name
        library = pyspiel_library()
        command = [_compiler(), *FLAGS, *(f"-I{d}" for d in _include_dirs()), str(SOURCE), "-o", str(built),
                   str(library), f"-Wl,-rpath,{library.parent}"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise BuildError(f"the C++ compiler failed on the OpenSpiel shim: {done.stderr.strip()[-500:]}")
        keep(built, so, record, key)
    except (OSError, subprocess.SubprocessError) as err:
        raise BuildError(f"the OpenSpiel shim could not be built: {err}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


class _Answers:
    """The Python side of one registered C++ game: handles of its histories, and what the callback asks."""

    def __init__(self, spec: Any):
        self.spec = spec
        self.handles: dict[tuple[int, ...], Handle | None] = {}
        # what the text and tensor kinds answered, by history, kind, player and action: a seed fixes a whole game,
        # so the state after a history, and all it shows, never changes
        self.views: dict[tuple, Any] = {}

    def handle(self, history: tuple[int, ...]) -> Handle | None:
        """The handle after `history` (None: the seed-drawing root), made from the nearest kept ancestor."""
        kept = self.handles.get(history)
        if kept is not None or (history in self.handles):
            return kept
        spec = self.spec
        if not history:
            handle = None if spec.seeds else spec.stepper.new(0)
        else:
            parent = self.handle(history[:-1])
            handle = py.make_step(spec, None if parent is None else parent.clone(), history[-1])
        if len(self.handles) >= KEPT_HANDLES:
            del self.handles[next(iter(self.handles))]
        self.handles[history] = handle
        return handle

    def answer(self, kind: int, player: int, action: int, history: tuple[int, ...], out: Any, cap: int) -> Any:
        """What `kind` asks about the state after `history`: a count, a player or 0 with `out` filled, or a view
        (text, or a tensor's bytes), kept for the next time it is asked."""
        spec = self.spec
        if kind == STEP:
            self.handle(history + (action,))
            return 0
        handle = self.handle(history)
        if kind == PLAYER:
            return py.CHANCE if handle is None else handle.current_player()
        if kind == LEGAL:
            actions = _legal(spec, handle)
            for k, a in enumerate(actions[:cap]):
                out[k] = a
            return len(actions)
        if kind == OUTCOMES:
            outcomes = py.chance_list(spec, handle)
            for k, (a, p) in enumerate(outcomes[:cap]):
                out[2 * k], out[2 * k + 1] = float(a), p
            return len(outcomes)
        if kind == RETURNS:
            for k, r in enumerate([0.0] * spec.game.model.players if handle is None else handle.returns()):
                out[k] = r
            return 0
        key = (history, kind, player, action)
        view = self.views.get(key)
        if view is None:
            view = self._view(kind, player, action, handle, cap)
            if len(self.views) >= KEPT_VIEWS:
                del self.views[next(iter(self.views))]
            self.views[key] = view
        return view

    def _view(self, kind: int, player: int, action: int, handle: Handle | None, cap: int) -> str | bytes:
        """A text kind's answer, or a tensor kind's as the bytes of its float32 numbers."""
        spec = self.spec
        if kind == ACTION_STRING:
            return py.action_string(spec, handle, player, action)
        if kind == TO_STRING:
            return py.state_string(handle)
        if kind in (OBSERVATION_STRING, INFORMATION_STRING):
            return py.view_string(spec, handle, player, kind == INFORMATION_STRING)
        tensor = np.zeros(cap, np.float32)
        py.view_tensor(spec, handle, player, kind == INFORMATION_TENSOR, tensor)
        return tensor.tobytes()


def _legal(spec: Any, handle: Handle | None) -> list[int]:
    if handle is None or handle.is_chance_node():
        return [a for a, _ in py.chance_list(spec, handle)]
    return [] if handle.is_terminal() else sorted(handle.legal_actions())


_GAMES: dict[int, _Answers] = {}
_GAMES_BY_NAME: dict[str, _Answers] = {}
_KEEP: list[Any] = []  # the native modules the registered games' C++ side steps, alive for the life of the process


@lru_cache(maxsize=1)
def _callback() -> Any:
    """The one callback every registered C++ game asks Python through."""
    ffi, _ = shim()
    text_slot: list[Any] = [None]  # the last answer's text, alive until the next call

    def ask(game: int, kind: int, player: int, action: int, history: Any, n: int, out: Any, cap: int,
            text: Any) -> int:
        try:
            answers = _GAMES[game]
            made = tuple(ffi.unpack(ffi.cast("int64_t *", history), n)) if n else ()
            if kind == LEGAL:
                got = answers.answer(kind, player, action, made, ffi.cast("int64_t *", out), cap)
            elif kind in (OUTCOMES, RETURNS):
                got = answers.answer(kind, player, action, made, ffi.cast("double *", out), cap)
            else:
                got = answers.answer(kind, player, action, made, None, cap)
            if isinstance(got, str):
                text_slot[0] = ffi.new("char[]", got.encode("utf-8"))
                text[0] = text_slot[0]
                return 0
            if isinstance(got, bytes):
                ffi.memmove(ffi.cast("float *", out), got, len(got))
                return 0
            return int(got)
        except Exception as err:  # handed to C++, which raises it in pyspiel as SpielError with this message
            text_slot[0] = ffi.new("char[]", str(err).encode("utf-8", "replace"))
            text[0] = text_slot[0]
            return FAILED

    return ffi.callback("rpx_ask_fn", ask)


def register_cxx(spec: Any) -> None:
    """Register `spec` (openspiel_game._Spec of a game on its native module) with pyspiel as the C++ game."""
    ffi, lib = shim()
    native = spec.stepper._native
    module_ffi, module_lib = native.ffi, native.lib
    game_id = len(_GAMES) + 1
    _GAMES[game_id] = _GAMES_BY_NAME[spec.name] = _Answers(spec)
    c = ffi.new("rpx_spec *")
    c.id = game_id
    for field in NATIVE_STEPS:
        address = int(module_ffi.cast("uintptr_t", module_ffi.addressof(module_lib, MODULE_NAMES[field])))
        setattr(c, field, ffi.cast("void *", address))
    c.ask = _callback()
    kind, info = spec.game_type, spec.game_info
    names = [ffi.new("char[]", kind.short_name.encode()), ffi.new("char[]", kind.long_name.encode())]
    c.short_name, c.long_name = names
    for field in ("dynamics", "chance_mode", "information", "utility", "reward_model"):
        setattr(c, field, int(getattr(kind, field).value))
    for field in ("max_num_players", "min_num_players", "provides_information_state_string",
                  "provides_information_state_tensor", "provides_observation_string", "provides_observation_tensor",
                  "default_loadable", "provides_factored_observation_string", "is_concrete"):
        setattr(c, field, int(getattr(kind, field)))
    for field in ("num_distinct_actions", "max_chance_outcomes", "num_players", "max_game_length",
                  "min_utility", "max_utility"):
        setattr(c, field, getattr(info, field))
    c.has_utility_sum = info.utility_sum is not None
    c.utility_sum = info.utility_sum or 0.0
    c.seeds = spec.seeds
    c.max_chance_listed = spec.game.max_chance_outcomes
    c.observation_size = spec.encoding.size
    c.history_rows, c.history_width = spec.history, 3 + len(spec.actions)
    error = ffi.new("char[]", 1000)
    if not lib.rpx_register(c, error, 1000):
        raise BuildError(f"pyspiel refused the game {kind.short_name}: {ffi.string(error).decode()}")
    _KEEP.append(native)  # the C++ side copied the rest


def engine_state_of(spec: Any, history: list[int]) -> Any:
    """The engine state after `history` in the C++ game of `spec` (None before the seed is drawn)."""
    answers = _GAMES_BY_NAME.get(spec.name)
    if answers is None:
        raise ValueError(f"{spec.name} is not a C++ game registered by ruleplay.openspiel")
    handle = answers.handle(tuple(history))
    return None if handle is None else handle.to_state()

