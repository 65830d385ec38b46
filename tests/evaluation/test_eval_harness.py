"""The evaluation harness: duplicate seat rotation, seeding, worker independence, errors."""

from __future__ import annotations

import io
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import hoity_env
from hoity_env import ConfigError
from hoity_env.agents import make
from hoity_env.evaluation import (
    EvaluationResult,
    agent_seeds,
    deal_seed,
    evaluate,
    play_game,
    wilson_interval,
)
from hoity_env.evaluation.tally import agent_stats
from tests.helpers import ROOT

SPECS = ["expert", "collector", "thief", "random"]


@pytest.fixture(scope="module")
def mixed() -> EvaluationResult:
    return evaluate(SPECS, num_players=4, games=12, seed=3, progress=False, records=True)


def test_every_spec_sits_in_every_seat_and_deals_are_replayed(mixed: EvaluationResult) -> None:
    k = 4
    assert mixed.deals == 3 and mixed.games == 12 and len(mixed.records) == 12
    for d in range(mixed.deals):
        games = [r for r in mixed.records if r.deal == d]
        assert [g.rotation for g in games] == list(range(k))
        assert len({g.env_seed for g in games}) == 1  # the same deal, replayed
        assert games[0].env_seed == deal_seed(3, d)
        for g in games:  # rotation r puts entry i in seat (i + r) % k
            assert g.agents == tuple(SPECS[(s - g.rotation) % k] for s in range(k))
        for spec in SPECS:  # each spec held each seat exactly once for this deal
            assert sorted(g.agents.index(spec) for g in games) == list(range(k))
    assert len({r.env_seed for r in mixed.records}) == mixed.deals
    seats = Counter((a, s) for r in mixed.records for s, a in enumerate(r.agents))
    assert set(seats.values()) == {mixed.deals}


def test_records_are_consistent(mixed: EvaluationResult) -> None:
    for r in mixed.records:
        assert sorted(r.agents) == sorted(SPECS)
        assert all(1 <= x <= 4 for x in r.ranks)
        assert r.rounds > 0
        if r.truncated:
            assert r.winners == ()
        else:
            assert r.winners and all(r.ranks[w] == 1 for w in r.winners)
            assert {s for s in range(4) if r.ranks[s] == 1} == set(r.winners)
            assert max(r.positions) >= 30
    total = sum(s.wins for s in mixed.agent_stats)
    assert total == sum(len(r.winners) for r in mixed.records)
    assert sum(s.win_share for s in mixed.agent_stats) * 12 == pytest.approx(12 - mixed.truncated)


def test_stats_per_spec_count_every_seat() -> None:
    result = evaluate(["expert", "random", "random", "random"], games=8, seed=1, progress=False)
    by = {s.agent: s for s in result.agent_stats}
    assert list(by) == ["expert", "random"]
    assert (by["expert"].entries, by["expert"].games) == (1, 8)
    assert (by["random"].entries, by["random"].games) == (3, 24)
    assert [s.games for s in result.seat_stats] == [8] * 4
    assert sum(s.wins for s in result.seat_stats) == by["expert"].wins + by["random"].wins


def test_random_against_random_is_even_for_fixed_seeds() -> None:
    # Pooled, four randoms win 1/4 by construction; test each entry (and each seat) on its own.
    # Eight intervals are checked, so each is a 99.9% one (z = 3.29): at 95% a fair game
    # would miss one of eight about a third of the time, whatever the seed.
    k, games = 4, 4000
    result = evaluate(["random"] * k, games=games, seed=11, progress=False, records=True)
    assert result.games == games
    for entry in range(k):
        wins = sum(1 for r in result.records if (entry + r.rotation) % k in r.winners)
        low, high = wilson_interval(wins, games, z=3.29)
        assert low <= 0.25 <= high, (entry, wins)
        assert abs(wins / games - 0.25) < 0.03, (entry, wins)
    for seat in result.seat_stats:
        low, high = wilson_interval(seat.wins, seat.games, z=3.29)
        assert low <= 0.25 <= high, seat


