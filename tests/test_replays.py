"""Replays: recording, the file format and its versions, re-simulation checks, hoity-replay, hoity-eval."""

from __future__ import annotations

import base64
import io
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from hoity_env.environment.board_image import board_image
from hoity_env.evaluation.cli import main as eval_main
from hoity_env.replays import (
    VERSION,
    RecordingEnv,
    Replay,
    ReplayError,
    ReplayMismatch,
    read_replay,
    resimulate,
    rounds,
)
from hoity_env.replays.cli import main as replay_main


def _record(num_players: int = 3, seed: int = 0, **kwargs: Any) -> RecordingEnv:
    env = RecordingEnv(num_players=num_players, **kwargs)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while env.agents:
        obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
    return env


@settings(max_examples=8, deadline=None)
@given(num_players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_any_recorded_game_resimulates_exactly(num_players: int, seed: int, tmp_path_factory: Any) -> None:
    env = _record(num_players, seed)
    path = env.save_replay(tmp_path_factory.mktemp("r") / "game.jsonl")
    replay = read_replay(path)
    assert replay.to_text() == env.replay.to_text()
    states = [s.comparable() for _, s in resimulate(replay)]
    assert states[-1] == env.game_state.comparable()
    assert replay.end is not None and replay.end["positions"] == list(env.game_state.positions)
    views = rounds(replay)
    assert [v.round for v in views] == list(range(-1, env.game_state.round))


def test_the_file_is_versioned_json_lines(tmp_path: Path) -> None:
    env = _record(seed=1, agent_names=["expert", "me", "random"], meta={"note": "x"})
    lines = [json.loads(line) for line in env.save_replay(tmp_path / "g.jsonl").read_text().splitlines()]
    head, steps, end = lines[0], lines[1:-1], lines[-1]
    assert head["format"] == "hoity_env-replay" and head["version"] == VERSION == 1
    assert head["ruleset"] == "standard" and head["rules"]["finish"] == 30 and head["num_players"] == 3
    assert head["agents"] == ["expert", "me", "random"] and head["meta"] == {"note": "x"}
    assert [s["step"] for s in steps] == list(range(len(steps)))
    assert [s["phase"] for s in steps[:2]] == ["location", "action"]
    assert steps[0]["events"][0]["kind"] == "locations" and len(steps[0]["actions"]) == 3
    assert end["end"]["reason"] == "terminated"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # written atomically


def test_the_actions_recorded_are_the_ones_applied() -> None:
    env = RecordingEnv(num_players=2)
    env.reset(seed=2)
    # A bid in the location step is masked out: the env's fallback plays the lowest legal action.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step({"player_0": env.codec.bid(3), "player_1": env.codec.location("castle")})
    assert env.replay.steps[0].actions == (env.codec.location("auction"), env.codec.location("castle"))
    list(resimulate(env.replay))


def test_a_game_cut_by_max_cycles_ends_mid_round() -> None:
    env = _record(4, 3, max_cycles=5)
    replay = env.replay
    assert replay.end is not None and replay.end["reason"] == "max_cycles" and len(replay.steps) == 5
    views = rounds(replay)
    assert views[-1].round == 2 and views[-1].events[0]["kind"] == "locations"


def _tampered(tmp_path: Path, step: int) -> Path:
    env = _record(seed=4)
    replay = env.replay
    record = replay.steps[step]
    events = [dict(e) for e in record.events]
    events[0] = {**events[0], "round": 99}
    replay.steps[step] = type(record)(record.step, record.round, record.phase, record.actions, tuple(events))
    return replay.save(tmp_path / "bad.jsonl")


def test_a_mismatch_names_the_first_differing_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _tampered(tmp_path, 7)  # round 4's action step (steps 6, 7 are round index 3)
    with pytest.raises(ReplayMismatch, match=r"replay diverges at round 4 \(action step, step 7\): event 0"):
        rounds(read_replay(path))
    assert replay_main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("hoity-replay: mismatch:") and "round 4" in err


def test_changed_actions_are_caught(tmp_path: Path) -> None:
    env = _record(seed=5)
    replay = env.replay
    first = replay.steps[0]
    flipped = tuple(1 - a for a in first.actions)  # other locations than were revealed
    replay.steps[0] = type(first)(0, 0, "location", flipped, first.events)
    with pytest.raises(ReplayMismatch, match="round 1"):
        list(resimulate(replay))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 2}, "version 2 is newer than this hoity_env reads \\(version 1\\); upgrade"),
        ({"version": 0}, "version 0 is not supported; this hoity_env reads version 1 only"),
        ({"version": "1"}, "version '1' is not supported"),
        ({"format": "something-else"}, "not a hoity_env replay"),
        ({"ruleset": "original"}, "header ruleset 'original' differs"),
        ({"rules": {"finish": -3}}, "bad rules"),
        ({"seed": "x"}, "field 'seed'"),
    ],
)
def test_bad_headers_are_refused_clearly(
    change: dict[str, Any], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _record(seed=6).save_replay(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    head = {**json.loads(lines[0]), **change}
    path.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    with pytest.raises(ReplayError, match=message):
        read_replay(path)
    assert replay_main([str(path)]) == 2
    assert capsys.readouterr().err.startswith("hoity-replay: error:")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", "empty file"),
        ("not json\n", "not JSON"),
        ("[1, 2]\n", "not a hoity_env replay"),
    ],
)
def test_files_that_are_no_replays(body: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(body)
    with pytest.raises(ReplayError, match=message):
        read_replay(path)


def test_bad_step_lines(tmp_path: Path) -> None:
    path = _record(seed=7).save_replay(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    for bad, message in [
        ({**json.loads(lines[1]), "step": 5}, "expected step 0, got 5"),
        ({**json.loads(lines[1]), "phase": "lunch"}, "phase must be"),
        ({**json.loads(lines[1]), "actions": [1, "x", 1]}, "actions must be integers"),
    ]:
        path.write_text("\n".join([lines[0], json.dumps(bad), *lines[2:]]) + "\n")
        with pytest.raises(ReplayError, match=message):
            read_replay(path)
    path.write_text("\n".join([*lines, lines[1]]) + "\n")
    with pytest.raises(ReplayError, match="after the 'end' line"):
        read_replay(path)
    assert replay_main([str(tmp_path / "missing.jsonl")]) == 2


def test_hoity_replay_prints_every_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = _record(seed=8)
    path = env.save_replay(tmp_path / "g.jsonl")
    assert replay_main([str(path), "--html", str(tmp_path / "g.html")]) == 0
    out, err = capsys.readouterr()
    rounds_played = env.game_state.round
    assert "== the deal" in out and f"== round {rounds_played}\n" in out and "game over" in out
    assert "every event matches" in err and "wrote" in err
    assert (tmp_path / "g.html").read_text().count("data:image/png;base64,") == rounds_played + 1
    assert replay_main([str(path), "--quiet"]) == 0
    assert capsys.readouterr().out == ""


def test_hoity_replay_html_draws_original_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The viewer shows original-ruleset replays: each round's picture is the original board."""
    env = _record(num_players=4, seed=3, rules="original")
    path = env.save_replay(tmp_path / "g.jsonl")
    assert replay_main([str(path), "--quiet", "--html", str(tmp_path / "g.html")]) == 0
    capsys.readouterr()
    page = (tmp_path / "g.html").read_text()
    data = json.loads(page.split('type="application/json">', 1)[1].split("</script>", 1)[0])
    views = rounds(read_replay(path))
    assert len(data) == len(views) == env.game_state.round + 1
    for k in (0, len(views) // 2, len(views) - 1):
        png = base64.b64decode(data[k]["image"].split(",", 1)[1])
        shown = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        assert np.array_equal(shown, board_image(views[k].state, views[k].events))
    assert "original rules" in page and "game over" in data[-1]["lines"][-1]


def test_hoity_eval_saves_the_games_it_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "eval"
    args = ["--agents", "expert,random,thief", "--games", "6", "--engine", "one-game", "--no-progress"]
    assert eval_main([*args, "--out", str(out), "--save-replays", "4"]) == 0
    saved = sorted((out / "replays").glob("*.jsonl"))
    assert [p.name for p in saved] == ["game-0-0.jsonl", "game-0-1.jsonl", "game-0-2.jsonl", "game-1-0.jsonl"]
    records = json.loads((out / "result.json").read_text())["records"]
    for path, record in zip(saved, records, strict=False):
        replay: Replay = read_replay(path)
        list(resimulate(replay))
        assert replay.end is not None and replay.end["positions"] == record["positions"]
        assert list(replay.agents) == record["agents"]
        assert (replay.meta["deal"], replay.meta["rotation"]) == (record["deal"], record["rotation"])
    capsys.readouterr()
    assert eval_main([*args, "--save-replays", "2"]) == 2
    assert "--save-replays needs --out" in capsys.readouterr().err
