"""``hoity-serve``: play against agents in the browser, see an agent's hint, browse replays (docs/serve.md).

* :mod:`~hoity_env.serve.settings`: :class:`ServeSettings` and the request errors;
* :mod:`~hoity_env.serve.view`: the human seat's view and the hint;
* :mod:`~hoity_env.serve.served_game` / :mod:`~hoity_env.serve.games`: one served game, and the
  table of games (its limits, idle games, finished ones);
* :mod:`~hoity_env.serve.replay_files` / :mod:`~hoity_env.serve.replay_list`: the replays folder,
  and the table of saved games at ``/replays``;
* :mod:`~hoity_env.serve.page`: the pages, files of ``serve/static/`` (the play page's HTML, style
  and script, the rules page), and their Content-Security-Policy;
* :mod:`~hoity_env.serve.server`: the HTTP side;
* :mod:`~hoity_env.cli.serve`: the command.
"""

from __future__ import annotations

from hoity_env.serve.games import GameTable, ServedGame
from hoity_env.serve.server import ServeServer, make_server
from hoity_env.serve.settings import ServeSettings

__all__ = ["GameTable", "ServeServer", "ServeSettings", "ServedGame", "make_server"]