def test_same_seed_same_records_other_seed_other_records(mixed: EvaluationResult) -> None:
    again = evaluate(SPECS, num_players=4, games=12, seed=3, progress=False, records=True)
    assert again == mixed
    other = evaluate(SPECS, num_players=4, games=12, seed=4, progress=False, records=True)
    assert other.records != mixed.records
    assert {r.env_seed for r in other.records}.isdisjoint({r.env_seed for r in mixed.records})


def test_workers_do_not_change_results(mixed: EvaluationResult) -> None:
    parallel = evaluate(SPECS, num_players=4, games=12, seed=3, workers=2, progress=False, records=True)
    assert parallel == mixed
    assert parallel.to_json() == mixed.to_json()


def test_game_count_rounds_up_to_whole_deals() -> None:
    result = evaluate(["random"] * 3, num_players=3, games=4, seed=0, progress=False)
    assert (result.deals, result.games) == (2, 6)


def test_play_game_alone_is_reproducible() -> None:
    env = hoity_env.parallel_env(num_players=3)
    agents = [make(s, num_players=3) for s in ("expert", "thief", "random")]
    seeds = agent_seeds(5, 0, 0, 3)
    first = play_game(env, agents, env_seed=deal_seed(5, 0), seeds=seeds)
    second = play_game(env, agents, env_seed=deal_seed(5, 0), seeds=seeds)
    assert first == second
    assert first.agents == ("expert", "thief", "random")
    assert agent_seeds(5, 0, 1, 3) != seeds  # rotations get fresh agent randomness


def test_agent_stats_follow_the_given_order(mixed: EvaluationResult) -> None:
    names = [s.agent for s in agent_stats(mixed.records, order=["random", "expert"])]
    assert names == ["random", "expert"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"agent_specs": ["expert", "random"]}, "4 players need 4 agents"),
        ({"agent_specs": ["expert", "nobody", "random", "random"]}, "unknown agent 'nobody'"),
        ({"agent_specs": ["expert", "ppo:missing.zip", "random", "random"]}, "not found"),
        ({"agent_specs": "expert,random"}, "list of spec strings"),
        ({"agent_specs": ["random"] * 4, "games": 0}, "games must be"),
        ({"agent_specs": ["random"] * 4, "seed": -1}, "seed must be"),
        ({"agent_specs": ["random"] * 4, "workers": 0}, "workers must be"),
        ({"agent_specs": ["random"] * 4, "rules": "nope"}, "unknown rules preset"),
        ({"agent_specs": ["random"] * 7, "num_players": 7}, "num_players must be"),
    ],
)
def test_bad_arguments_raise_config_errors(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        evaluate(progress=False, **kwargs)  # type: ignore[arg-type]


class _Terminal(io.StringIO):
    """A stream that says it is a terminal, as a user's stderr is."""

    def isatty(self) -> bool:
        return True


def test_progress_bar_only_when_asked_and_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    for stream, progress, shown in [
        (_Terminal(), True, True),
        (_Terminal(), False, False),
        (io.StringIO(), True, False),  # a file or a pipe: no bar, no carriage returns
    ]:
        monkeypatch.setattr(sys, "stderr", stream)
        evaluate(["random"] * 2, num_players=2, games=4, progress=progress)
        text = stream.getvalue()
        assert ("4/4" in text and "\r" in text) if shown else text == "", (progress, text)


def test_nothing_with_carriage_returns_reaches_a_redirected_stderr(tmp_path: Path) -> None:
    # hoity-eval with stderr redirected to a file, as `2> log` or a CI log does.
    log = tmp_path / "stderr.txt"
    cmd = [sys.executable, "-m", "hoity_env.cli.eval", "--agents", "random,random", "--games", "8"]
    with log.open("w") as fh:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=fh, timeout=120, cwd=ROOT)
    text = log.read_text(encoding="utf-8")
    assert proc.returncode == 0, text
    assert "\r" not in text and "8 games in" in text
