"""One served game: the human in one seat, agents in the others, its replay saved when it ends.

A served game is a :class:`~hoity_env.replays.RecordingEnv` with its own agents and lock, so games never
share state and two requests for one game run one after the other.  Every request is checked in full
before anything changes: a bad one raises a :class:`~hoity_env.serve.settings.RequestError` and the game
is exactly as it was.  See docs/serve.md.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from hoity_env.agents import Agent, make
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.replays.recorder import RecordingEnv
from hoity_env.serve.replay_files import ReplayFolder
from hoity_env.serve.settings import BadRequest, GameOver, IllegalAction, ReplayNotSaved, shown
from hoity_env.serve.view import choices, hint, seat_view

__all__ = ["ServedGame", "new_game_fields"]

logger = logging.getLogger(__name__)
SOURCE = "hoity-serve"
NEW_GAME_FIELDS = frozenset({"players", "rules", "seat", "opponents", "seed"})


def _integer(body: Mapping[str, Any], name: str, low: int, high: int, default: int | None = None) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{name!r} must be an integer from {low} to {high}, got {shown(value)}")
    return value


def new_game_fields(body: Mapping[str, Any], offered: tuple[str, ...]) -> dict[str, Any]:
    """The checked fields of a new-game request; ``opponents`` may only name specs in ``offered``."""
    unknown = sorted(str(k) for k in set(body) - NEW_GAME_FIELDS)
    if unknown:
        raise BadRequest(f"unknown field(s) {shown(unknown)}; a new game takes {sorted(NEW_GAME_FIELDS)}")
    players = _integer(body, "players", MIN_PLAYERS, MAX_PLAYERS)
    rules = body.get("rules", "standard")
    if not isinstance(rules, str) or rules not in PRESETS:  # a list or an object is no preset's name
        raise BadRequest(f"'rules' must be one of {sorted(PRESETS)}, got {shown(rules)}")
    seat = _integer(body, "seat", 0, players - 1, default=0)
    opponents = body.get("opponents")
    if not isinstance(opponents, list) or len(opponents) != players - 1:
        raise BadRequest(f"'opponents' must be a list of {players - 1} agent specs, got {shown(opponents)}")
    for spec in opponents:
        if not isinstance(spec, str) or spec not in offered:
            raise BadRequest(f"opponent {shown(spec)} is not offered here; choose from {list(offered)}")
    seed = _integer(body, "seed", 0, 2**32 - 1, default=secrets.randbelow(2**31))
    return {"players": players, "rules": rules, "seat": seat, "opponents": list(opponents), "seed": seed}


def _reason(exc: OSError) -> str:
    """What went wrong in words (``No space left on device``), without the file's path."""
    return os.strerror(exc.errno) if exc.errno else type(exc).__name__


