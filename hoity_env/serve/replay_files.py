"""The replays folder of ``hoity-serve``: the only place it writes games or serves replays from.

A replay is asked for by its bare file name, accepted only if it matches :data:`NAME` and names a
regular file directly inside the folder, not a link, so no request can reach a path outside the folder,
whatever it contains.  See docs/serve.md.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

from hoity_env.replays.format import Replay, ReplayError, read_replay
from hoity_env.replays.html import replay_html
from hoity_env.serve.replay_list import ReplayRow, summarize
from hoity_env.serve.settings import NotFound, RequestError

__all__ = ["NAME", "ReplayFolder"]

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,150}\.jsonl")
"""The file names this server writes and serves: letters, digits, ``-``, ``_``, ``.``, no separator,
no leading dot, ending in ``.jsonl``."""


class BrokenReplay(RequestError):
    """A replay in the folder that does not re-simulate (edited or damaged)."""

    status = 422


class ReplayFolder:
    """The folder of saved games; made at construction if missing."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder.resolve()
        self._rows: dict[str, tuple[tuple[int, int], ReplayRow]] = {}
        self._lock = threading.Lock()

    def save(self, replay: Replay, game_id: str) -> str:
        """Save ``replay`` atomically as ``<UTC time>-<game id>.jsonl``, never over a file; its name."""
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

    def rows(self) -> list[ReplayRow]:
        """The saved games' table rows, newest first (a file is reread only when its size or time changes)."""
        found = []
        for name in self.names():
            path = self.folder / name
            try:
                info = path.stat()
            except OSError:  # removed meanwhile
                continue
            version = (info.st_mtime_ns, info.st_size)
            with self._lock:
                cached = self._rows.get(name)
            row = cached[1] if cached is not None and cached[0] == version else summarize(path)
            found.append((info.st_mtime_ns, name, version, row))
        found.sort(reverse=True)
        with self._lock:
            self._rows = {name: (version, row) for _, name, version, row in found}
        return [row for *_, row in found]

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
