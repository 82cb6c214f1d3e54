"""The text behind each rule id a ruleset cites: what a person reads when a table or page names a rule.

Rule ids come from the ruleset's spec (`spec:`, a Markdown file of
`- **ID** text` lines, read as the citation check reads it) and from its
`assumptions:` (each with an `id` and a `text`).  A spec that cannot be read
gives no texts: the ids are still shown, without their words.
"""

from __future__ import annotations


from ruleplay.validators.citations import spec_path
from ruleplay.validators.spec import RULE_LINE, read_spec

from .model import GameModel


def rule_texts(model: GameModel) -> dict[str, str]:
    """Rule id -> its text, for every rule of the spec and every assumption of the ruleset."""
    texts: dict[str, str] = {}
    path, _ = spec_path(model)
    if path is not None:
        try:
            texts.update((rule.id, RULE_LINE.sub("", rule.text, count=1).strip()) for rule in read_spec(path))
        except (OSError, ValueError):
            pass  # an unreadable spec is the validator's finding; here it only leaves the ids bare
    for assumption in model.assumptions:
        if isinstance(assumption, dict) and isinstance(assumption.get("id"), str):
            texts[assumption["id"]] = " ".join(str(assumption.get("text", "")).split())
    return texts
