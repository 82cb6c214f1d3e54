"""Texts as a person at the table reads them: copies of alike components without their copy numbers.

A kind of component declared `alike: true` has copies that play the same
(`copies: 3` of `science-1` are `science-1#1` … `science-1#3`): the engine
keeps them apart, since a state must say which card is where, but a person
is shown `science-1`, and moves that differ only in which copy they name
are offered once (`distinct_moves`).  Kinds not declared alike keep their
numbers: there the copy may matter.
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

from .model import GameModel
from .moves import Move

_NO_COPIES = re.compile(r"(?!)")  # matches nothing


def _copy_names(model: GameModel) -> re.Pattern:
    """A pattern of the copy numbers to leave out (`#N` after an alike item's id), made once per model."""
    if model.people_names is None:
        ids = sorted({cid.rsplit("#", 1)[0] for kind, spec in (model.data.get("components") or {}).items()
                      if isinstance(spec, dict) and spec.get("alike") is True
                      for cid in model.components_by_kind.get(kind, []) if "#" in cid}, key=len, reverse=True)
        model.people_names = (re.compile("(?<![\\w#-])(" + "|".join(map(re.escape, ids)) + r")#\d+(?![\w#-])")
                              if ids else _NO_COPIES)
    return model.people_names


def for_people(model: GameModel, text: str) -> str:
    """`text` with every alike copy named by its item's id alone (`science-1#2` is `science-1`)."""
    pattern = _copy_names(model)
    return text if pattern is _NO_COPIES else pattern.sub(r"\1", text)


def is_hidden(value: Any) -> bool:
    """A masked value from `observe`: `{"hidden": n}` for a hidden list, `{"hidden": true}` for one item."""
    return isinstance(value, dict) and len(value) == 1 and "hidden" in value


def plain_text(model: GameModel, value: Any) -> str:
    """A value as a person reads it, never as JSON: text as itself (alike copies without their numbers),
    null as ".", a list as its items with spaces (a list inside one in brackets), a hidden value as
    how many are hidden, a map as `key: value` pairs."""
    if value is None:
        return "."
    if isinstance(value, str):
        return for_people(model, value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if is_hidden(value):
        count = value["hidden"]
        return f"{count} hidden" if type(count) is int else "hidden"
    if isinstance(value, list):
        return " ".join(f"[{plain_text(model, v)}]" if isinstance(v, list) else plain_text(model, v)
                        for v in value) if value else "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {plain_text(model, v)}" for k, v in value.items()) or "none"
    return json.dumps(value)


def distinct_moves(model: GameModel, moves: Sequence[Move]) -> list[tuple[str, Move]]:
    """The moves a person is offered, with their texts: the first of those a person reads alike."""
    offered: dict[str, Move] = {}
    for move in moves:
        offered.setdefault(for_people(model, str(move)), move)
    return list(offered.items())
