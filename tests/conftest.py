"""Shared test set-up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """SB3's ``learn()`` without ``tensorboard_log`` makes a folder under the system temp dir
    (``$SB3_LOGDIR``, else ``/tmp/SB3-<date>``) on every call; keep those in pytest's tmp."""
    folder: Path = tmp_path_factory.mktemp("sb3_logs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SB3_LOGDIR", str(folder))
        yield
