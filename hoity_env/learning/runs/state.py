"""The resume state file, ``checkpoints/state_<steps>.pt``: everything a run holds, as plain data.

The file is ``torch.save`` of ``{"format": FORMAT, "learner": ...}``, the learner part
:meth:`~hoity_env.learning.loop.Learner.state_dict` (weights, optimizer, generators, the games in
progress, the seating and the magnet).  It is read with ``torch.load(..., weights_only=True)``, so
reading one runs no code (docs/guarantees.md).  See docs/learning.md (run folders, checkpoints, resume).
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hoity_env.engine.errors import ConfigError
from hoity_env.files import write_atomically
from hoity_env.learning.runs.folder import FORMAT, FormatError

if TYPE_CHECKING:  # torch only where a learner is saved or loaded
    from hoity_env.learning.loop import Learner

__all__ = ["MAX_STATE_BYTES", "load_learner", "read_state", "state_bytes", "write_state"]

MAX_STATE_BYTES = 16 * 1024 * 1024 * 1024
"""The largest resume state read (a million games and a large network stay far below)."""


def state_bytes(learner: Learner) -> bytes:
    """``learner``'s resume state as the bytes of a ``state_<steps>.pt`` file."""
    import torch

    buffer = io.BytesIO()
    torch.save({"format": FORMAT, "learner": learner.state_dict()}, buffer)
    return buffer.getvalue()


def write_state(path: str | Path, learner: Learner) -> Path:
    """Write ``learner``'s resume state to ``path`` (atomically); returns the path."""
    return write_atomically(path, state_bytes(learner))


def read_state(path: str | Path) -> dict[str, Any]:
    """The learner state in the ``state_<steps>.pt`` file ``path``: the one reader of the format.

    A file of another format (format 1 of hoity_env 0.1 pickled live objects) is a
    :class:`FormatError` naming its format; one that cannot be read (missing, not a regular file,
    truncated, edited) a :class:`ConfigError` naming it, which the run folder answers by setting it
    aside (:meth:`~hoity_env.learning.runs.folder.RunFolder.latest`).
    """
    import torch

    try:
        info = os.stat(path)
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_STATE_BYTES:
        raise ConfigError(f"{path} is damaged (not a regular file of at most {MAX_STATE_BYTES:,} bytes)")
    try:
        data = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as exc:  # torch and pickle raise many kinds on a damaged file
        if "Unsupported global" in str(exc):  # objects: format 1 pickled the learner's parts
            raise FormatError(_older(path, 1)) from None
        raise ConfigError(f"{path} is damaged (truncated or edited?): {type(exc).__name__}") from None
    version = data.get("format") if isinstance(data, dict) else None
    if version != FORMAT or not isinstance(data.get("learner"), dict):
        raise FormatError(_older(path, version))
    learner: dict[str, Any] = data["learner"]
    return learner


def _older(path: str | Path, version: object) -> str:
    """The message of a resume state of another format."""
    which = "hoity_env 0.1" if version in (None, 1) else "another version of hoity_env"
    return (
        f"{path} was written by {which} (resume state format {version or 1}); this version reads "
        f"format {FORMAT}: start a new run (its policy zips still play as ppo:PATH)"
    )


def load_learner(path: str | Path, specs: Sequence[str] | None = None) -> Learner:
    """The learner saved in the ``state_<steps>.pt`` file ``path``, ready to continue.

    ``specs``: the pool's agent specs to build its seats' agents from, in the pool's order,
    instead of those saved (a league's members, resolved in the folder where it is now).  A
    state that does not fit the learner its own settings build (an edited file) is a
    :class:`ConfigError` naming the file.
    """
    from hoity_env.learning.loop import Learner

    state = read_state(path)
    try:
        if specs is not None:
            for table in state["tables"]:
                if len(table["seating"]["entries"]) != len(specs):
                    raise ConfigError(f"its pool has not the {len(specs)} entries of the run's record")
                table["seating"]["entries"] = list(specs)
        return Learner.from_state_dict(state)
    except FormatError:
        raise
    except ConfigError as exc:
        raise ConfigError(f"{path} is damaged or holds settings this version refuses: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RuntimeError) as exc:
        raise ConfigError(f"{path} is damaged (edited?): {type(exc).__name__}: {exc}") from None
