"""The replays folder of ``hoity-serve``: the only place it writes games or serves replays from, and its list.

A served game is saved as ``<UTC time>-<game id>.jsonl`` with :meth:`Replay.save`
(a temporary file beside it, then a rename: never half a file, never over another
file).  A replay is asked for by its bare file name; a name is accepted only if it
matches :data:`NAME` (letters, digits, ``-``, ``_``, ``.``; no separator, no leading
dot, ending in ``.jsonl``) and names a regular file directly inside the folder, not
a link, so no request can reach a path outside the folder, whatever it contains.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from hoity_env.replays.format import Replay, ReplayError, read_replay
from hoity_env.replays.html import replay_html
from hoity_env.serve.page import STYLE
from hoity_env.serve.settings import NotFound, RequestError

__all__ = ["NAME", "ReplayFolder", "replays_page"]

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,150}\.jsonl")
"""The file names this server writes and serves."""


class BrokenReplay(RequestError):
    """A replay in the folder that does not re-simulate (edited or damaged)."""

    status = 422


class ReplayFolder:
    """The folder of saved games; made at construction if missing."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder.resolve()

    def save(self, replay: Replay, game_id: str) -> str:
        """Write ``replay`` atomically under a fresh name; return the name."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        name, k = f"{stamp}-{game_id}.jsonl", 1
        while (self.folder / name).exists():  # never over an earlier file
            k += 1
            name = f"{stamp}-{game_id}-{k}.jsonl"
        replay.save(self.folder / name)
        return name

    def names(self) -> list[str]:
        """The replay files in the folder, newest name first."""
        found = [p.name for p in self.folder.iterdir() if NAME.fullmatch(p.name) and self._is_plain(p)]
        return sorted(found, reverse=True)

    def path(self, name: str) -> Path:
        """The file ``name`` inside the folder, or :class:`NotFound` for any other name."""
        if not NAME.fullmatch(name) or ".." in name:
            raise NotFound(f"{name[:80]!r} is not a replay name (NAME.jsonl, letters, digits, '-', '_', '.')")
        path = self.folder / name
        if not self._is_plain(path):
            raise NotFound(f"no replay {name!r} in the replays folder")
        return path

    def viewer(self, name: str) -> str:
        """The HTML viewer page of replay ``name`` (checked by re-simulating it first)."""
        path = self.path(name)
        try:
            return replay_html(read_replay(path))
        except ReplayError as exc:
            raise BrokenReplay(f"replay {name!r} does not check out: {' '.join(str(exc).split())}") from exc

    def _is_plain(self, path: Path) -> bool:
        return path.is_file() and not path.is_symlink() and path.resolve().parent == self.folder


def replays_page(names: Sequence[str], ladder: bool) -> str:
    """The list of saved games, each a link to its viewer (names are escaped; links are quoted)."""
    items = (
        "\n".join(f'<li><a href="/replays/{quote(name)}">{html.escape(name)}</a></li>' for name in names)
        or "<li>no saved games yet</li>"
    )
    extra = ' | <a href="/ladder">ladder report</a>' if ladder else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Hoity Toity: replays</title>'
        f"<style>{STYLE}</style></head><body><h1>Saved games</h1>"
        f'<p><a href="/">play</a>{extra}</p><ul id="replays">{items}</ul></body></html>\n'
    )
