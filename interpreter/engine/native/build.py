"""Compiling a lowered ruleset with the system C compiler through cffi, into a per-user cache.

A module is built once per ruleset source, generator version, runtime,
compiler, flags and Python, and kept in `$XDG_CACHE_HOME/ruleplay` (else
`~/.cache/ruleplay`), a folder only its user may enter (mode 0700).  Each
module lies beside a record of the hash of its bytes; a module is loaded
only when its bytes hash to what the record says, and one that does not
(truncated, changed, foreign) is built again, never loaded.  Builds go to a
fresh folder first and are moved into place whole, so two processes
building the same module at once both end with a sound one.

Optimisation is chosen by the module's size (`optimization`): a first load
is mostly the C compiler's time on the module, which grows with its size,
while a large ruleset's play is mostly the runtime's, compiled apart at
`-O2` once per machine.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from .verify import CSRC, verify

RUNTIME_SOURCES = ("rp_value.c", "rp_ops.c", "rp_builtins.c", "rp_engine.c", "rp_api.c", "rp_search.c",
                   "rp_observe.c", "rp_determinize.c", "rp_batch.c")
HEADERS = ("rp.h", "rp_api.h")
STEP_SOURCE = "rp_step.c"  # the engine's step: compiled into each module, with the module's model a constant
VERIFIER = Path(__file__).with_name("verify.py")
OPT_ENV = "RULEPLAY_NATIVE_OPT"  # flags that replace the chosen optimisation of the runtime and every module
RUNTIME_OPT = ("-O2",)
# Partial redundancy elimination took a fifth to a quarter of a large module's -O2 compile and saved no
# instruction of play (callgrind, random playouts of the built-in rulesets).
MODULE_OPT = ("-O2", "-fno-tree-pre")
# A module of more C than this compiles at -O1, in half the CPU time of -O2: the two largest built-in rulesets
# (about 480,000 characters) would pass 10 s on a first load otherwise.  Their play costs 2-8% more instructions
# (mostly the runtime's, which stays at -O2); -O1 on the smallest modules would cost 15-17%.
# docs/performance.md ("Start-up") has the figures.
LARGE_MODULE = 250_000
LARGE_MODULE_OPT = ("-O1",)
# -mno-mmx on x86: GCC 12's vectorizer may move 64-bit values through an MMX register (movq2dq) without
# `emms`, which leaves the x87 stack full for the rest of the process: NumPy's next fmod then gives NaN
# (matplotlib failed on it in a later `analyze`). Nothing the runtime does needs MMX; SSE is kept.
NO_MMX = ("-mno-mmx",) if platform.machine().lower() in ("x86_64", "amd64", "i386", "i686") else ()
FLAGS = ("-std=gnu11", "-fno-strict-overflow", *NO_MMX, "-Wno-unused-label", "-Wno-unused-variable",
         "-Wno-unused-but-set-variable", "-Wno-unused-function")
SANITIZE = os.environ.get("RULEPLAY_NATIVE_SANITIZE", "")  # "address,undefined" for the sanitizer run


class BuildError(Exception):
    """The module could not be compiled or loaded (no compiler, no cffi, a compiler error)."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "ruleplay"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


