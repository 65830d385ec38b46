"""``hoity-serve`` in a real headless Chromium: a whole game played by clicking, for each ruleset.

Two players and a fast scripted opponent keep a game to a few dozen clicks.  The
page must show the hint for every decision, raise no console error, end with a link
to the replay, and the replay it saved must re-simulate through ``hoity-replay``'s check.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import Browser
from helpers import RULESETS
from serve_client import serving

from hoity_env.replays.cli import main as replay_main
from hoity_env.serve import ServeSettings


def choose(browser: Browser, select: str, value: str) -> None:
    browser.evaluate(
        f"(() => {{ const s = document.querySelector('{select}'); s.value = '{value}';"
        " s.dispatchEvent(new Event('change')); })()"
    )


SHORT_DEALS = {"standard": 2, "original": 7}
"""A seed per ruleset whose game (the first choice every time, against ``detective``) is short: ~20 steps."""


@pytest.mark.parametrize("rules", RULESETS)
def test_a_whole_game_is_played_by_clicking(tmp_path: Path, browser: Browser, rules: str) -> None:
    settings = ServeSettings(agents=("detective", "expert"), replays=tmp_path / "replays")
    with serving(settings) as server:
        browser.goto(server.url)
        browser.wait_until("document.body.dataset.ready === '1'")
        choose(browser, "#players", "2")
        choose(browser, "#rules", rules)
        choose(browser, "#seat", "1")
        choose(browser, ".opponent", "detective")
        choose(browser, "#hinter", "expert")
        browser.evaluate(f"document.getElementById('seed').value = '{SHORT_DEALS[rules]}'")
        browser.click("#start")
        browser.wait_until("document.body.dataset.step === '0' && document.body.dataset.busy === '0'")
        assert browser.evaluate("document.getElementById('board').naturalWidth") == 640
        clicks = 0
        while browser.evaluate("document.body.dataset.done") != "1":
            step = browser.evaluate("document.body.dataset.step")
            browser.wait_until(f"document.body.dataset.hintStep === '{step}'")  # the hint for this decision
            best = browser.evaluate("document.querySelector('#hint tr:nth-child(2) td').textContent")
            labels = browser.evaluate(
                "Array.from(document.querySelectorAll('#choices button'), (b) => b.textContent)"
            )
            assert best in labels  # expert's decision, one of the legal choices shown as buttons
            browser.click("#choices button")
            browser.wait_until(
                f"document.body.dataset.step !== '{step}' && document.body.dataset.busy === '0'"
            )
            clicks += 1
            if clicks == 1:
                assert browser.evaluate("document.getElementById('reveal').children.length") > 0
        assert clicks > 5 and "game over" in browser.evaluate("document.getElementById('result').textContent")
        href = browser.evaluate("document.getElementById('replay').getAttribute('href')")
        browser.click("#replay")  # the replay viewer, served: every seat's choices
        browser.wait_until("document.location.pathname.startsWith('/replays/') && typeof frames === 'object'")
        browser.wait_until("document.body.dataset.index === '0'")
        assert browser.evaluate("frames.length") > 2
        assert browser.errors == []
    saved = list((tmp_path / "replays").iterdir())
    assert [p.name for p in saved] == [href.rsplit("/", 1)[1]]
    assert replay_main([str(saved[0]), "--quiet"]) == 0
