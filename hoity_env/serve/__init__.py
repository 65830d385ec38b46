"""``hoity-serve``: play against agents in the browser, see an agent's hint, browse replays (docs/serve.md).

* :mod:`~hoity_env.serve.settings`: :class:`ServeSettings` and the request errors;
* :mod:`~hoity_env.serve.view`: the human seat's view and the hint;
* :mod:`~hoity_env.serve.games`: the served games and their table;
* :mod:`~hoity_env.serve.replay_files`: the replays folder;
* :mod:`~hoity_env.serve.page` / :mod:`~hoity_env.serve.server`: the pages and the HTTP side;
* :mod:`~hoity_env.serve.cli`: the command.
"""

from __future__ import annotations

from hoity_env.serve.games import GameTable, ServedGame
from hoity_env.serve.server import ServeServer, make_server
from hoity_env.serve.settings import ServeSettings

__all__ = ["GameTable", "ServeServer", "ServeSettings", "ServedGame", "make_server"]
