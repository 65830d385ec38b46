"""The games a server holds: one :class:`ServedGame` per page, kept apart in a :class:`GameTable`.

A served game is a :class:`~hoity_env.replays.RecordingEnv` with the human in one
seat and agents in the others.  Each has its own env, agents and lock, so games
never share state and two requests for one game run one after the other.  Every
request is checked in full before anything changes: a bad new-game body, an
unknown game, an action that is not legal for the human's seat now, or a step on
a finished game raises a :class:`~hoity_env.serve.settings.RequestError` and the
game is exactly as it was.

The table drops a game nobody has asked about for ``idle_timeout_s`` seconds,
saving its replay first (reason ``quit``); the clock is injected so tests need not wait.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from hoity_env.agents import Agent, make
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from hoity_env.engine.errors import ConfigError
from hoity_env.replays.recorder import RecordingEnv
from hoity_env.serve.replay_files import ReplayFolder
from hoity_env.serve.settings import (
    BadRequest,
    GameOver,
    IllegalAction,
    NotFound,
    ServeSettings,
    TooManyGames,
)
from hoity_env.serve.view import choices, hint, seat_view

__all__ = ["GameTable", "ServedGame", "new_game_fields"]

logger = logging.getLogger(__name__)
SOURCE = "hoity-serve"
NEW_GAME_FIELDS = frozenset({"players", "rules", "seat", "opponents", "seed"})


def _integer(body: Mapping[str, Any], name: str, low: int, high: int, default: int | None = None) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{name!r} must be an integer from {low} to {high}, got {value!r}")
    return value


def new_game_fields(body: Mapping[str, Any], offered: tuple[str, ...]) -> dict[str, Any]:
    """The checked fields of a new-game request; ``opponents`` may only name specs in ``offered``."""
    unknown = sorted(set(body) - NEW_GAME_FIELDS)
    if unknown:
        raise BadRequest(f"unknown field(s) {unknown}; a new game takes {sorted(NEW_GAME_FIELDS)}")
    players = _integer(body, "players", MIN_PLAYERS, MAX_PLAYERS)
    rules = body.get("rules", "standard")
    if rules not in PRESETS:
        raise BadRequest(f"'rules' must be one of {sorted(PRESETS)}, got {rules!r}")
    seat = _integer(body, "seat", 0, players - 1, default=0)
    opponents = body.get("opponents")
    if not isinstance(opponents, list) or len(opponents) != players - 1:
        raise BadRequest(f"'opponents' must be a list of {players - 1} agent specs, got {opponents!r}")
    for spec in opponents:
        if spec not in offered:
            raise BadRequest(f"opponent {spec!r} is not offered here; choose from {list(offered)}")
    seed = _integer(body, "seed", 0, 2**32 - 1, default=secrets.randbelow(2**31))
    return {"players": players, "rules": rules, "seat": seat, "opponents": list(opponents), "seed": seed}


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
        if self.replay is not None and not view["done"]:
            view["done"], view["left"] = True, True
        return view

    def play(self, body: Mapping[str, Any], replays: ReplayFolder) -> None:
        """Apply the human's ``{"action": A}`` and the agents' choices; save the replay at the end."""
        if set(body) != {"action"}:
            raise IllegalAction(
                f"an action request is {{'action': A}} and nothing else, got fields {sorted(body)}"
            )
        if self.done:
            raise GameOver(f"game {self.id} is over; start a new one")
        action, mask = body["action"], self.obs[self.me]["action_mask"]
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < mask.shape[0]:
            raise IllegalAction(f"'action' must be an integer from 0 to {mask.shape[0] - 1}, got {action!r}")
        if not mask[action]:
            legal = [int(a) for a in np.flatnonzero(mask)]
            raise IllegalAction(f"action {action} is not legal for you now; the legal ones are {legal}")
        actions = {self.me: action}
        for name, agent in self.opponents.items():
            actions[name] = agent.act(self.obs[name]["observation"], self.obs[name]["action_mask"])
        self.obs = self.env.step(actions)[0]
        self.steps += 1
        if not self.env.agents:
            self.replay = replays.save(self.env.replay, self.id)

    def leave(self, replays: ReplayFolder) -> str:
        """End the game now (if it is not over) and return its replay's file name."""
        if self.replay is None:
            self.env.replay.end = self.env.end_record("quit")
            self.replay = replays.save(self.env.replay, self.id)
        return self.replay

    def hint(self, body: Mapping[str, Any], offered: tuple[str, ...]) -> dict[str, Any]:
        """``{"agent", "kind", "probabilities": [{action, label, p}]}`` for the human's decision now.

        One hint agent per spec and game, asked once per step (asking again shows the same hint).
        """
        spec = body.get("agent")
        if set(body) != {"agent"} or spec not in offered:
            raise BadRequest(
                f"a hint request is {{'agent': SPEC}} with SPEC one of {list(offered)}, got {body!r}"
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


class GameTable:
    """The open games of one server, by id; safe to use from many request threads at once."""

    def __init__(self, settings: ServeSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.replays = ReplayFolder(settings.replays)
        self._games: dict[str, ServedGame] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def create(self, body: Mapping[str, Any]) -> ServedGame:
        """A new game from a checked new-game body (see :func:`new_game_fields`)."""
        fields = new_game_fields(body, self.settings.agents)
        with self._lock:
            if len(self._games) >= self.settings.max_games:
                raise TooManyGames(f"{len(self._games)} games are open, the most this server keeps")
        game = ServedGame(secrets.token_hex(8), fields, self.clock())
        with self._lock:
            self._games[game.id] = game
        logger.info(
            "game %s: %d players, %s rules, seat %d", game.id, fields["players"], fields["rules"], game.seat
        )
        return game

    def get(self, game_id: str) -> ServedGame:
        """The open game ``game_id`` (its idle clock restarts), or :class:`NotFound`."""
        with self._lock:
            game = self._games.get(game_id)
        if game is None:
            raise NotFound(f"no game {game_id[:40]!r} here (never started, left, or dropped when idle)")
        game.last_seen = self.clock()
        return game

    def remove(self, game_id: str) -> str:
        """Leave the game: save its replay (if not saved at its end), forget it, return the file name."""
        game = self.get(game_id)
        with self._lock:
            self._games.pop(game_id, None)
        with game.lock:
            name: str = game.leave(self.replays)
        return name

    def sweep(self) -> list[str]:
        """Drop the games idle for ``idle_timeout_s`` or more (their replays saved); their ids."""
        now = self.clock()
        with self._lock:
            idle = [g for g in self._games.values() if now - g.last_seen >= self.settings.idle_timeout_s]
            for game in idle:
                del self._games[game.id]
        for game in idle:
            with game.lock:
                name = game.leave(self.replays)
            logger.info("game %s dropped after %.0f s idle; replay %s", game.id, now - game.last_seen, name)
        return [g.id for g in idle]

    def close(self) -> None:
        """Save the replay of every open game (the server is stopping) and forget them all."""
        with self._lock:
            games, self._games = list(self._games.values()), {}
        for game in games:
            with game.lock:
                game.leave(self.replays)
