"""``RecordingEnv``: the parallel env that keeps a :class:`Replay` of the game it plays.

It is a :class:`HoityParallelEnv` (same arguments, same behaviour), so anything
that plays the parallel env (the harness's ``play_game``, ``hoity-play``, a
user's loop) records by building this class instead.  Each ``reset`` starts a
new replay; each ``step`` appends the joint action the rules applied and the
step's events (from the engine's own records, never from infos).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.engine.actions import Phase
from hoity_env.engine.errors import IllegalActionError
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.replays.format import Replay, StepRecord

__all__ = ["RecordingEnv"]


class RecordingEnv(HoityParallelEnv):
    """A parallel env that records every game; ``replay`` is the current (or last) game's.

    Args:
        agent_names: labels of the seats written in the replay header (default ``player_K``).
        meta: extra JSON-safe header fields (``source``, a deal number …).
        **kwargs: as for :class:`HoityParallelEnv`.
    """

    def __init__(
        self,
        *,
        agent_names: Sequence[str] | None = None,
        meta: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.agent_names = tuple(agent_names) if agent_names is not None else tuple(self.possible_agents)
        if len(self.agent_names) != self.num_players:
            raise ValueError(f"{self.num_players} players need {self.num_players} agent names")
        self.meta = dict(meta or {})
        self._replay: Replay | None = None

    @property
    def replay(self) -> Replay:
        """The game being played (or the last one), as a :class:`Replay`."""
        if self._replay is None:
            raise IllegalActionError(
                "no replay: call reset() (a game restored by set_state or started from a position "
                "is not recorded)"
            )
        return self._replay

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Deal a new game and start its replay (a game started from a position is not recorded:
        a replay is a deal seed and its actions, and a position has no deal seed)."""
        out = super().reset(seed=seed, options=options)
        if self.game_seed is None:
            self._replay = None
            return out
        self._replay = Replay(
            rules=self.rules,
            num_players=self.num_players,
            seed=self.game_seed,
            agents=self.agent_names,
            meta=dict(self.meta),
        )
        return out

    def set_state(self, data: Any) -> None:
        """Restore a snapshot; the game continues unrecorded (its deal seed is not in the snapshot)."""
        super().set_state(data)
        self._replay = None

    def step(self, actions: Mapping[str, Any]) -> Any:
        """Play one step and append it (the applied joint action and its events) to the replay."""
        state = self.game_state if self._replay is not None else None
        if state is None or not self.agents:
            return super().step(actions)
        step, rnd, phase = len(self.replay.steps), state.round, state.phase
        out = super().step(actions)
        # What the rules applied (after any fallback): the revealed locations, or the actions played.
        applied = state.locations if phase is Phase.LOCATION else state.last_actions
        self.replay.steps.append(
            StepRecord(
                step=step,
                round=rnd,
                phase="location" if phase is Phase.LOCATION else "action",
                actions=tuple(int(a) for a in applied),
                events=tuple(self.last_events),
            )
        )
        if not self.agents:
            self.replay.end = self.end_record("terminated" if state.terminated else "truncated")
            if not (state.terminated or state.truncated):
                self.replay.end["reason"] = "max_cycles"
        return out

    def end_record(self, reason: str) -> dict[str, Any]:
        """The ``end`` line for a game stopped now for ``reason`` (``quit`` when a person leaves)."""
        state = self.game_state
        return {
            "reason": reason,
            "rounds": state.round,
            "winners": list(state.winners),
            "positions": list(state.positions),
        }

    def save_replay(self, path: str | Path) -> Path:
        """Write the current replay to ``path`` atomically."""
        return self.replay.save(path)
