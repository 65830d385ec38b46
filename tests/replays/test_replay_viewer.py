"""The HTML replay viewer in a real headless Chromium (Debian's ``chromium``; CI installs it)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from hoity_env.replays import RecordingEnv, write_html
from hoity_env.replays.html import viewer_policy
from tests.browser import Browser
from tests.helpers import RULESETS


def _recorded_game(tmp_path: Path, rules: str = "standard", names: list[str] | None = None) -> Path:
    env = RecordingEnv(num_players=4, rules=rules, agent_names=names or ["random"] * 4)
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(11)
    while env.agents:
        obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
    return write_html(env.replay, tmp_path / "game.html")


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.parametrize("rules", RULESETS)
def test_viewer_loads_steps_and_draws(tmp_path: Path, browser: Browser, rules: str) -> None:
    page = _recorded_game(tmp_path, rules)
    assert "http://" not in page.read_text() and "https://" not in page.read_text()  # nothing fetched
    browser.open(page)
    frames = browser.evaluate("frames.length")
    assert frames > 5
    assert browser.evaluate("document.body.dataset.index") == "0"
    first_src = browser.evaluate("document.getElementById('board').src")
    assert first_src.startswith("data:image/png;base64,")
    assert browser.evaluate("document.getElementById('board').naturalWidth") == 640
    before = browser.screenshot()

    browser.press("ArrowRight", 39)  # the keyboard steps forward …
    assert browser.evaluate("document.body.dataset.index") == "1"
    assert browser.evaluate("document.getElementById('board').src") != first_src
    assert "round 1" in browser.evaluate("document.getElementById('heading').textContent")
    browser.press("End", 35)
    assert browser.evaluate("document.body.dataset.index") == str(frames - 1)
    assert "game over" in browser.evaluate("document.getElementById('lines').textContent")
    browser.evaluate("document.getElementById('first').click()")  # … and so do the buttons
    assert browser.evaluate("document.body.dataset.index") == "0"
    browser.evaluate("document.getElementById('next').click()")
    browser.evaluate("document.getElementById('next').click()")
    assert browser.evaluate("document.body.dataset.index") == "2"
    browser.press("ArrowLeft", 37)
    assert browser.evaluate("document.body.dataset.index") == "1"
    after = browser.screenshot()

    shot = _pixels(after)
    assert shot.shape[0] > 400 and shot.shape[1] > 600
    assert shot.std() > 20 and len(np.unique(shot.reshape(-1, 3), axis=0)) > 50  # not blank
    assert not np.array_equal(_pixels(before), shot)  # stepping changed what is on screen
    assert browser.errors == []


def test_the_browser_check_sees_console_errors(tmp_path: Path, browser: Browser) -> None:
    """The 'no console errors' assertion above can fail: a broken page is caught."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html><body><script>console.error("boom"); missing();</script></body></html>'
    )
    browser.open(page)
    assert any("boom" in e for e in browser.errors)
    assert any("missing" in e for e in browser.errors)


HOSTILE_LABELS = [
    "<!--<script>",  # opened a comment-in-script state that swallowed the page's own script
    "</script><script>window.pwned = 1</script>",
    "<img src=x onerror='window.pwned = 2'>",
    "& &amp; \u2028 ]]>",  # (no "-->": it would end the comment state the first label opens)
]


def test_hostile_agent_labels_render_as_text(tmp_path: Path, browser: Browser) -> None:
    page = _recorded_game(tmp_path, names=HOSTILE_LABELS)
    browser.open(page)
    assert browser.evaluate("typeof frames") == "object" and browser.evaluate("frames.length") > 5
    assert browser.evaluate("document.body.dataset.index") == "0"  # the page's script ran
    seats = browser.evaluate("document.getElementById('lines').textContent")
    subtitle = browser.evaluate("document.querySelector('p').textContent")
    for label in HOSTILE_LABELS:
        assert label in seats and label in subtitle
    assert browser.evaluate("typeof window.pwned") == "undefined"  # nothing from the file ran
    assert browser.evaluate("document.querySelectorAll('script').length") == 2
    assert browser.evaluate("document.querySelectorAll('img').length") == 1  # the board only
    browser.press("End", 35)
    assert "game over" in browser.evaluate("document.getElementById('lines').textContent")
    assert browser.errors == []


def test_the_viewer_runs_its_own_script_and_no_other(tmp_path: Path, browser: Browser) -> None:
    """Its policy names its own style and script by hash: an inline script slipped into the file is
    refused, while the viewer's own still steps through the game."""
    policy = viewer_policy()
    assert "'unsafe-inline'" not in policy and policy.count("'sha256-") == 2
    page = _recorded_game(tmp_path)
    text = page.read_text()
    assert f'content="{policy}"' in text
    page.write_text(text.replace("</body>", "<script>window.pwned = 1</script></body>"))
    browser.open(page)
    assert browser.evaluate("typeof window.pwned") == "undefined"
    assert any("Content Security Policy" in e for e in browser.errors)  # refused, and said so
    browser.press("End", 35)
    assert "game over" in browser.evaluate("document.getElementById('lines').textContent")
