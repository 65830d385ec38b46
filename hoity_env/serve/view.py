"""What the page of a served game shows: the human seat's view, and a hint for that seat.

The view holds the facts the env's observation gives the human's seat (RULES C-5) and nothing else:
the other seats' hidden cards, the draw pile and the deal seed are never read here (a test swaps hidden
cards and checks the view stays byte-identical).  The hint (:func:`hint`) reads that observation and
mask only.  See docs/serve.md.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
from PIL import Image

from hoity_env.agents import Agent
from hoity_env.agents.policies.population import PopulationAgent
from hoity_env.agents.policies.sb3 import DistributionAgent
from hoity_env.engine.actions import Phase
from hoity_env.engine.state import card_text
from hoity_env.environment.render.standard import board_image
from hoity_env.environment.render.text import describe_event, render_text
from hoity_env.play.choices import menu
from hoity_env.replays.recorder import RecordingEnv

__all__ = ["choices", "hint", "png_data_uri", "seat_view"]


def png_data_uri(pixels: np.ndarray) -> str:
    """An RGB array as a ``data:image/png;base64,…`` address (fast: the lightest zlib level)."""
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def choices(env: RecordingEnv, mask: np.ndarray) -> list[dict[str, Any]]:
    """The legal actions of ``mask`` as ``{action, label}``, in the order ``hoity-play`` lists them;
    a bid also has its amount, ``bid`` (the page asks for it as one number, not 51 buttons)."""
    legal = np.flatnonzero(mask)
    options = menu(mask, env.codec, int(legal[0]))
    out: list[dict[str, Any]] = []
    for c in options.choices:
        group, value = env.codec.decode(c.action)
        out.append({"action": c.action, "label": c.label, **({"bid": value} if group == "bid" else {})})
    return out


def seat_view(env: RecordingEnv, seat: int, mask: np.ndarray | None, step: int) -> dict[str, Any]:
    """The JSON-safe view of ``seat`` after ``step`` steps; ``mask`` is its action mask (None when over).

    The board picture (as ``render_mode="rgb_array"`` draws it: what a spectator sees), the public
    board in words, the seat's own hand and money, the last step's reveal in words, and the legal
    choices labelled as ``hoity-play`` labels them.
    """
    state = env.game_state
    deck = state.deck
    events = env.last_events
    own = sorted(state.hands[seat], key=lambda c: (deck.series[c], deck.year[c]))
    view: dict[str, Any] = {
        "seat": seat,
        "num_players": env.num_players,
        "rules": env.rules.name,
        "agents": list(env.agent_names),
        "round": state.round if state.done else state.round + 1,  # over: the rounds played, not one more
        "phase": "over" if state.done else ("location" if state.phase is Phase.LOCATION else "action"),
        "step": step,
        "board": png_data_uri(board_image(state, events)),
        "table": render_text(state, []).splitlines(),
        "reveal": [describe_event(e, deck) for e in events],
        "hand": [card_text(c, deck) for c in own],
        "money": int(state.money[seat]),
        "choices": [] if mask is None or state.done else choices(env, mask),
        "done": bool(state.done),
    }
    checks = getattr(state, "checks", None)
    if checks is not None:  # the original ruleset pays with checks (RULES O-4); the seat sees its own
        view["checks"] = [int(c) for c in checks[seat]]
    if state.done:
        view["winners"] = [int(p) for p in state.winners]
        view["you_win"] = seat in state.winners
    return view


def hint(agent: Agent, observation: np.ndarray, mask: np.ndarray) -> tuple[str, np.ndarray]:
    """``("policy", probabilities)`` for a policy, ``("mixture", weighted mean of the members')`` for
    a population, ``("decision", one-hot)`` for any other agent.

    A policy's probabilities are its masked softmax; a population's mixture averages its members'
    with the population's weights: what it plays here before knowing which member a game drew.
    """
    legal = np.asarray(mask).astype(bool)
    if isinstance(agent, PopulationAgent):
        members = [hint(member, observation, mask)[1] for member in agent.agents]
        mixture: np.ndarray = np.tensordot(agent.weights, np.stack(members), axes=1)
        return "mixture", mixture
    if isinstance(agent, DistributionAgent):
        probs = agent.action_probabilities(observation[None].astype(np.float32), legal[None])[0]
        return "policy", np.asarray(probs, dtype=np.float64)
    one_hot = np.zeros(legal.shape[0], dtype=np.float64)
    one_hot[agent.act(observation, mask)] = 1.0
    return "decision", one_hot
