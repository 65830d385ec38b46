"""The HTML replay viewer in a real headless Chromium (Debian's ``chromium``; CI installs it)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from browser import Browser, find_chromium
from helpers import RULESETS
from PIL import Image

from hoity_env.replays import RecordingEnv, write_html


def _recorded_game(tmp_path: Path, rules: str = "standard") -> Path:
    env = RecordingEnv(num_players=4, rules=rules, agent_names=["random"] * 4)
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(11)
    while env.agents:
        obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
    return write_html(env.replay, tmp_path / "game.html")


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    binary = find_chromium()
    if binary is None:  # never a skip: CI installs chromium, and a missing browser must fail loudly
        pytest.fail("Chromium is missing: apt-get install -y chromium (the README's test command does)")
    b = Browser(binary, tmp_path / "profile")
    try:
        yield b
    finally:
        b.close()


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
