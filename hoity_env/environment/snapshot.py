"""An env snapshot (``HoityParallelEnv.get_state``'s dict), and its reader, which checks every field
before the env changes: the engine state by its invariants, then the env's fields against it.
Unknown keys are refused at every level; only a snapshot marked ``"hand_made"`` skips the
engine state's history checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hoity_env.engine.errors import StateError
from hoity_env.engine.event_schema import check_event
from hoity_env.engine.events import Event
from hoity_env.engine.game import Game
from hoity_env.engine.rng import rng_from_dict, rng_to_dict
from hoity_env.engine.state import GameState
from hoity_env.engine.state_io import refuse_unknown_keys
from hoity_env.environment.positions import played_steps

__all__ = ["ENV_STATE_VERSION", "SNAPSHOT_KEYS", "Snapshot", "read_snapshot"]

ENV_STATE_VERSION = 1
SNAPSHOT_KEYS = frozenset({"version", "engine", "env"})
ENV_KEYS = frozenset({"agents", "cycles", "events", "np_random", "warned_illegal", "hand_made"})


@dataclass(frozen=True)
class Snapshot:
    """The checked contents of one env snapshot, ready to install."""

    state: GameState
    agents: list[str]
    cycles: int
    events: list[Event]
    np_random: np.random.Generator
    warned_illegal: bool
    hand_made: bool = False
    """The game started from a position set up by hand (its state has no history to check)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-safe dict :func:`read_snapshot` reads back (what ``get_state`` returns)."""
        env: dict[str, Any] = {
            "agents": list(self.agents),
            "cycles": self.cycles,
            "events": [e.to_dict() for e in self.events],
            "np_random": rng_to_dict(self.np_random),
            "warned_illegal": self.warned_illegal,
        }
        if self.hand_made:  # written only when true: other snapshots stay as they were
            env["hand_made"] = True
        return {"version": ENV_STATE_VERSION, "engine": self.state.to_dict(), "env": env}


def read_snapshot(game: Game, data: Any, max_cycles: int | None) -> Snapshot:
    """Check ``data`` against ``game`` and ``max_cycles``; any failure raises :class:`StateError`."""
    if not isinstance(data, dict):
        raise StateError(f"env state must be a dict, got {type(data).__name__}")
    version = data.get("version")
    if type(version) is not int or version != ENV_STATE_VERSION:
        raise StateError(f"env state field 'version' must be the int {ENV_STATE_VERSION}, got {version!r}")
    refuse_unknown_keys(data, SNAPSHOT_KEYS, "env state")
    env = data.get("env")
    if not isinstance(env, dict):
        raise StateError("env state is missing field 'env' (a dict)")
    refuse_unknown_keys(env, ENV_KEYS, "env state field 'env'")
    hand_made = env.get("hand_made", False)
    if not isinstance(hand_made, bool):
        raise StateError(f"env state field 'hand_made' must be a bool, got {hand_made!r}")
    state = game.state_from_dict(data.get("engine"), hand_made=hand_made)
    cycles = env.get("cycles")
    steps = played_steps(state)
    if type(cycles) is not int or cycles != steps:
        raise StateError(
            f"env state field 'cycles' must be the int {steps} (two steps per round played), got {cycles!r}"
        )
    over = state.done or (max_cycles is not None and cycles >= max_cycles)
    agents = env.get("agents")
    if agents != ([] if over else [f"player_{i}" for i in range(game.num_players)]):
        raise StateError("env state field 'agents' does not match the game's progress")
    events = env.get("events")
    if not isinstance(events, list):
        raise StateError("env state field 'events' must be a list of event dicts")
    rules = game.rules
    limits = {
        "num_players": game.num_players,
        "deck_size": state.deck.size,
        "money": rules.max_price,
        "space": rules.finish - 1 + max(state.deck.size, rules.detective_reward),
        "rounds": state.round,
    }
    for k, event in enumerate(events):
        try:
            check_event(event, **limits)
        except StateError as exc:
            raise StateError(f"env state field 'events[{k}]': {exc}") from exc
    records = [Event.from_dict(e) for e in events]
    rng = rng_from_dict(env.get("np_random"), "env.np_random")
    warned = env.get("warned_illegal", False)
    if not isinstance(warned, bool):
        raise StateError(f"env state field 'warned_illegal' must be a bool, got {warned!r}")
    return Snapshot(state, list(agents), cycles, records, rng, warned, hand_made)
