"""Long fuzzing of ruleset loading, for runs outside CI.

Loading any bytes must end in a game or a `RulesetError`; any other exception
(or a hang) is a bug.  With atheris installed (not a project requirement) this
is coverage-guided, seeded with the shipped rulesets:

    pip install atheris
    python tests/fuzz/fuzz_load.py -max_total_time=600 -timeout=10 fuzz-corpus/

(`fuzz-corpus/` is any folder where libFuzzer keeps the inputs it finds
interesting; it is created if missing.  A crash is saved as `crash-<hash>`;
replay it with `python tests/fuzz/fuzz_load.py crash-<hash>`.)

Without atheris, the same check runs on random mutations of the shipped
rulesets (cut, spliced, gouged, bytes flipped, rule text inserted):

    python tests/fuzz/fuzz_load.py --random 20000 [--seed 1]

and each input that breaks the rule is written to fuzz-failures/.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from ruleplay import RulesetError, load_game
from ruleplay.engine.loader import rulesets_dir

PIECES = [b"(", b")", b"[", b"]", b"{", b"}", b'"', b"'", b":", b": ", b"- ", b"\n", b"\t", b"  ", b"#", b"&a ",
          b"*a", b"!!python/name:os.system", b"<<: ", b"---\n", b"if ", b" then ", b" and ", b"not ", b"==",
          b"@X-1 ", b"goto x", b"stage y", b"__class__", b"\xff", b"\x00", b"\xc3\xa9", b"1e999", b"9" * 400,
          b"[" * 80, b"(" * 70, b"not " * 150, b"yes", b"012", b"1:30"]


class Workspace:
    """A copy of the ruleset folder and its seeds/ where each input is written and loaded."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="ruleplay-fuzz-"))
        shutil.copytree(rulesets_dir(), self.root / "rulesets")
        seeds = rulesets_dir().parent / "seeds"
        if seeds.is_dir():
            shutil.copytree(seeds, self.root / "seeds")
        self.path = self.root / "rulesets" / "fuzz-input.yaml"

    def load(self, data: bytes) -> None:
        """Load `data` as a ruleset; return normally for a game or a RulesetError, raise otherwise."""
        self.path.write_bytes(data)
        try:
            load_game(self.path)
        except RulesetError as err:
            if "Traceback" in err.format():
                raise AssertionError("a diagnostic shows a traceback") from err


def mutate(raw: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(raw))
        kind = rng.choice(["cut", "splice", "gouge", "flip", "duplicate"])
        if kind == "cut":
            raw = raw[:at]
        elif kind == "splice":
            raw = raw[:at] + rng.choice(PIECES) + raw[at:]
        elif kind == "gouge":
            raw = raw[:at] + raw[at + rng.randint(1, 200):]
        elif kind == "flip" and raw:
            at = min(at, len(raw) - 1)
            raw = raw[:at] + bytes([rng.randrange(256)]) + raw[at + 1:]
        else:
            end = min(len(raw), at + rng.randint(1, 300))
            raw = raw[:end] + raw[at:end] + raw[end:]
    return raw


def random_run(count: int, seed: int) -> int:
    work = Workspace()
    sources = [p.read_bytes() for p in sorted(rulesets_dir().glob("*.yaml"))]
    rng = random.Random(seed)
    out = Path("fuzz-failures")
    failures = 0
    for n in range(count):
        data = mutate(rng.choice(sources), rng)
        try:
            work.load(data)
        except Exception:  # noqa: BLE001 - any other exception is what we are looking for
            failures += 1
            out.mkdir(exist_ok=True)
            (out / f"failure-{seed}-{n}.yaml").write_bytes(data)
            print(f"input {n}: {traceback.format_exc(limit=-3)}", file=sys.stderr)
    print(f"{count} inputs, {failures} failures")
    return 1 if failures else 0


def atheris_run(argv: list[str]) -> None:
    import atheris

    work = Workspace()
    corpus = [a for a in argv[1:] if not a.startswith("-")]
    for folder in corpus:  # seed an empty corpus folder with the shipped rulesets
        path = Path(folder)
        if not path.exists() or (path.is_dir() and not any(path.iterdir())):
            path.mkdir(parents=True, exist_ok=True)
            for source in rulesets_dir().glob("*.yaml"):
                shutil.copy(source, path / source.name)
    atheris.Setup(argv, work.load)
    atheris.Fuzz()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--random", type=int, metavar="N", help="load N random mutations (no atheris needed)")
    parser.add_argument("--seed", type=int, default=1)
    args, rest = parser.parse_known_args()
    if args.random is not None:
        return random_run(args.random, args.seed)
    try:
        import atheris  # noqa: F401
    except ImportError:
        print("atheris is not installed: pip install atheris, or use --random N", file=sys.stderr)
        return 2
    atheris.instrument_all()  # coverage feedback from the (already imported) loading code
    atheris_run([sys.argv[0], *rest])
    return 0


if __name__ == "__main__":
    sys.exit(main())
