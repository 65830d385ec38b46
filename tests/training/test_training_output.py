"""What a recipe prints: a progress bar and the final table, SB3's log in the run folder (issue 46).

By default ``train_ppo.py`` prints one line saying where the run and its log are, a
progress bar on a terminal (nothing in a pipe) and the final table; SB3's training
tables and the learning curve's lines go to ``RUN/log.txt``, which a resumed run
appends to. ``--verbose`` prints that log on stdout as well, and is no setting of the
run: it is not in ``args.json`` and a resume may change it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.training.test_training import TINY, _load

pytestmark = pytest.mark.slow

TABLE_ROW = "|    total_timesteps"
"""A row of SB3's training table."""


class Terminal(io.StringIO):
    """A stream that says it is a terminal, so that tqdm draws its bars into it."""

    def isatty(self) -> bool:
        return True


def _train(tmp_path: Path, *flags: str) -> Path:
    every = ["--eval-every", "64", "--checkpoint-every", "64", "--eval-opponents", "random"]
    argv = ["--name", "o", "--runs-dir", str(tmp_path), "--total-timesteps", "128", *every, *TINY]
    _load("train_ppo").main([*argv, *flags])
    return tmp_path / "o"


def test_the_main_job_prints_the_table_and_keeps_the_log_in_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _train(tmp_path)
    out, err = capsys.readouterr()
    table = (run / "evaluation.md").read_text().split("\n\n", 1)[1].strip()
    assert out.strip().endswith(table)  # the final table, last
    assert TABLE_ROW not in out and "[eval @" not in out and len(out.splitlines()) <= 12, out
    assert str(run / "log.txt") in out.splitlines()[0]  # where the rest went, said first
    assert err == ""  # not a terminal: no bar
    log = (run / "log.txt").read_text()
    assert TABLE_ROW in log and "[eval @ 128] win rate vs 3 copies of: random" in log
    assert "verbose" not in json.loads((run / "args.json").read_text())


def test_verbose_prints_the_log_and_is_no_setting_of_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _train(tmp_path, "--verbose")
    out = capsys.readouterr().out
    assert TABLE_ROW in out and "[eval @ 64] win rate vs 3 copies of: random" in out
    assert (run / "log.txt").read_text() in out  # the same log, printed as written
    assert "verbose" not in json.loads((run / "args.json").read_text())


def test_a_terminal_shows_the_progress_bar_with_the_curve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    _train(tmp_path, "--total-timesteps", "100")  # SB3 trains whole rollouts of 64: 128 steps
    shown = terminal.getvalue().replace("\r", "\n")
    assert "training: 100%" in shown and "128/128" in shown and "/100 " not in shown
    assert "scoring the learning curve at 64 steps" in shown and "mean win rate" in shown
    assert "final evaluation" in shown  # the harness's own bar, once training is over
    assert TABLE_ROW not in capsys.readouterr().out
