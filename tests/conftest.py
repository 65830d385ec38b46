"""Shared test set-up."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import Browser, find_chromium


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """SB3's ``learn()`` without ``tensorboard_log`` makes a folder under the system temp dir
    (``$SB3_LOGDIR``, else ``/tmp/SB3-<date>``) on every call; keep those in pytest's tmp."""
    folder: Path = tmp_path_factory.mktemp("sb3_logs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SB3_LOGDIR", str(folder))
        yield


@pytest.fixture(autouse=True)
def _signal_handlers_restored() -> Iterator[None]:
    """Each test leaves SIGINT and SIGTERM (their handlers and the signal mask) as it found them.

    A recipe interrupted in-process ignores both signals while it saves, then exits; the
    test catches that exit, and without this the pytest process (and every subprocess it
    starts later, which inherits an ignored SIGINT) would go on ignoring Ctrl-C.
    """
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    yield
    for sig, handler in saved.items():
        if signal.getsignal(sig) is not handler:
            signal.signal(sig, handler)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    """A headless Chromium for the pages' tests (docs site, replay viewer, hoity-serve), closed after it."""
    binary = find_chromium()
    if binary is None:  # never a skip: CI installs chromium, and a missing browser must fail loudly
        pytest.fail("Chromium is missing: apt-get install -y chromium (the README's test command does)")
    b = Browser(binary, tmp_path / "profile")
    try:
        yield b
    finally:
        b.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An empty folder on a 1 MB tmpfs (room for a few tiny checkpoints), unmounted afterwards."""
    folder = tmp_path / "small"
    folder.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)]
    try:
        done = subprocess.run(mount, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        pytest.skip("no mount command: a full disk is simulated with a small tmpfs")
    if done.returncode:
        pytest.skip(f"mounting a small tmpfs is not permitted here ({done.stderr.strip()}): run as root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
