"""``hoity-play`` end to end through a pseudo-terminal, bad input included, and its pieces."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from hoity_env.agents import make
from hoity_env.cli.play import main
from hoity_env.engine.state import card_text
from hoity_env.play import play
from hoity_env.play.choices import menu
from hoity_env.replays import RecordingEnv, read_replay, rounds
from tests.helpers import ROOT


def _drive(args: list[str], answer: Callable[[int], str], timeout: float = 120) -> tuple[int, str]:
    """Run ``hoity-play args`` on a pseudo-terminal; reply ``answer(k)`` to the k-th prompt."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hoity_env.cli.play", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    os.close(slave)
    out = b""
    prompts = 0
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not select.select([master], [], [], 1.0)[0]:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
            if out.endswith(b"> "):
                os.write(master, answer(prompts).encode() + b"\n")
                prompts += 1
        else:
            proc.kill()
            pytest.fail("hoity-play did not finish in time:\n" + out.decode(errors="replace")[-2000:])
    finally:
        os.close(master)
    return proc.wait(timeout=30), out.decode(errors="replace").replace("\r\n", "\n")


def test_a_whole_game_through_a_terminal(tmp_path: Path) -> None:
    save = tmp_path / "game.jsonl"
    bad = ["banana", "42", "?", "-1", "castle please"]

    def answer(k: int) -> str:
        return bad[k] if k < len(bad) else ["", "1", "2", "c", "a"][k % 5] if k < 40 else ""

    code, out = _drive(
        ["--opponents", "random,expert", "--seat", "1", "--seed", "2", "--save", str(save)], answer
    )
    assert code == 0, out[-2000:]
    assert out.count("is not a legal choice here") >= 4  # each bad answer is explained and asked again
    assert "answer with a number or a name" in out  # the help
    assert (
        "You are player_1" in out and "player_2 = random" in out and "player_0 = expert" in out
    )  # in seat order after you
    assert re.search(r"game over after \d+ rounds|truncated after", out)
    assert "Traceback" not in out
    replay = read_replay(save)
    assert replay.agents == ("expert", "human", "random")
    assert replay.end is not None and replay.end["reason"] in ("terminated", "truncated")
    views = rounds(replay)  # re-simulates and checks every event
    # Only what player_1 may know: opponents' cards that never became public never appear.
    deal = views[0].state
    seen = {c for r in replay.steps for e in r.events for c in _cards(e)}
    hidden = {c for p in (0, 2) for c in deal.hands[p] if c not in seen}
    assert hidden  # the check below has cards to look for
    for c in hidden:
        assert card_text(c, deal.deck) not in out, card_text(c, deal.deck)


def _cards(event: dict[str, object]) -> list[int]:
    out = [event["card"]] if isinstance(event.get("card"), int) else []
    cards = event.get("cards")
    return out + (list(cards) if isinstance(cards, list) else [])


def test_quit_saves_the_game_so_far(tmp_path: Path) -> None:
    save = tmp_path / "quit.jsonl"
    code, out = _drive(
        ["--opponents", "thief,collector,detective,random", "--seat", "4", "--save", str(save)],
        lambda k: "q" if k == 3 else "",
    )
    assert code == 0, out
    assert "you left the game" in out and f"replay saved to {save}" in out
    # the opponents fill the seats after yours, wrapping around, and the seating is shown first
    seating = "seats: player_0 thief, player_1 collector, player_2 detective, player_3 random, player_4 (you)"
    assert seating in out
    replay = read_replay(save)
    assert replay.end is not None and replay.end["reason"] == "quit"
    assert len(replay.steps) == 3 and replay.num_players == 5
    out2 = subprocess.run(
        [sys.executable, "-m", "hoity_env.cli.replay", str(save)], capture_output=True, text=True, cwd=ROOT
    )
    assert out2.returncode == 0, out2.stderr
    assert "round 1" in out2.stdout and "end: quit" in out2.stderr


def test_end_of_input_quits_cleanly() -> None:
    env = RecordingEnv(num_players=2, agent_names=["human", "random"])
    answers = iter(["", ""])

    def ask(prompt: str) -> str:
        return next(answers)  # StopIteration would be a bug; EOFError is what input() raises

    def ask_eof(prompt: str) -> str:
        try:
            return ask(prompt)
        except StopIteration:
            raise EOFError from None

    said: list[str] = []
    outcome = play(env, 0, [make("random", num_players=2)], seed=1, ask=ask_eof, say=said.append)
    assert not outcome.finished and env.replay.end is not None and env.replay.end["reason"] == "quit"
    assert len(env.replay.steps) == 2
    assert said[-1] == "you left the game"


