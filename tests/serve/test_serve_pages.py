"""What ``hoity-serve``'s pages teach (issue 35) and how they are served: files of ``serve/static/``.

The rules page is ``docs/RULES.md`` itself, rendered when it changes (every rule id on
it; a stale copy fails here); ``/replays`` is a table of date, players, rules, winner
and length; a bid is offered as amounts (``bid`` on each choice) for one number box; a
population's hint is the weighted mean of its members' distributions, not the one
member a game drew.  The pages run only this server's own files: their
Content-Security-Policy allows no inline script or style, and ``/static/`` serves the
named files and nothing else.
"""

from __future__ import annotations

import html
import http.client
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents import make
from hoity_env.agents.policies.population import named_population, read_population, resolve_spec
from hoity_env.serve import ServeSettings
from hoity_env.serve.page import STATIC
from tests.helpers import ROOT
from tests.serve_client import ok, request, serving

sys.path.insert(0, str(ROOT / "docs" / "_generate"))
import serve_rules  # docs/_generate/serve_rules.py: the rules page's writer

RULE_ID = re.compile(r"^\*\*([CSO]-\d+)\b", re.MULTILINE)


def settings(tmp_path: Path, *agents: str) -> ServeSettings:
    return ServeSettings(agents=agents or ("random", "detective"), replays=tmp_path / "replays")


def test_the_rules_page_is_docs_rules_md_served_here(tmp_path: Path) -> None:
    ids = RULE_ID.findall((ROOT / "docs" / "RULES.md").read_text())
    assert len(ids) >= 20
    with serving(settings(tmp_path)) as server:
        status, page = request(server, "GET", "/rules")
        assert status == 200 and "<script" not in page and "<!--" not in page
        text = html.unescape(re.sub(r"<[^>]+>", "", page))
        assert [i for i in ids if i not in text] == []  # every rule, by its id
        assert "<table>" in page  # the choices table of docs/RULES.md, rendered
        status, play = request(server, "GET", "/")
        assert 'href="/rules"' in play and 'id="howto" open' in play  # the rules panel links it
        assert re.search(r'id="cardcodes">[^<]*C1592 is series C', play)  # card codes beside the hand


def test_the_served_rules_page_is_current_with_docs_rules_md(tmp_path: Path) -> None:
    assert not serve_rules.stale(), "run python docs/_generate/serve_rules.py"
    rules = tmp_path / "RULES.md"  # the check can fail: an edit of the rules makes the page stale
    rules.write_text(
        serve_rules.RULES.read_text(encoding="utf-8") + "\n**A new rule.** It changes the page.\n"
    )
    assert serve_rules.stale(rules) and serve_rules.stale(page=tmp_path / "missing.html")
    assert "<strong>A new rule.</strong>" in serve_rules.render(rules.read_text(encoding="utf-8"))


def test_pages_run_only_the_servers_own_files(tmp_path: Path) -> None:
    with serving(settings(tmp_path)) as server:
        for path in ("/", "/rules", "/replays"):
            status, headers, page = _raw(server, path)
            policy = headers["Content-Security-Policy"]
            assert status == 200 and "'unsafe-inline'" not in policy and "default-src 'none'" in policy
            assert "<style" not in page and "style=" not in page and "<script>" not in page
            scripts = ['<script src="/static/play.js">'] if path == "/" else []
            assert re.findall(r"<script[^>]*>", page) == scripts
            assert '<link rel="stylesheet" href="/static/play.css">' in page
        for name, kind in STATIC.items():
            status, headers, text = _raw(server, f"/static/{name}")
            assert status == 200 and headers["Content-Type"] == kind and len(text) > 500
            assert "http" not in text  # nothing fetched from elsewhere
        for path in (
            "/static/",
            "/static/play.html",
            "/static/../page.py",
            "/static/rules.html",
            "/static/a.js",
        ):
            assert request(server, "GET", path)[0] == 404, path  # the named files only


def _raw(server: Any, path: str) -> tuple[int, dict[str, str], str]:
    """``GET path``: its status, headers and body."""
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read().decode()
    finally:
        conn.close()


def _cells(page: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", page.split("<tbody>", 1)[1])
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td>(.*?)</td>", r)] for r in rows
    ]


