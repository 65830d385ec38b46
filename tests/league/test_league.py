"""The league on the fast learner: members joining and retiring, PFSP weights, records, resume, CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from hoity_env.cli.league import main
from hoity_env.engine.errors import ConfigError, StateError
from hoity_env.evaluation import evaluate
from hoity_env.league.members import LeagueSettings, pfsp_factor
from hoity_env.league.run import League
from hoity_env.learning import Learner, LearnerSettings

MAIN = LearnerSettings(
    num_games=8,
    rollout_steps=16,
    minibatch_size=256,
    hidden=(8, 8),
    opponents=(("self", 1.0), ("random", 1.0), ("collector", 1.0)),
    total_steps=2400,
    checkpoint_every=1,
)
LEAGUE = LeagueSettings(
    main=MAIN,
    snapshot_every=600,
    exploiter_every=1200,
    exploiter_budget=256,
    exploiter_games=8,
    exploiter_settings={"num_games": 16, "hidden": [8, 8], "minibatch_size": 256},
    pfsp_games=8,
    max_members=3,
)


def _same_weights(a: Learner, b: Learner) -> bool:
    pairs = zip(a.policy.state_dict().values(), b.policy.state_dict().values(), strict=True)
    return all(torch.equal(x, y) for x, y in pairs)


@pytest.mark.parametrize(
    ("pfsp", "win_rate", "factor"),
    [("hard", 0.0, 1.0), ("hard", 0.5, 0.25), ("hard", 0.9, 0.05), ("hard", 1.0, 0.05), ("none", 0.9, 1.0)],
)
def test_pfsp_draws_the_members_the_main_agent_beats_less_but_never_never(
    pfsp: str, win_rate: float, factor: float
) -> None:
    assert pfsp_factor(win_rate, LeagueSettings(main=MAIN, pfsp=pfsp)) == pytest.approx(factor)


def test_bad_league_settings_name_their_field() -> None:
    for name, value in [
        ("exploiter_every", -1),
        ("exploiter_budget", 0),
        ("pfsp", "soft"),
        ("pfsp_floor", 0.0),
        ("snapshot_weight", 0.0),
        ("cpu_budget", -1.0),
        ("max_members", 0),
    ]:
        with pytest.raises(ConfigError, match=name):
            LeagueSettings(main=MAIN, **{name: value})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown league settings"):
        LeagueSettings.from_dict({**LEAGUE.to_dict(), "exploiters": 3})


def test_seating_adds_an_entry_and_frees_a_retired_one_once_no_game_seats_it() -> None:
    learner = Learner(MAIN.replace(opponents=(("random", 1.0), ("snapshot", 1.0))))
    seating = learner.seating
    snapshot_actor = seating.actors[seating.first_snapshot]
    entry = seating.add_entry("collector", 3.0)
    assert seating.entries[entry] == "collector" and seating.weights.sum() == pytest.approx(1.0)
    assert seating.actors[seating.first_snapshot] is snapshot_actor  # the snapshot ring moved up one
    seating.place(np.arange(MAIN.num_games))
    with pytest.raises(StateError, match="still has weight"):
        seating.free_retired([entry])
    seating.set_weights([0.0, 1.0, 0.0])
    seating.place(np.arange(MAIN.num_games))  # no game draws the retired entry any more
    seating.free_retired([entry])
    assert seating.actors[seating.entry_actor[entry]] is None
    learner.learn(MAIN.num_games * 4 * 16)  # plays on without the freed actor
    with pytest.raises(ConfigError, match="agent spec"):
        seating.add_entry("self", 1.0)


def _check_records(league: League) -> None:
    """Snapshots and exploiters joined, the oldest retired, PFSP weights, the population file."""
    record = json.loads((league.path / "league.json").read_text())
    kinds = [m["kind"] for m in record["members"]]
    assert kinds[:3] == ["start"] * 3 and "snapshot" in kinds and "exploiter" in kinds
    exploiters = [m for m in record["members"] if m["kind"] == "exploiter"]
    assert all(0.0 <= m["exploiter_win_rate"] <= 1.0 for m in exploiters)
    assert (league.path / exploiters[0]["spec"].split(":", 1)[1]).is_file()
    added = [m for m in record["members"] if m["kind"] != "start"]
    assert len([m for m in added if m["retired_at"] is None]) == LEAGUE.max_members
    assert all(m["weight"] == 0.0 for m in added if m["retired_at"] is not None)
    # PFSP: a scored member's weight is its base weight times f(its latest win rate).
    for m in record["members"][1:]:
        if m["retired_at"] is None:
            assert m["weight"] == pytest.approx(m["base_weight"] * pfsp_factor(m["win_rates"][-1][1], LEAGUE))
    weights = np.array([m["weight"] for m in record["members"]])
    assert league.learner.seating.weights == pytest.approx(weights / weights.sum())
    population = json.loads((league.path / "population.json").read_text())
    assert population["format"] == "hoity-population/1"
    assert population["members"] == league.population()
    # The main agent joins once: as policy.zip, or as the snapshot taken at its last step.
    live = [m for m in league.members if m.kind != "start" and m.retired_at is None]
    newest = max((m for m in live if m.kind == "snapshot"), key=lambda m: m.added_at)
    specs = [m["spec"] for m in league.population()]
    taken_last = newest.added_at == league.learner.steps
    assert specs == [m.spec for m in live] + ([] if taken_last else ["ppo-sample:policy.zip"])
    newest.added_at, was = league.learner.steps, newest.added_at  # as if it were taken at the end
    assert [m["spec"] for m in league.population()] == [m.spec for m in live]
    newest.added_at -= 1  # an earlier snapshot: the latest policy is another agent
    assert [m["spec"] for m in league.population()][-1] == "ppo-sample:policy.zip"
    newest.added_at = was
    mixed = evaluate(
        [f"population:{league.path / 'population.json'}", *["random"] * 3], num_players=4, games=4
    )
    assert sum(a.games for a in mixed.agent_stats) == 16  # the league plays as one agent


def test_a_league_records_its_members_and_resumed_from_a_checkpoint_ends_as_the_whole_run(
    tmp_path: Path,
) -> None:
    whole = League.start(LEAGUE, tmp_path / "whole")
    whole.run()
    _check_records(whole)
    # A kill -9 after an exploiter joined: everything after some checkpoint is lost.
    cut = tmp_path / "cut"
    shutil.copytree(tmp_path / "whole", cut)
    states = sorted((cut / "checkpoints").glob("state_*.pt"))
    keep = states[len(states) // 2].stem.split("_")[1]
    for path in (cut / "checkpoints").iterdir():
        if path.stem.split("_")[1] > keep:
            path.unlink()
    (cut / "finished.json").unlink()  # the run never reached its end
    resumed = League.resume(cut)
    assert resumed.learner.steps == int(keep)
    resumed.run()
    assert resumed.learner.steps == whole.learner.steps
    assert _same_weights(resumed.learner, whole.learner)
    assert [m.weight for m in resumed.members] == pytest.approx([m.weight for m in whole.members])
    steps_before = resumed.learner.steps
    with pytest.raises(ConfigError, match="not a run folder"):
        League.resume(tmp_path / "whole" / "members")
    League.resume(cut).run()  # a finished run is final
    assert League.resume(cut).learner.steps == steps_before


def test_cli_trains_a_league_and_refuses_bad_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--pool", "self,random", "--steps", "600", "--games", "8", "--rollout-steps", "16"]
    flags += ["--minibatch", "256", "--hidden", "8x8", "--league-snapshot-every", "300", "--pfsp-games", "8"]
    assert (
        main([*flags, "--out", str(tmp_path / "run"), "--eval-games", "4", "--eval-against", "random"]) == 0
    )
    out = capsys.readouterr().out
    assert "members added" in out
    assert "**4 games**" in out and "`random`" in out  # the --eval-games table against copies of random
    assert (tmp_path / "run" / "population.json").is_file()
    assert main([*flags, "--pfsp-power", "0", "--out", str(tmp_path / "bad")]) == 2
    assert "pfsp_power" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


def test_sigterm_saves_a_checkpoint_exits_143_and_the_run_resumes_from_it(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    run = tmp_path / "run"
    flags = ["--pool", "self,random", "--steps", "100000000", "--games", "8", "--rollout-steps", "16"]
    flags += ["--minibatch", "256", "--hidden", "8x8", "--checkpoint-every", "1", "--out", str(run)]
    process = subprocess.Popen(
        [sys.executable, "-m", "hoity_env.cli.league", *flags], stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not list((run / "checkpoints").glob("league_*.json")) and time.monotonic() < deadline:
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 143, err
    assert "--resume" in err
    latest = max(int(p.stem.split("_")[1]) for p in (run / "checkpoints").glob("league_*.json"))
    resumed = League.resume(run)
    assert resumed.learner.steps == latest > 0
    assert json.loads((run / "league.json").read_text())["steps"] == latest
