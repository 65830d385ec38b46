"""Make ``docs/serve.png``: the real ``hoity-serve`` page in headless Chromium, a few moves into a game.

Run from the repository root (needs Debian's ``chromium``)::

    python docs/_generate/serve_screenshot.py

It serves a 4-player standard game (you in seat 0 against ``expert``, ``thief`` and
``champion``, seed 3, a temporary replays folder), asks ``champion`` for hints,
plays seven moves (the first button, or at an auction the hint's likeliest bid typed
in the bid box) and saves the screenshot.  The browser driver is the one the tests
use (``tests/browser.py``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from browser import Browser, find_chromium  # noqa: E402
from serve_client import serving  # noqa: E402

from hoity_env.serve import ServeSettings  # noqa: E402

OUT = ROOT / "docs" / "serve.png"
MOVES = 7


def main() -> int:
    """Serve, play seven moves by clicking and typing, save the screenshot; the exit status."""
    binary = find_chromium()
    if binary is None:
        print("serve_screenshot: error: chromium is not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        settings = ServeSettings(agents=("expert", "thief", "champion"), replays=Path(tmp) / "replays")
        with serving(settings) as server:
            browser = Browser(binary, Path(tmp) / "profile")
            try:
                browser.goto(server.url)
                browser.wait_until("document.body.dataset.ready === '1'")
                script = (
                    "const set = (s, v) => { s.value = v; s.dispatchEvent(new Event('change')); };"
                    "set(document.getElementById('players'), '4');"
                    "set(document.getElementById('rules'), 'standard');"
                    "const o = document.querySelectorAll('.opponent');"
                    "set(o[0], 'expert'); set(o[1], 'thief'); set(o[2], 'champion');"
                    "set(document.getElementById('hinter'), 'champion');"
                    "document.getElementById('seed').value = '3';"
                )
                browser.evaluate(f"(() => {{ {script} }})()")
                browser.click("#start")
                for step in range(MOVES + 1):
                    browser.wait_until(f"document.body.dataset.hintStep === '{step}'")
                    if step == MOVES:
                        break
                    if browser.evaluate("document.getElementById('bidding').hidden"):
                        browser.click("#choices button")
                    else:  # an auction: the likeliest bid of the hint, typed in the bid box
                        best = browser.evaluate(
                            "document.querySelector('#hint tr:nth-child(2) td').textContent"
                        )
                        browser.type("#bid", best.removeprefix("bid "))
                        browser.click("#place")
                browser.evaluate("window.scrollTo(0, 0)")
                OUT.write_bytes(browser.screenshot())
                if browser.errors:
                    print(f"serve_screenshot: error: the page logged {browser.errors}", file=sys.stderr)
                    return 1
            finally:
                browser.close()
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
