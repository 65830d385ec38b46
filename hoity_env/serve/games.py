"""The games a server holds, by id: at most ``max_games`` open, finished ones remembered as their last view.

:class:`GameTable` is the one place requests reach games through, safe from many request threads at
once, so its limits hold under any burst of requests.  A replay the disk will not take never loses a
game silently: leaving answers :class:`~hoity_env.serve.settings.ReplayNotSaved` (507) and keeps it.
See docs/serve.md.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from hoity_env.serve.replay_files import ReplayFolder
from hoity_env.serve.served_game import ServedGame, new_game_fields
from hoity_env.serve.settings import (
    GameOver,
    NotFound,
    ReplayNotSaved,
    ServeSettings,
    TooManyGames,
)

__all__ = ["GameTable", "ServedGame", "new_game_fields"]

logger = logging.getLogger(__name__)


class GameTable:
    """The open games of one server, by id, and the last views of the recently finished ones.

    ``max_games`` is a hard limit: a slot is reserved under the table's lock before the (slow) game
    is built.  A game frees its slot once it has ended and its replay is saved (or is left or
    dropped), its last view kept among the ``max_games`` latest finished.  A game nobody has asked
    about for ``idle_timeout_s`` seconds is dropped, its replay saved first (reason ``quit``); the
    idle sweep and :meth:`close` log one error line per game they could not save.  ``clock`` is
    injected so tests need not wait.
    """

    def __init__(self, settings: ServeSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.replays = ReplayFolder(settings.replays)
        self._games: dict[str, ServedGame] = {}
        self._starting = 0
        """Slots reserved by games being built (counted against ``max_games``)."""
        self._finished: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """The open games (finished ones hold no slot)."""
        with self._lock:
            return len(self._games)

    def create(self, body: Mapping[str, Any]) -> ServedGame:
        """A new game from a checked new-game body (see :func:`new_game_fields`), or :class:`TooManyGames`."""
        fields = new_game_fields(body, self.settings.agents)
        with self._lock:
            taken = len(self._games) + self._starting
            if taken >= self.settings.max_games:
                raise TooManyGames(
                    f"{taken} games are open, the most this server keeps; finish or leave one first"
                )
            self._starting += 1  # reserved now: the game itself takes a while to build
        try:
            game = ServedGame(secrets.token_hex(8), fields, self.clock())
        finally:
            with self._lock:
                self._starting -= 1
        with self._lock:
            self._games[game.id] = game
        logger.info(
            "game %s: %d players, %s rules, seat %d", game.id, fields["players"], fields["rules"], game.seat
        )
        return game

    def get(self, game_id: str) -> ServedGame:
        """The open game ``game_id`` (its idle clock restarts); :class:`GameOver` for a finished one,
        :class:`NotFound` for any other id."""
        with self._lock:
            game = self._games.get(game_id)
            finished = game_id in self._finished
        if game is None:
            if finished:
                raise GameOver(f"game {game_id} is over; start a new one")
            raise NotFound(f"no game {game_id[:40]!r} here (never started, left, or dropped when idle)")
        game.last_seen = self.clock()
        return game

    def view(self, game_id: str) -> dict[str, Any]:
        """The view of an open game, or the last view of a recently finished one."""
        with self._lock:
            last = self._finished.get(game_id)
        if last is not None:
            return last
        game = self.get(game_id)
        with game.lock:
            return game.view()

    def act(self, game_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Play the human's action; the view after it (the game's slot is freed if it ended, saved)."""
        game = self.get(game_id)
        with game.lock:
            game.play(body, self.replays)
            view = game.view()
        if game.replay is not None:
            self._retire(game, view)
        return view

    def hint(self, game_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """An agent's hint for the human's decision now (see :meth:`ServedGame.hint`)."""
        game = self.get(game_id)
        with game.lock:
            return game.hint(body, self.settings.agents)

    def leave(self, game_id: str) -> str:
        """Leave the game: save its replay (if not saved at its end), forget it, return the file name.

        A replay the disk will not take raises :class:`ReplayNotSaved` and keeps the game.
        """
        with self._lock:
            last = self._finished.get(game_id)
        if last is not None:
            return str(last["replay"])
        game = self.get(game_id)
        with game.lock:
            try:
                name = game.save(self.replays)
            except ReplayNotSaved:
                logger.error("game %s not left: %s", game_id, game.save_error)
                raise
        with self._lock:
            self._games.pop(game_id, None)
        return name

    def _retire(self, game: ServedGame, view: dict[str, Any]) -> None:
        """Free a saved game's slot, keeping its last view among the ``max_games`` latest."""
        with self._lock:
            if self._games.pop(game.id, None) is None:
                return
            self._finished[game.id] = view
            while len(self._finished) > self.settings.max_games:
                self._finished.popitem(last=False)

    def sweep(self) -> list[str]:
        """Drop the games idle for ``idle_timeout_s`` or more (their replays saved); their ids."""
        now = self.clock()
        with self._lock:
            idle = [g for g in self._games.values() if now - g.last_seen >= self.settings.idle_timeout_s]
            for game in idle:
                del self._games[game.id]
        for game in idle:
            name = self._save_or_log(game, "dropped when idle")
            logger.info("game %s dropped after %.0f s idle; replay %s", game.id, now - game.last_seen, name)
        return [g.id for g in idle]

    def close(self) -> list[str]:
        """Save the replay of every open game (the server is stopping) and forget them all.

        Returns the ids of the games whose replay could not be saved (each logged as one error line).
        """
        with self._lock:
            games, self._games = list(self._games.values()), {}
        return [g.id for g in games if self._save_or_log(g, "not saved as the server stops") is None]

    def _save_or_log(self, game: ServedGame, what: str) -> str | None:
        with game.lock:
            try:
                return game.save(self.replays)
            except ReplayNotSaved:
                logger.error("game %s %s: %s", game.id, what, game.save_error)
                return None