def test_the_saved_games_are_a_table_whose_rows_open_the_viewer(tmp_path: Path) -> None:
    with serving(settings(tmp_path)) as server:
        status, page = request(server, "GET", "/replays")
        assert status == 200 and "no saved games yet" in page
        view = ok(server, "POST", "/api/games", {"players": 2, "opponents": ["detective"], "seed": 2})
        while not view["done"]:
            view = ok(
                server, "POST", f"/api/games/{view['id']}/action", {"action": view["choices"][0]["action"]}
            )
        left = ok(
            server, "POST", "/api/games", {"players": 3, "opponents": ["random", "detective"], "seed": 1}
        )
        left_name = ok(server, "POST", f"/api/games/{left['id']}/leave", {})["replay"]
        (tmp_path / "replays" / "zz-junk.jsonl").write_text('{"format": "not a replay"}\n')
        page = request(server, "GET", "/replays")[1]
        assert request(server, "GET", "/replays")[1] == page  # read once per file version
    rows = dict(zip(re.findall(r'<tr><td><a href="/replays/([^"]+)"', page), _cells(page), strict=True))
    assert set(rows) == {view["replay"], left_name, "zz-junk.jsonl"}
    for name, cells in rows.items():
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", cells[0]) and len(cells) == 5
        assert page.count(f'href="/replays/{name}"') == 5  # every cell opens the game
    winner = ", ".join(f"player_{p} ({['human', 'detective'][p]})" for p in view["winners"])
    assert rows[view["replay"]][1:] == [
        "human, detective",
        "standard",
        winner,
        f"{view['round']} rounds, {view['step']} steps",
    ]
    assert rows[left_name][1:] == [
        "human, random, detective",
        "standard",
        "none: the game was left",
        "0 rounds, 0 steps",
    ]
    assert rows["zz-junk.jsonl"][1:4] == ["?", "?", "unreadable: not a complete replay"]
    assert str(tmp_path) not in page


def test_a_bid_is_offered_as_amounts(tmp_path: Path) -> None:
    with serving(settings(tmp_path)) as server:
        view = ok(server, "POST", "/api/games", {"players": 2, "opponents": ["detective"], "seed": 2})
        assert all("bid" not in c for c in view["choices"])  # where to go: no amounts
        auction = next(c["action"] for c in view["choices"] if "Auction" in c["label"])
        while not any("bid" in c for c in view["choices"]):
            pick = (
                auction
                if any(c["action"] == auction for c in view["choices"])
                else view["choices"][0]["action"]
            )
            view = ok(server, "POST", f"/api/games/{view['id']}/action", {"action": pick})
        bids = [c for c in view["choices"] if "bid" in c]
        assert [c["label"] for c in bids] == [f"bid {c['bid']}" for c in bids]
        assert [c["bid"] for c in bids] == list(range(view["money"] + 1))  # 0 (no bid) to all the money


def test_a_population_hint_is_the_weighted_mean_of_its_members(tmp_path: Path) -> None:
    with serving(settings(tmp_path, "random", "champion-mix")) as server:
        body: dict[str, Any] = {"players": 4, "opponents": ["random"] * 3, "seed": 1}
        view = ok(server, "POST", "/api/games", body)
        got = ok(server, "POST", f"/api/games/{view['id']}/hint", {"agent": "champion-mix"})
        game = server.table.get(view["id"])
        obs, mask = game.obs[game.me]["observation"], game.obs[game.me]["action_mask"].astype(bool)
    manifest = named_population("champion-mix")
    members = read_population(manifest)
    weights = np.array([m.weight for m in members]) / sum(m.weight for m in members)
    size = mask.shape[0]
    dists = [
        make(resolve_spec(m.spec, manifest.parent), num_players=4, num_actions=size).action_probabilities(
            obs[None].astype(np.float32), mask[None]
        )[0]
        for m in members
    ]
    want = np.tensordot(weights, np.stack(dists), axes=1)
    assert got["kind"] == "mixture"
    rows = {r["action"]: r["p"] for r in got["probabilities"]}
    assert set(rows) == set(np.flatnonzero(mask).tolist())
    assert all(abs(p - want[a]) <= 1e-4 for a, p in rows.items())
    assert sum(p > 0.01 for p in rows.values()) >= 2  # a distribution, not one member's choice at 100%
