"""Smoke test of an installed hoity_env wheel (run by .ci/package_check.sh in a fresh venv, no torch).

Argument: the wheel file, to check what it ships.  Fails (non-zero exit, traceback) on anything wrong.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]


def run(*cmd: str) -> str:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"{cmd}: exit {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out.stdout


def main() -> None:
    wheel = Path(sys.argv[1])
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in (
        "hoity_env/py.typed",
        "hoity_env/agents/models/champion.npz",
        "hoity_env/agents/models/reference.npz",
        "hoity_env/agents/models/champion-mix-standard-4/population.json",
        "hoity_env/agents/models/champion-mix-standard-4/policy.npz",
        "hoity_env/agents/models/registry.json",
        "hoity_env/serve/static/play.html",
        "hoity_env/serve/static/play.js",
        "hoity_env/serve/static/rules.html",  # docs/RULES.md, rendered by docs/_generate/serve_rules.py
        "hoity_env/replays/static/viewer.js",
    ):
        assert shipped in names, f"{wheel.name} lacks {shipped}"
    print(f"{wheel.name}: {wheel.stat().st_size} bytes, {len(names)} files")
    for extra in ("torch", "matplotlib", "markdown_it"):  # training, charts and Markdown are extras
        assert importlib.util.find_spec(extra) is None, f"the core install must not bring {extra}"

    # Gymnasium first, hoity_env never imported by us: the id names the module to import.
    import gymnasium

    env = gymnasium.make("hoity_env:hoity/HoityToityVsBots-v0")
    obs, _ = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape, obs.shape
    import hoity_env  # registering again (the import hook) must be harmless

    assert not Path(hoity_env.__file__).resolve().is_relative_to(CHECKOUT), hoity_env.__file__
    assert gymnasium.make("hoity/HoityToityVsBots-v0").spec.id == "hoity/HoityToityVsBots-v0"

    from hoity_env.agents import make

    par = hoity_env.parallel_env(num_players=4, illegal_action="raise")
    agents = [
        make(spec, seed=i, num_players=4) for i, spec in enumerate(["champion", "random", "random", "expert"])
    ]
    obs, _ = par.reset(seed=1)
    while par.agents:
        acts = {
            a: ag.act(obs[a]["observation"], obs[a]["action_mask"])
            for a, ag in zip(par.possible_agents, agents, strict=True)
        }
        obs = par.step(acts)[0]
    print(f"a game with the champion: winners {par.game_state.winners}")
    registered_agents_play()
    assert "torch" not in sys.modules

    table = run("hoity-eval", "--agents", "champion,champion-mix,random,random", "--games", "40")
    assert "champion" in table and "champion-mix" in table, table
    print(table)
    out = subprocess.run(
        ["hoity-eval", "--agents", "expert,random", "--games", "8", "--out", "eval"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in Path("eval").glob("result.*")) == ["result.csv", "result.json", "result.md"]
    assert "hoity_env[plots]" in out.stderr, out.stderr  # no chart without matplotlib, and how to get it
    assert "--opponents" in run("hoity-play", "--help")
    serve_smoke()
    print("installed wheel: OK")


def registered_agents_play() -> None:
    """Every named agent in the wheel's registry plays a legal first move at each of its tables."""
    import hoity_env
    from hoity_env.agents import make
    from hoity_env.agents.policies.registry import registry

    entries = registry().entries
    for e in entries:
        env = hoity_env.parallel_env(num_players=e.num_players, rules=e.rules)
        obs, _ = env.reset(seed=0)
        agent = make(e.name, seed=0, num_players=e.num_players, rules=e.rules, num_actions=env.codec.size)
        first = obs["player_0"]
        assert first["action_mask"][agent.act(first["observation"], first["action_mask"])] == 1, e
    print(f"registry: {len(entries)} named-agent tables play from the wheel")


def serve_smoke() -> None:
    """``hoity-serve`` from the wheel: it serves the page and a new game, then stops on Ctrl-C."""
    from hoity_env.cli.serve import wait_until_serving

    def default_sigint() -> None:  # Ctrl-C as from a shell, even when this script runs in the background
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])

    proc = subprocess.Popen(
        ["hoity-serve", "--port", "0", "--replays", "served"],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        assert proc.stderr is not None
        url = wait_until_serving(proc.stderr)
        with urllib.request.urlopen(url, timeout=30) as page:
            assert b"<html" in page.read().lower()
        with urllib.request.urlopen(url + "rules", timeout=30) as page:
            assert b"C-1 Players" in page.read()  # the rules page, from the wheel's copy of docs/RULES.md
        new = urllib.request.Request(
            url + "api/games",
            data=json.dumps({"players": 4, "opponents": ["champion", "random", "expert"]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(new, timeout=60) as answer:
            view = json.load(answer)
        assert view["choices"], view
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        saved = sorted(p.name for p in Path("served").iterdir())
        print(f"hoity-serve: page and a new game served; replays saved on stop: {saved}")
        assert saved, "the open game was not saved when the server stopped"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