@pytest.mark.parametrize(("rules", "seed"), [("standard", 1), ("original", 2)])
def test_the_end_names_the_rounds_played_not_one_more(rules: str, seed: int) -> None:
    env = RecordingEnv(num_players=2, rules=rules, agent_names=["human", "expert"])
    said: list[str] = []
    expert = make("expert", 1, num_players=2, rules=rules, num_actions=env.codec.size)
    outcome = play(env, 0, [expert], seed=seed, ask=lambda prompt: "", say=said.append)
    assert outcome.finished and env.replay.end is not None
    played = env.replay.end["rounds"]
    assert played == outcome.rounds == len(env.replay.steps) // 2
    board, verdict = said[-2].splitlines()[0], said[-1]
    assert verdict.startswith(f"game over after {played} rounds")
    assert board.startswith(f"== game over after {played} rounds;")  # it said "round {played + 1}"
    assert not any(f"round {played + 1}," in line for text in said for line in text.splitlines())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "4"], "--seat must be 0 to 3"),
        (["--opponents", "expert,expert,expert,expert,expert,expert"], "7 players"),
        (["--opponents", "grandmaster"], "unknown agent 'grandmaster'"),
        (["--opponents", "ppo:/nonexistent/model.zip"], "model.zip"),
        (["--save", "/nonexistent/folder/game.jsonl"], "does not exist"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("hoity-play: error:")


def test_menu_reads_numbers_names_and_defaults() -> None:
    env = RecordingEnv(num_players=3)
    obs, _ = env.reset(seed=0)
    mask = obs["player_0"]["action_mask"]
    m = menu(mask, env.codec, default=env.codec.location("castle"))
    assert m.read("") == env.codec.location("castle")
    assert m.read("1") == m.read("a") == m.read(" Auction ") == env.codec.location("auction")
    assert m.read("3") is None and m.read("thief") is None and m.read("x") is None
    bids = np.zeros_like(mask)
    bids[env.codec.bid(0) : env.codec.bid(5) + 1] = 1
    m = menu(bids, env.codec, default=env.codec.bid(2))
    assert m.read("5") == env.codec.bid(5) and m.read("6") is None and m.read("1)") is None
    assert "0-5" in m.describe()


def test_menu_names_the_original_rulesets_choices() -> None:  # RULES O-4
    env = RecordingEnv(num_players=4, rules="original")
    env.reset(seed=0)
    obs, *_ = env.step({"player_0": 0, "player_1": 1, "player_2": 1, "player_3": 1})
    auction = obs["player_0"]["action_mask"]
    m = menu(auction, env.codec, default=env.codec.auction_thief())
    assert m.read("15b") == env.codec.check(15, 1) and m.read("20a") == env.codec.check(20, 0)
    assert m.read("thief") == m.read("1") == env.codec.auction_thief() and m.read("16a") is None
    assert "check 5 for lot a" in m.describe()
    castle = obs["player_1"]["action_mask"]
    m = menu(castle, env.codec, default=env.codec.role("detective"))
    assert m.read("thief_high") == env.codec.role("thief_high") and m.read("") == env.codec.role("detective")
    assert "higher-numbered thief" in m.describe()


def test_a_whole_original_game_through_a_terminal() -> None:  # --rules original
    code, out = _drive(["--rules", "original", "--opponents", "random,random", "--seed", "2"], lambda k: "")
    assert code == 0, out[-2000:]
    assert "checks [" in out and "game over" in out


def test_a_checkpoint_opponent(tmp_path: Path) -> None:
    save = tmp_path / "ppo.jsonl"
    model = "ppo:docs/reference/final_model.zip"
    code, out = _drive(
        ["--opponents", f"expert,{model},random", "--seed", "5", "--save", str(save)],
        lambda k: "q" if k == 4 else "",
    )
    assert code == 0, out
    assert f"player_2 = {model}" in out
    replay = read_replay(save)
    assert replay.agents[2] == model and len(replay.steps) == 4
    rounds(replay)
