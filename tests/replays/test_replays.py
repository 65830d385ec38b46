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

from hoity_env.cli.eval import main as eval_main
from hoity_env.cli.replay import main as replay_main
from hoity_env.engine.config import RulesConfig
from hoity_env.environment.render.standard import board_image
from hoity_env.replays import (
    VERSION,
    RecordingEnv,
    Replay,
    ReplayError,
    ReplayMismatch,
    open_replay,
    read_replay,
    resimulate,
    rounds,
)


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
        ({"seed": -1}, "field 'seed' must be a non-negative int"),
        ({"seed": 1.0}, "field 'seed'"),
        ({"version": True}, "version True is not supported"),
        ({"version": 1.0}, "version 1.0 is not supported"),
        ({"agents": ["a", "b"]}, "'agents' must be 3 labels"),
        ({"agents": ["a", "b", "c", "d"]}, "'agents' must be 3 labels"),
        ({"agents": ["a", 2, "c"]}, "'agents' must be 3 labels \\(strings\\)"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"rules": []}, "field 'rules'"),
        ({"colour": "red"}, "unknown field\\(s\\) \\['colour'\\]"),
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
    _assert_refused_in_one_line(path, capsys)


def _assert_refused_in_one_line(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``hoity-replay`` exits 2 (malformed, not "diverges") with exactly one ``error:`` line."""
    capsys.readouterr()
    assert replay_main([str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith("hoity-replay: error:") and "Traceback" not in err


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


HOSTILE_LINES: dict[str, bytes] = {
    "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
    "a 5,000-digit number": b'{"step": ' + b"9" * 5000 + b"}",
    "NaN": b'{"step": NaN}',
    "a key twice": b'{"step": 0, "step": 0}',
    "not UTF-8": b'{"step": "\xff\xfe"}',
    "a line over 1 MiB": b'{"events": ["' + b"x" * (1 << 20) + b'"]}',
    "a list, not an object": b"[1, 2, 3]",
    "an end line with company": b'{"end": {"reason": "quit"}, "step": 3}',
    "an end with a bad reason": b'{"end": {"reason": "bored"}}',
    "an end with str positions": b'{"end": {"reason": "quit", "rounds": 1, "positions": "x"}}',
}


@pytest.mark.parametrize("case", sorted(HOSTILE_LINES))
def test_hostile_lines_are_one_error_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _record(seed=9).save_replay(tmp_path / "g.jsonl")
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join([*lines[:3], HOSTILE_LINES[case], *lines[3:]]) + b"\n")
    with pytest.raises(ReplayError, match=r"g\.jsonl:4: "):  # the line is named
        read_replay(path)
    _assert_refused_in_one_line(path, capsys)


def test_a_truncated_file_is_a_format_error_or_a_game_in_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _record(seed=10).save_replay(tmp_path / "g.jsonl")
    whole = path.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(whole[: len(whole) // 2])  # mid-line: the last line is not JSON
    with pytest.raises(ReplayError, match="not JSON"):
        read_replay(cut)
    _assert_refused_in_one_line(cut, capsys)
    cut.write_bytes(whole[: whole.index(b"\n", len(whole) // 2) + 1])  # at a line end: a game in progress
    assert replay_main([str(cut), "--quiet"]) == 0
    assert read_replay(cut).end is None


def test_step_lines_must_follow_the_rounds(tmp_path: Path) -> None:
    path = _record(seed=11).save_replay(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    for change, message in [
        ({"round": 5}, "step 0 is round 1's location step"),
        ({"phase": "action"}, "step 0 is round 1's location step"),
        ({"actions": [0, 0]}, "2 actions for 3 players"),
        ({"actions": [10**30, 0, 0]}, None),  # out of range: refused by the re-simulation
        ({"note": 1}, "unknown field"),
    ]:
        path.write_text(
            "\n".join([lines[0], json.dumps({**json.loads(lines[1]), **change}), *lines[2:]]) + "\n"
        )
        if message is None:
            with pytest.raises(ReplayMismatch, match="not all in"):
                list(resimulate(read_replay(path)))
            assert replay_main([str(path), "--quiet"]) == 1
        else:
            with pytest.raises(ReplayError, match=message):
                read_replay(path)
            assert replay_main([str(path), "--quiet"]) == 2


def test_steps_beyond_the_round_limit_are_refused_as_they_are_read(tmp_path: Path) -> None:
    env = _record(seed=12, rules=RulesConfig(max_rounds=2))
    path = env.save_replay(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    assert json.loads(lines[-1])["end"]["reason"] == "truncated" and len(lines) == 6
    extra = json.dumps({**json.loads(lines[1]), "step": 4, "round": 2})
    path.write_text("\n".join([*lines[:-1], extra]) + "\n")
    with pytest.raises(ReplayError, match="more than 4 steps"):
        read_replay(path)


def test_checking_streams_the_file(tmp_path: Path) -> None:
    """The step iterator yields the good lines before it reaches (and refuses) a bad one."""
    path = _record(seed=13).save_replay(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines[:4], "{oops", *lines[4:]]) + "\n")
    _, steps = open_replay(path)
    assert [next(steps).step for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ReplayError, match=r"g\.jsonl:5: not JSON"):
        next(steps)


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


_HOSTILE_VALUES: tuple[Any, ...] = (-1, 0, 10**30, True, None, 1.5, "x", "<!--<script>", [], {}, [[[[]]]])


def _edit(lines: list[str], rng: np.random.Generator) -> bytes:
    """One random edit of a replay file: cut it, drop, repeat or swap lines, change a value, add junk."""
    kind = int(rng.integers(7))
    out = list(lines)
    k = int(rng.integers(len(out)))
    if kind == 6 and "actions" in out[k]:  # another action in range: a game that diverges
        obj = json.loads(out[k])
        obj["actions"][int(rng.integers(len(obj["actions"])))] = int(rng.integers(56))
        out[k] = json.dumps(obj)
    elif kind == 0:
        text = "\n".join(out).encode()
        return text[: int(rng.integers(len(text)))]
    if kind == 1:
        del out[k]
    elif kind == 2:
        out.insert(k, out[int(rng.integers(len(out)))])
    elif kind == 3:
        j = int(rng.integers(len(out)))
        out[k], out[j] = out[j], out[k]
    elif kind == 4:
        obj = json.loads(out[k])
        node: Any = obj
        while isinstance(node, (dict, list)) and node and rng.random() < 0.7:
            key = (
                list(node)[int(rng.integers(len(node)))]
                if isinstance(node, dict)
                else int(rng.integers(len(node)))
            )
            child = node[key]
            if not isinstance(child, (dict, list)) or not child or rng.random() < 0.3:
                node[key] = _HOSTILE_VALUES[int(rng.integers(len(_HOSTILE_VALUES)))]
                break
            node = child
        out[k] = json.dumps(obj)
    elif kind == 5:
        junk = ["[" * 5000, '{"a": 1, "a": 2}', "NaN", "9" * 5000, "\x00", '{"end": {}}']
        out.insert(k, junk[int(rng.integers(len(junk)))])
    return ("\n".join(out) + "\n").encode()


def test_fuzzed_replay_files_are_checked_or_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Random edits of real replays: exit 0 (still a valid game), 1 (diverges) or 2 (malformed), one
    stderr line when not 0, never a traceback; checking changes no file."""
    rng = np.random.default_rng(21)
    sources = [_record(n, seed).save_replay(tmp_path / f"src{n}.jsonl") for n, seed in ((2, 1), (5, 2))]
    texts = [p.read_text().splitlines() for p in sources]
    seen = {0: 0, 1: 0, 2: 0}
    path = tmp_path / "fuzzed.jsonl"
    for case in range(150):
        data = _edit(texts[case % 2], rng)
        path.write_bytes(data)
        capsys.readouterr()
        status = replay_main([str(path), "--quiet"])
        err = capsys.readouterr().err
        seen[status] += 1
        assert path.read_bytes() == data, f"case {case}: the check changed the file"
        if status:
            assert err.count("\n") == 1, (case, err)
            prefix = "hoity-replay: mismatch:" if status == 1 else "hoity-replay: error:"
            assert err.startswith(prefix), (case, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fuzzed.jsonl", "src2.jsonl", "src5.jsonl"]
    assert seen[1] > 5 and seen[2] > 50, seen  # both refusals occur, or the loop tests little
