"""The ladder (docs/design.md §5): head to head, two ratings and exploitability, resumable.

Budgets are tiny so the suite stays fast; the tests check the plumbing (what is
played, what is reused, what is written), the OpenSkill update on hand-made games,
and errors.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from hoity_env.cli.eval import main
from hoity_env.cli.strength import _sweep_of, build_parser
from hoity_env.engine import STANDARD
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.match import GameRecord
from hoity_env.strength.ladder import LadderResult, find_exploit, ladder, openskill_ratings
from hoity_env.strength.response import FAST_SETTINGS, learner_settings
from hoity_env.strength.sweep import Sweep
from tests.helpers import FAST_TINY as TINY
from tests.helpers import tiny_training


def _record(agents: tuple[str, ...], ranks: tuple[int, ...]) -> GameRecord:
    winners = tuple(i for i, r in enumerate(ranks) if r == 1)
    return GameRecord(0, 0, 0, agents, winners, ranks, (0,) * len(agents), 10, False)


def test_openskill_rates_the_winner_up_and_counts_an_agent_once_per_game() -> None:
    games = [_record(("a", "b", "b", "b"), (1, 2, 3, 4))] * 5
    ratings = openskill_ratings(["a", "b", "c"], games)
    (mu_a, sigma_a), (mu_b, sigma_b), (mu_c, sigma_c) = ratings["a"], ratings["b"], ratings["c"]
    assert mu_a > 25.0 > mu_b  # openskill's prior mean is 25
    assert (mu_c, sigma_c) == (25.0, 25.0 / 3)  # never played: the prior
    assert sigma_a < sigma_c and sigma_b < sigma_c
    # b's mean rank 3 is behind a's 1: the same update as one two-player game a > b
    one = openskill_ratings(["a", "b"], [_record(("a", "b"), (1, 2))] * 5)
    assert one["a"] == pytest.approx(ratings["a"]) and one["b"] == pytest.approx(ratings["b"])
    # a table of copies of one agent tells nothing and changes nothing
    assert openskill_ratings(["a"], [_record(("a", "a"), (1, 2))])["a"] == (25.0, 25.0 / 3)


def test_a_small_ladder_then_its_resume(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    kwargs = {
        "budget": 512,
        "games": 8,
        "exploit_games": 8,
        "curve_points": 0,
        **tiny_training(runs),
    }
    result = ladder(["thief", "random"], **kwargs)  # type: ignore[arg-type]
    assert result.agents == ("thief", "random") and result.budget == 512 and result.games_per_pair == 8
    assert {(p.agent, p.opponent) for p in result.pairs} == {("thief", "random"), ("random", "thief")}
    assert result.games == 16
    for row, entry in zip(result.rows, result.exploit, strict=True):
        assert row.agent == entry.target and row.exploit_win_rate == entry.win_rate
        assert (
            row.mean_win_rate
            == result.pair(row.agent, "random" if row.agent == "thief" else "thief").win_rate
        )
        assert row.rating_low <= row.rating <= row.rating_high and row.openskill_sigma > 0
        assert Path(entry.run_dir) == runs / row.agent and entry.timesteps == 512
    # the two ratings agree on who is ahead in these games
    first = max(result.rows, key=lambda r: r.rating).agent
    assert first == max(result.rows, key=lambda r: r.openskill_mu).agent
    assert LadderResult.from_json(result.to_json()) == result
    text = result.to_markdown()
    assert "estimate from below after 512 learner steps of training:" in text and "OpenSkill" in text
    assert "exploitability @ 512 steps trained" in text
    fast = {"learner": "fast", **learner_settings(TINY, "fast")}
    assert json.loads((runs / "thief" / "settings.json").read_text()) == fast

    # the same ladder with one more agent trains only the new one's best response
    before = {p.name for p in runs.iterdir()}
    again = ladder(["thief", "random", "collector"], **kwargs)  # type: ignore[arg-type]
    assert {p.name for p in runs.iterdir()} == before | {"collector"}
    assert again.exploit[:2] == result.exploit  # read back, not trained again
    assert len(again.pairs) == 6


def test_find_exploit_matches_every_setting(tmp_path: Path) -> None:
    ladder(
        ["thief", "random"],
        budget=512,
        games=4,
        exploit_games=4,
        curve_points=0,
        **tiny_training(tmp_path),
    )
    same = {
        "budget": 512,
        "num_players": 4,
        "rules": "standard",
        "games": 4,
        "seed": 0,
        "settings": {"learner": "fast", **learner_settings(TINY, "fast")},
    }
    assert find_exploit(tmp_path, "thief", **same) is not None  # type: ignore[arg-type]
    for key, other in [
        ("budget", 513),
        ("games", 8),
        ("seed", 1),
        ("num_players", 3),
        ("settings", learner_settings(None)),  # SB3's defaults: another learner
        ("settings", {"learner": "fast", **learner_settings(None, "fast")}),
    ]:
        assert find_exploit(tmp_path, "thief", **{**same, key: other}) is None, key  # type: ignore[arg-type]
    assert find_exploit(tmp_path, "expert", **same) is None  # type: ignore[arg-type]
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "random", moved / "random")  # a runs folder moved as a whole
    found = find_exploit(moved, "random", **same)  # type: ignore[arg-type]
    assert found is not None and found.run_dir == str(moved / "random")
    (tmp_path / "thief" / "exploit.json").write_text("{not json")  # a damaged run is not reused
    assert find_exploit(tmp_path, "thief", **same) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("agents", "kwargs", "message"),
    [
        (["expert"], {}, "at least 2 distinct agents"),
        (["expert", "expert"], {}, "at least 2 distinct agents"),
        (["expert", "wizard"], {}, "unknown agent 'wizard'"),
        (["expert", "random"], {"budget": 0}, "budget must be an integer in"),
        (["expert", "random"], {"rules": STANDARD.replace(tie_break="priority")}, "batched engine"),
        (["expert", "random"], {"ppo": {"n_env": 4}, "learner": "fast"}, "unknown fast learner settings"),
        (["expert", "random"], {"ppo": {"n_env": 4}, "learner": "sb3"}, "unknown sb3 learner settings"),
    ],
)
def test_bad_arguments_fail_before_anything_runs(
    agents: list[str], kwargs: dict[str, object], message: str, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=message):
        ladder(agents, **{"budget": 10, "runs_dir": tmp_path, "progress": False, **kwargs})  # type: ignore[arg-type]
    assert not any(tmp_path.iterdir())  # nothing written


def test_cli_ladder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--agents", "expert,wizard", "--runs-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hoity-eval ladder: error: unknown agent 'wizard'") and "Traceback" not in err
    out = tmp_path / "out"
    argv = ["ladder", "--agents", "thief,random", "--budget", "1", "--games", "4", "--exploit-games", "4"]
    argv += ["--learner", "fast"]
    argv += ["--curve-points", "0", "--runs-dir", str(tmp_path / "runs"), "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    result = LadderResult.from_json((out / "result.json").read_text())
    assert result.agents == ("thief", "random") and result.exploit[0].timesteps == (
        FAST_SETTINGS["num_games"] * FAST_SETTINGS["rollout_steps"]
    )
    assert (out / "result.png").is_file() and (out / "result.md").read_text().strip() in printed
    assert (out / "result.csv").read_text().startswith("agent,mean_win_rate,rating")


def test_exploit_and_ladder_under_the_original_rules(tmp_path: Path) -> None:
    # RULES O-*: the best responses train on the batched original engine (original observation
    # size), the ladder reads them back (the ruleset is part of what must match) and plays its
    # head-to-head games under the same rules.  One training per agent keeps the test cheap.
    from hoity_env.agents import PolicyAgent
    from hoity_env.engine.original.observation import original_obs_dim
    from hoity_env.strength import exploitability

    common = {"budget": 1, "curve_points": 0, **tiny_training(tmp_path)}
    trained = exploitability(["thief", "random"], rules="original", games=4, **common)  # type: ignore[arg-type]
    assert trained.rules == "original" and [e.timesteps for e in trained.entries] == [512, 512]
    model = PolicyAgent(Path(trained.entries[0].run_dir) / "final_model.zip", rules="original").model
    assert model.observation_space.shape == (original_obs_dim(4),)
    result = ladder(["thief", "random"], rules="original", games=4, exploit_games=4, **common)  # type: ignore[arg-type]
    assert result.rules == "original" and result.games == 8
    assert result.exploit == trained.entries  # read back, not trained again
    assert LadderResult.from_json(result.to_json()) == result
    settings = {"learner": "fast", **learner_settings(TINY, "fast")}
    same = {"budget": 1, "num_players": 4, "games": 4, "seed": 0, "settings": settings}
    assert find_exploit(tmp_path, "thief", rules="original", **same) is not None  # type: ignore[arg-type]
    assert find_exploit(tmp_path, "thief", rules="standard", **same) is None  # type: ignore[arg-type]


def test_a_ladder_with_a_sweep_takes_each_agents_maximum_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    sweep = Sweep(
        budgets=(256, 512),
        seeds=(0, 1),
        learners=("fast",),
        curve_points=0,
        runs_dir=runs,
        ppo={"fast": TINY},
    )
    kwargs = {"games": 8, "exploit_games": 8, "seed": 3, "progress": False}
    result = ladder(["thief", "random"], sweep=sweep, **kwargs)  # type: ignore[arg-type]
    assert len(result.sweep) == 8 and result.budget == 512 and result.learner == "fast"
    assert result.seed == 3  # the head-to-head seed; the best responses ran at the sweep's seeds
    for row, entry in zip(result.rows, result.exploit, strict=True):
        mine = [e for e in result.sweep if e.target == row.agent]
        assert {(e.seed, e.budget) for e in mine} == {(0, 256), (0, 512), (1, 256), (1, 512)}
        assert row.exploit_win_rate == entry.win_rate == max(e.win_rate for e in mine)
        assert row.exploit_run_dir in {e.run_dir for e in mine}
    assert len({e.run_dir for e in result.sweep}) == 8  # a folder per best response
    assert LadderResult.from_json(result.to_json()) == result
    text = result.to_markdown()
    assert "max of 4 best responses" in text and "Approximate exploitability at several budgets" in text
    assert result.sweep_result().maximum("thief").win_rate == result.rows[0].exploit_win_rate

    # run again: every best response is read back, none trained
    def no_training(*args: object, **kw: object) -> None:
        raise AssertionError("a finished best response was trained again")

    monkeypatch.setattr(sys.modules["hoity_env.strength.jobs"], "exploitability_of", no_training)
    again = ladder(["thief", "random"], sweep=sweep, **kwargs)  # type: ignore[arg-type]
    assert again.sweep == result.sweep and again.rows == result.rows
    with pytest.raises(ConfigError, match="sweep must be a Sweep"):
        ladder(["thief", "random"], sweep={"budgets": (5,)}, **kwargs)  # type: ignore[arg-type]


def test_cli_ladder_sweep_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--agents", "thief,random", "--budget", "5", "--budgets", "5,6"]) == 2
    assert "give --budget or --budgets, not both" in capsys.readouterr().err
    parser = build_parser("hoity-eval", "ladder")
    sweep = _sweep_of(parser.parse_args(["--seeds", "0,1", "--learner", "fast", "--runs-dir", "r"]), "ladder")
    assert sweep == Sweep(budgets=(2_000_000,), seeds=(0, 1), learners=("fast",), runs_dir=Path("r"))
    assert _sweep_of(parser.parse_args(["--budget", "7"]), "ladder") is None  # one budget: no sweep
