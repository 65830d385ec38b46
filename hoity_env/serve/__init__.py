"""``hoity-serve``: play against agents in the browser, see an agent's hint, browse replays.

A small local web app on the standard library's HTTP server: :mod:`~hoity_env.serve.view` (the human
seat's view and the hint), :mod:`~hoity_env.serve.games` (the games a server holds),
:mod:`~hoity_env.serve.replay_files` (the replays folder), :mod:`~hoity_env.serve.page` (the pages and
their policy), :mod:`~hoity_env.serve.server` (the HTTP side) and :mod:`hoity_env.cli.serve` (the
command).  See docs/serve.md.
"""

from __future__ import annotations

from hoity_env.serve.games import GameTable, ServedGame
from hoity_env.serve.server import ServeServer, make_server
from hoity_env.serve.settings import ServeSettings

__all__ = ["GameTable", "ServeServer", "ServeSettings", "ServedGame", "make_server"]
