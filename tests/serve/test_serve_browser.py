"""``hoity-serve`` in a real headless Chromium: a whole game played by clicking, for each ruleset.

Two players and a fast scripted opponent keep a game to a few dozen clicks.  The
page must show the hint for every decision, take a bid typed as one number, raise no
console error, end with a link to the replay, and the replay it saved must
re-simulate through ``hoity-replay``'s check.  The page teaches the game: the rules
panel links the full rules, card codes are explained beside the hand, and the saved
games are a table whose rows open the viewer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hoity_env.agents import make
from hoity_env.cli.replay import main as replay_main
from hoity_env.engine.errors import ConfigError
from hoity_env.replays import RecordingEnv, read_replay
from hoity_env.serve import ServeSettings
from tests.browser import Browser
from tests.helpers import RULESETS
from tests.serve_client import serving


def choose(browser: Browser, select: str, value: str) -> None:
    browser.evaluate(
        f"(() => {{ const s = document.querySelector('{select}'); s.value = '{value}';"
        " s.dispatchEvent(new Event('change')); })()"
    )


SHORT_DEALS = {"standard": 2, "original": 7}
"""A seed per ruleset whose game (the expert's choice every time, against ``detective``) is short."""


def new_game(browser: Browser, rules: str) -> None:
    """Set up a two-player game against ``detective`` with ``expert`` hints, and press start."""
    choose(browser, "#players", "2")
    choose(browser, "#rules", rules)
    choose(browser, "#seat", "1")
    choose(browser, ".opponent", "detective")
    choose(browser, "#hinter", "expert")
    browser.evaluate(f"document.getElementById('seed').value = '{SHORT_DEALS[rules]}'")
    browser.click("#start")


@pytest.mark.parametrize("rules", RULESETS)
def test_a_whole_game_is_played_by_clicking(tmp_path: Path, browser: Browser, rules: str) -> None:
    settings = ServeSettings(agents=("detective", "expert"), replays=tmp_path / "replays")
    with serving(settings) as server:
        browser.goto(server.url)
        browser.wait_until("document.body.dataset.ready === '1'")
        assert browser.evaluate("document.getElementById('howto').open")  # the rules, before any game
        new_game(browser, rules)
        browser.wait_until("document.body.dataset.step === '0' && document.body.dataset.busy === '0'")
        assert browser.evaluate("document.getElementById('board').naturalWidth") == 640
        assert "C1592 is series C" in browser.evaluate("document.getElementById('cardcodes').textContent")
        clicks = bids = 0
        while browser.evaluate("document.body.dataset.done") != "1":
            step = browser.evaluate("document.body.dataset.step")
            browser.wait_until(f"document.body.dataset.hintStep === '{step}'")  # the hint for this decision
            best = browser.evaluate("document.querySelector('#hint tr:nth-child(2) td').textContent")
            assert best in browser.evaluate("game.choices.map((c) => c.label)")  # expert's decision, legal
            if browser.evaluate("document.getElementById('bidding').hidden"):
                buttons = browser.evaluate(
                    "Array.from(document.querySelectorAll('#choices button'), (b) => b.textContent)"
                )
                assert buttons and all(not b.startswith("bid ") for b in buttons)
                browser.click(f"#choices button:nth-child({buttons.index(best) + 1})")
            else:  # one number box bounded by the legal bids, instead of a button per amount
                assert browser.evaluate("document.querySelectorAll('#choices button').length") == 0
                box = browser.evaluate(
                    "(({min, max}) => [Number(min), Number(max)])(document.getElementById('bid'))"
                )
                amounts = browser.evaluate("game.choices.map((c) => c.bid)")
                assert box == [min(amounts), max(amounts)]
                browser.type("#bid", best.removeprefix("bid "))
                browser.click("#place")
                bids += 1
            browser.wait_until(
                f"document.body.dataset.step !== '{step}' && document.body.dataset.busy === '0'"
            )
            clicks += 1
            if clicks == 1:
                assert browser.evaluate("document.getElementById('reveal').children.length") > 0
        assert clicks > 5 and (bids > 0 or rules == "original")  # the original ruleset bids with checks
        status = browser.evaluate("document.getElementById('status').textContent")
        assert "game over: " in browser.evaluate("document.getElementById('result').textContent")
        href = browser.evaluate("document.getElementById('replay').getAttribute('href')")
        saved = tmp_path / "replays" / href.rsplit("/", 1)[1]
        played = read_replay(saved).end["rounds"]  # type: ignore[index]
        assert status.startswith(f"game over after {played} rounds;")
        browser.click("#replay")  # the replay viewer, served: every seat's choices
        browser.wait_until("document.location.pathname.startsWith('/replays/') && typeof frames === 'object'")
        browser.wait_until("document.body.dataset.index === '0'")
        assert browser.evaluate("frames.length") > 2
        assert browser.errors == []
    assert [p.name for p in (tmp_path / "replays").iterdir()] == [saved.name]
    assert replay_main([str(saved), "--quiet"]) == 0


def test_the_page_teaches_the_game_and_lists_the_saved_games(tmp_path: Path, browser: Browser) -> None:
    agents = ("detective", "expert", "reference")
    settings = ServeSettings(agents=agents, replays=tmp_path / "replays", max_games=1)
    with pytest.raises(ConfigError) as refused:  # reference plays four seats: the library's message
        make("reference", 100, num_players=2, num_actions=RecordingEnv(num_players=2).codec.size)
    with serving(settings) as server:
        browser.goto(server.url)
        browser.wait_until("document.body.dataset.ready === '1'")
        new_game(browser, "standard")
        browser.wait_until("document.body.dataset.step === '0' && document.body.dataset.busy === '0'")
        assert not browser.evaluate("document.getElementById('howto').open")  # folded away once playing
        choose(browser, "#hinter", "reference")  # errors are shown as the library words them, no more
        assert browser.wait_until("document.getElementById('error').textContent") == str(refused.value)
        choose(browser, "#hinter", "expert")
        browser.wait_until("document.body.dataset.hintStep === '0'")
        first = browser.evaluate("game.id")
        browser.click("#start")  # a new game replaces this one: it is left (saved), its slot freed
        browser.wait_until(f"game && game.id !== '{first}' && document.body.dataset.busy === '0'")
        assert browser.evaluate("document.getElementById('error').textContent") == ""
        browser.click("#leave")
        browser.wait_until("document.body.dataset.done === '1'")
        browser.click("#links a")  # "the rules": served here, no internet needed
        browser.wait_until(
            "document.location.pathname === '/rules' && document.getElementById('rules') !== null"
        )
        assert "C-1 Players" in browser.evaluate("document.getElementById('rules').textContent")
        browser.goto(server.url + "replays")
        head = browser.evaluate("Array.from(document.querySelectorAll('#replays th'), (c) => c.textContent)")
        assert head == ["date (UTC)", "players", "rules", "winner", "length"]
        rows = browser.evaluate(
            "Array.from(document.querySelectorAll('#replays tbody tr'),"
            " (r) => Array.from(r.cells, (c) => c.textContent))"
        )
        assert len(rows) == 2 and all(
            r[1:4] == ["detective, human", "standard", "none: the game was left"] for r in rows
        )
        browser.click("#replays tbody tr:nth-child(2) td:nth-child(4) a")  # any cell of a row opens it
        browser.wait_until("document.location.pathname.startsWith('/replays/') && typeof frames === 'object'")
        refusal = "the server responded with a status of 400"  # reference's hint, shown above
        assert [e for e in browser.errors if not (refusal in e and e.endswith("/hint)"))] == []