class ServedGame:
    """One game of the human (in ``seat``) against agents; all access goes through :attr:`lock`."""

    def __init__(self, game_id: str, fields: Mapping[str, Any], now: float) -> None:
        n, seat, seed = fields["players"], fields["seat"], fields["seed"]
        names = [""] * n
        names[seat] = "human"
        for k, spec in enumerate(fields["opponents"], start=1):  # seat order after the human's, as hoity-play
            names[(seat + k) % n] = spec
        self.id = game_id
        self.seat = seat
        self.seed = seed
        self.lock = threading.Lock()
        self.last_seen = now
        self.env = RecordingEnv(
            num_players=n, rules=fields["rules"], agent_names=names, meta={"source": SOURCE, "game": game_id}
        )
        size = self.env.codec.size
        try:
            self.opponents: dict[str, Agent] = {
                self.env.possible_agents[(seat + k) % n]: make(
                    spec, seed + k, num_players=n, rules=self.env.rules, num_actions=size
                )
                for k, spec in enumerate(fields["opponents"], start=1)
            }
        except ConfigError as exc:
            raise BadRequest(str(exc)) from exc
        self.obs = self.env.reset(seed=seed)[0]
        self.steps = 0
        self.replay: str | None = None
        self.save_error: str | None = None
        """Why the replay of the ended game is not saved yet (None once saved, or before the end)."""
        self._hints: dict[str, Agent] = {}
        self._hint_cache: dict[tuple[int, str], dict[str, Any]] = {}

    @property
    def me(self) -> str:
        """The human seat's agent name (``player_K``)."""
        name: str = self.env.possible_agents[self.seat]
        return name

    @property
    def done(self) -> bool:
        """Whether the game has ended (won, truncated, or left)."""
        return not self.env.agents or self.replay is not None

    def view(self) -> dict[str, Any]:
        """The human seat's view (see :func:`~hoity_env.serve.view.seat_view`) plus the game's id."""
        mask = None if self.done else self.obs[self.me]["action_mask"]
        view = seat_view(self.env, self.seat, mask, self.steps)
        view.update(id=self.id, replay=self.replay)
        if self.save_error is not None:
            view["replay_error"] = self.save_error
        if self.replay is not None and not view["done"]:
            view["done"], view["left"] = True, True
        return view

    def play(self, body: Mapping[str, Any], replays: ReplayFolder) -> None:
        """Apply the human's ``{"action": A}`` and the agents' choices; save the replay at the end.

        If the replay cannot be saved (a full disk), the step has still happened: the view says why
        in ``replay_error``, and the game keeps its end for the next try.
        """
        if set(body) != {"action"}:
            raise IllegalAction(
                f"an action request is {{'action': A}} and nothing else, got fields {shown(sorted(body))}"
            )
        if self.done:
            raise GameOver(f"game {self.id} is over; start a new one")
        action, mask = body["action"], self.obs[self.me]["action_mask"]
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < mask.shape[0]:
            raise IllegalAction(
                f"'action' must be an integer from 0 to {mask.shape[0] - 1}, got {shown(action)}"
            )
        if not mask[action]:
            legal = [int(a) for a in np.flatnonzero(mask)]
            raise IllegalAction(f"action {action} is not legal for you now; the legal ones are {legal}")
        actions = {self.me: action}
        for name, agent in self.opponents.items():
            actions[name] = agent.act(self.obs[name]["observation"], self.obs[name]["action_mask"])
        self.obs = self.env.step(actions)[0]
        self.steps += 1
        if not self.env.agents:
            try:
                self.save(replays)
            except ReplayNotSaved:  # the step happened: its answer is the final view, with the reason
                logger.error("game %s ended, but %s", self.id, self.save_error)

    def save(self, replays: ReplayFolder) -> str:
        """Save the replay (``quit`` if the game is still going, else as it ended); its file name.

        A failed write (:class:`ReplayNotSaved`) changes nothing: a game still going stays
        playable, an ended game keeps its own end for the next try (leaving, the idle sweep or the
        server's stop save it as it ended, never as ``quit``).
        """
        if self.replay is not None:
            return self.replay
        record = self.env.replay
        quitting = bool(self.env.agents)
        if quitting:
            record.end = self.env.end_record("quit")
        try:
            self.replay = replays.save(record, self.id)
        except OSError as exc:
            if quitting:
                record.end = None
            self.save_error = f"the replay could not be saved: {_reason(exc)}"
            raise ReplayNotSaved(
                f"{self.save_error}; the game is kept: free some space, then leave it again"
            ) from None
        self.save_error = None
        return self.replay

    def hint(self, body: Mapping[str, Any], offered: tuple[str, ...]) -> dict[str, Any]:
        """``{"agent", "kind", "probabilities": [{action, label, p}]}`` for the human's decision now.

        One hint agent per spec and game, asked once per step (asking again shows the same hint).
        """
        spec = body.get("agent")
        if set(body) != {"agent"} or not isinstance(spec, str) or spec not in offered:
            raise BadRequest(
                f"a hint request is {{'agent': SPEC}} with SPEC one of {list(offered)}, got {shown(body)}"
            )
        if self.done:
            raise GameOver(f"game {self.id} is over: there is no decision to hint")
        key = (self.steps, spec)
        if key not in self._hint_cache:
            if spec not in self._hints:
                try:
                    agent = make(
                        spec,
                        self.seed + 100,
                        num_players=self.env.num_players,
                        rules=self.env.rules,
                        num_actions=self.env.codec.size,
                    )
                except ConfigError as exc:
                    raise BadRequest(str(exc)) from exc
                self._hints[spec] = agent
            mine = self.obs[self.me]
            kind, probs = hint(self._hints[spec], mine["observation"], mine["action_mask"])
            labels = {c["action"]: c["label"] for c in choices(self.env, mine["action_mask"])}
            rows = [{"action": a, "label": labels[a], "p": round(float(probs[a]), 4)} for a in labels]
            self._hint_cache[key] = {"agent": spec, "kind": kind, "step": self.steps, "probabilities": rows}
        return self._hint_cache[key]
