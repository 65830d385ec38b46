"""Shared test set-up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import Browser, find_chromium


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """SB3's ``learn()`` without ``tensorboard_log`` makes a folder under the system temp dir
    (``$SB3_LOGDIR``, else ``/tmp/SB3-<date>``) on every call; keep those in pytest's tmp."""
    folder: Path = tmp_path_factory.mktemp("sb3_logs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SB3_LOGDIR", str(folder))
        yield


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    """A headless Chromium for the pages' tests (the docs site, the replay viewer), closed after the test."""
    binary = find_chromium()
    if binary is None:  # never a skip: CI installs chromium, and a missing browser must fail loudly
        pytest.fail("Chromium is missing: apt-get install -y chromium (the README's test command does)")
    b = Browser(binary, tmp_path / "profile")
    try:
        yield b
    finally:
        b.close()