@lru_cache(maxsize=1)
def compiler_identity() -> str:
    """The C compiler cffi will call, and what it says of its version: part of a module's key."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    cc = os.environ.get("CC", cc).split()[0]
    found = shutil.which(cc)
    if found is None:
        raise BuildError(f"no C compiler: {cc!r} is not on the PATH")
    try:
        version = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as err:
        raise BuildError(f"the C compiler {found} does not run: {err}") from None
    return f"{found}\n{version.splitlines()[0] if version else ''}"


def toolchain() -> str:
    """Everything outside the sources and our flags that changes what the compiler makes: the compiler and its
    version, this Python's build flags, and the environment variables the build reads for its commands."""
    config = [sysconfig.get_config_var(name) or "" for name in ("CC", "CFLAGS", "CCSHARED", "LDSHARED")]
    env = [f"{name}={os.environ.get(name, '')}" for name in ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED")]
    return "\n".join([compiler_identity(), *config, *env, sys.version, sysconfig.get_config_var("EXT_SUFFIX") or ""])


def optimization(source: str | None = None) -> tuple[str, ...]:
    """The optimisation flags of the runtime (no `source`) or of the module of `source`: `$RULEPLAY_NATIVE_OPT`
    for both when set, else -O2 for the runtime and, for a module, by its size."""
    chosen = os.environ.get(OPT_ENV, "").split()
    if chosen:
        return tuple(chosen)
    if source is None:
        return RUNTIME_OPT
    return LARGE_MODULE_OPT if len(source) > LARGE_MODULE else MODULE_OPT


def runtime_text() -> str:
    """The runtime's sources as they are now (read each time: a key must never name other sources than it built)."""
    return "".join((CSRC / name).read_text(encoding="utf-8") for name in (*HEADERS, *RUNTIME_SOURCES, STEP_SOURCE))


def cdef() -> str:
    return "typedef struct rp_state rp_state;\n" + (CSRC / "rp_api.h").read_text(encoding="utf-8")


def module_key(source: str) -> str:
    """What a built module depends on: its source, the runtime, the verifier that passed the source, the flags
    of the module and of the runtime it links, the compiler and this Python."""
    compile_args, link_args = _compile_args(optimization(source))
    parts = [source, VERIFIER.read_text(encoding="utf-8"), " ".join(compile_args), " ".join(link_args),
             runtime_key()]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _import(name: str, path: Path) -> Any:
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    if spec is None:
        raise BuildError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


_LOADED: dict[str, Any] = {}


def load_module(source: str) -> Any:
    """The compiled module of `source` (its `ffi` and `lib`): from the cache when sound, else built now.

    The source is verified before it is built.  A cached module whose record names this source's key
    was built from this very source after this very verifier passed it (the key holds both), so it is
    loaded without verifying the source again: that took longer than the rest of a cached load."""
    key = module_key(source)
    if key in _LOADED:
        return _LOADED[key]
    name = f"_ruleplay_{key[:24]}"
    folder = cache_dir()
    so = folder / f"{name}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
    record = folder / f"{name}.json"
    module = None
    try:
        if is_kept(so, record, key):
            module = _import(name, so)
    except (OSError, ImportError):  # gone or unloadable since it was checked: built again
        module = None
    if module is None:
        verify(source)
        _build(name, source, so, record, key)
        module = _import(name, so)
    if not module.lib.rp_init():
        raise BuildError("the native module could not set up its constants (out of memory?)")
    _LOADED[key] = module
    return module


def is_kept(so: Path, record: Path, key: str) -> bool:
    """Whether the cached library `so` was built for `key` and is, byte for byte, what its record says: a
    truncated or changed library is built again, never loaded."""
    try:
        kept = json.loads(record.read_text(encoding="utf-8"))
        return kept.get("key") == key and kept.get("sha256") == _file_hash(so)
    except (OSError, ValueError):
        return False


def keep(built: Path, so: Path, record: Path, key: str) -> None:
    """The library `built` for `key` put in the cache as `so`, with its record: each is written beside its
    place and renamed into it, so a process loading it at the same time sees the old file or the new one."""
    folder = so.parent
    digest = _file_hash(built)
    staged = folder / f".{so.name}.{os.getpid()}"
    shutil.copyfile(built, staged)
    os.chmod(staged, 0o700)
    os.replace(staged, so)
    staged_record = folder / f".{record.name}.{os.getpid()}"
    staged_record.write_text(json.dumps({"key": key, "sha256": digest}), encoding="utf-8")
    os.replace(staged_record, record)


def _compile_args(optimize: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The compiler's arguments after this Python's own (which they override), and the linker's."""
    args = [*optimize, *FLAGS, "-g0"]
    link: list[str] = []
    if SANITIZE:  # the tests' sanitizer run (.ci/run): the first fault stops the process with its report
        args += [f"-fsanitize={SANITIZE}", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]
        link += [f"-fsanitize={SANITIZE}"]
    return args, link


def runtime_key() -> str:
    """What the runtime's objects depend on: its sources, its flags, the compiler and this Python."""
    args, _ = _compile_args(optimization())
    return hashlib.sha256("\0".join([runtime_text(), " ".join(args), toolchain()]).encode("utf-8")).hexdigest()


def runtime_objects() -> list[str]:
    """The runtime compiled once (per runtime, compiler, flags and Python) and kept beside the modules: each
    module then compiles only its own code and links these."""
    from setuptools.errors import CompileError

    args, _ = _compile_args(optimization())
    folder = cache_dir() / f"runtime-{runtime_key()[:24]}"
    objects = [folder / f"{Path(name).stem}.o" for name in RUNTIME_SOURCES]
    record = folder / "objects.json"
    try:
        kept = json.loads(record.read_text(encoding="utf-8"))
        if all(kept.get(o.name) == _file_hash(o) for o in objects):
            return [str(o) for o in objects]
    except (OSError, ValueError):
        pass
    work = Path(tempfile.mkdtemp(prefix="runtime-", dir=cache_dir()))
    try:
        cc = _compiler()
        built = cc.compile([str(CSRC / name) for name in RUNTIME_SOURCES], output_dir=str(work),
                           include_dirs=[str(CSRC)], extra_postargs=args)
        folder.mkdir(mode=0o700, exist_ok=True)
        hashes = {}
        for made, target in zip(sorted(built, key=lambda p: Path(p).stem),
                                sorted(objects, key=lambda p: p.stem)):
            staged = folder / f".{target.name}.{os.getpid()}"
            shutil.copyfile(made, staged)
            os.replace(staged, target)
            hashes[target.name] = _file_hash(target)
        staged_record = folder / f".objects.json.{os.getpid()}"
        staged_record.write_text(json.dumps(hashes), encoding="utf-8")
        os.replace(staged_record, record)
    except (OSError, CompileError) as err:
        raise BuildError(f"the C compiler failed on the native runtime: {str(err).strip()[:500]}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [str(o) for o in objects]


def _compiler() -> Any:
    """The compiler setuptools builds extensions with (cffi's), set up with this Python's flags."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    cc = new_compiler()
    customize_compiler(cc)
    return cc


def _build(name: str, source: str, so: Path, record: Path, key: str) -> None:
    try:
        import cffi
    except ImportError:
        raise BuildError("cffi is not installed (pip install 'ruleplay[native]')") from None
    from setuptools.errors import CompileError, LinkError  # what cffi's build raises for the compiler's failures

    ffi = cffi.FFI()
    ffi.cdef(cdef())
    args, link = _compile_args(optimization(source))
    # The API's declarations follow the verified source: cffi's wrapper, written after it, calls them.  The
    # engine's step follows the model it reads as a constant (rp_step.c).
    ffi.set_source(name, source + f'\n#include "rp_api.h"\n#include "{STEP_SOURCE}"\n', extra_objects=runtime_objects(),
                   include_dirs=[str(CSRC)], extra_compile_args=args, extra_link_args=link)
    folder = so.parent
    work = Path(tempfile.mkdtemp(prefix="build-", dir=folder))
    try:
        keep(Path(ffi.compile(tmpdir=str(work), verbose=False)), so, record, key)
    except (OSError, cffi.VerificationError, cffi.CDefError, CompileError, LinkError) as err:
        raise BuildError(f"the C compiler failed on the lowered ruleset: {str(err).strip()[:500]}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
