"""A state's data to and from the JSON a native module reads and writes (`rp_to_json`, `rp_from_json`).

The module writes the variables in the model's order and the flow as a
fixed list, phase and stage by number; this side names them.  Values keep
their types exactly: ints are written as ints, floats with a point or an
exponent and all their digits, so a state read back is equal, type for
type, to the one written.  A state the module cannot hold (an int past 64
bits, a text that is not valid Unicode, a flow value the engine never
makes) is reported by returning None: such a state stays on the Python
engine.
"""

from __future__ import annotations

import json
from typing import Any

from ..model import GameModel

_FLOW_INTS = ("seat", "player", "players", "round", "turn", "start")


def to_module(model: GameModel, data: dict) -> str | None:
    """`data` ({"vars", "flow", "rng"}) as the module's JSON, or None if the module cannot hold it."""
    flow = data["flow"]
    try:
        phase = model.phase_order.index(flow["phase"])
        stages = list(model.phases[flow["phase"]].stages)
        stage = -1 if flow["stage"] is None else stages.index(flow["stage"])
        ints = [flow[k] for k in _FLOW_INTS]
        queue, end_round, done, steps, ended_by = (flow["queue"], flow["end_round"], flow["done"], flow["steps"],
                                                   flow["ended_by"])
    except (KeyError, ValueError, TypeError):
        return None
    if (not all(type(v) is int for v in ints + [steps]) or type(queue) is not list
            or not all(type(s) is int for s in queue) or type(done) is not bool
            or (end_round is not None and type(end_round) is not int)
            or (ended_by is not None and type(ended_by) is not str) or type(data["rng"]) is not int):
        return None
    try:
        values = [data["vars"][name] for name in model.vars]
        return json.dumps([values, [phase, stage, *ints, queue, end_round, done, steps, ended_by], data["rng"]],
                          ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (KeyError, ValueError, TypeError):
        return None


def from_module(model: GameModel, text: str) -> dict:
    """The state data the module's JSON describes."""
    values, flow, rng = json.loads(text)
    phase, stage, seat, player, players, round_, turn, start, queue, end_round, done, steps, ended_by = flow
    name = model.phase_order[phase]
    return {
        "vars": dict(zip(model.vars, values)),
        "flow": {"phase": name, "stage": None if stage < 0 else list(model.phases[name].stages)[stage],
                 "seat": seat, "player": player, "players": players, "round": round_, "turn": turn,
                 "start": start, "queue": queue, "end_round": end_round, "done": done, "steps": steps,
                 "ended_by": ended_by},
        "rng": rng,
    }


def encodable(text: Any) -> bool:
    """Whether the module can be handed this text (UTF-8 holds it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
