"""Rule traceability: every spec rule cited, every citation a real rule.

The spec is the game's numbered English specification (`spec:` in the
ruleset).  A spec rule that nothing cites is a warning with its own code
(RP310) so `validate` can list the rules not yet encoded; a citation of an
id the spec lacks is an error (RP311) — usually a typo.  The spec may live
in the ruleset's folder or in a `seeds/` folder beside it, nowhere else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.variants import inside
from ruleplay.dsl.yamlload import format_path

from .spec import read_spec


def spec_path(model, ruleset_path: Path) -> tuple[Path | None, str]:
    """The spec file a ruleset links, or None with the reason."""
    if not model.spec:
        return None, "no spec"
    folder = ruleset_path.resolve().parent
    target = (folder / model.spec).resolve()
    allowed = inside(folder, target) or inside(folder.parent / "seeds", target)
    if not allowed or Path(model.spec).is_absolute():
        return None, "outside"
    if not target.is_file():
        return None, "missing"
    return target, ""


def check_citations(model, ruleset_path: Path) -> Iterator[Diagnostic]:
    where = model.source.where
    path, why = spec_path(model, ruleset_path)
    if why == "outside":
        file, line, col, src = where(("spec",))
        yield Diagnostic("RP403", f"spec {model.spec!r} is outside the ruleset's folder and seeds/", file, line, col,
                         hint="put the specification in the ruleset's folder or in ../seeds/", path="spec",
                         source_line=src)
        return
    if why == "missing":
        file, line, col, src = where(("spec",))
        yield Diagnostic("RP404", f"spec file {model.spec!r} does not exist", file, line, col, path="spec",
                         source_line=src)
        return
    if path is None:
        return
    rules = read_spec(path)
    known = {r.id for r in rules}
    assumption_ids = {a.get("id") for a in model.assumptions}
    for rule, paths in sorted(model.cited_rules.items()):
        if rule not in known and rule not in assumption_ids:
            file, line, col, src = where(paths[0])
            yield Diagnostic("RP311", f"cites rule {rule!r}, which is not in {path.name}", file, line, col,
                             hint="check the id against the spec", path=format_path(paths[0]), source_line=src)
    for r in rules:
        if r.id not in model.cited_rules:
            yield Diagnostic("RP310", f"spec rule {r.id} is not cited by the ruleset", str(path), r.line, 1,
                             severity="warning", hint="encode the rule and cite it, or resolve it in an assumption",
                             source_line=r.text)
