"""Stopping a fast-learner run at a chosen update, as Ctrl-C or SIGTERM would (the resume tests)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from hoity_env.learning import Learner, LearnerSettings, train


def signal_at_update(monkeypatch: pytest.MonkeyPatch, update: int, *signums: int) -> None:
    """Every run from now on raises ``signums`` right after its ``update``-th update."""
    original = Learner.update

    def update_then_signal(self: Learner) -> dict[str, float]:
        stats = original(self)
        if self.updates == update:
            for signum in signums:
                signal.raise_signal(signum)
        return stats

    monkeypatch.setattr(Learner, "update", update_then_signal)


def train_stopped(
    settings: LearnerSettings, run_dir: Path, monkeypatch: pytest.MonkeyPatch, update: int = 2
) -> Any:
    """``train(settings, run_dir=run_dir)`` stopped by SIGINT after its ``update``-th update (Ctrl-C)."""
    original = Learner.update
    signal_at_update(monkeypatch, update, signal.SIGINT)
    try:
        return train(settings, run_dir=run_dir)
    finally:
        monkeypatch.setattr(Learner, "update", original)
