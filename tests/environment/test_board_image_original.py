"""The original ruleset's board picture (RULES O-1 … O-9): every public fact it promises shows.

The converse (hidden cards change no pixel) is
``test_render_image.py::test_the_picture_shows_public_information_only``; here
each public part of the table is changed on its own and must change the frame,
in the part of the frame where it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hoity_env
from hoity_env.engine.original import OriginalState
from hoity_env.environment.render.draw import reveal_texts
from hoity_env.environment.render.original import original_board_image
from hoity_env.environment.render.standard import FRAME_SHAPE, board_image


def _mid_game(num_players: int = 4, seed: int = 2, steps: int = 18) -> tuple[OriginalState, list[Any]]:
    env = hoity_env.parallel_env(num_players=num_players, rules="original", render_mode="rgb_array")
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
    state = env.game_state
    assert isinstance(state, OriginalState) and not state.done
    return state, list(env.last_events)


TRACK, TABLE, ROWS = slice(28, 120), slice(122, 224), slice(226, 480)
"""Bands of the frame: castles and track, the Auction House and jail box, the player rows."""


def _jail_a_thief(s: OriginalState) -> None:
    s.jail.insert(0, next(t for t in s.thieves[0] if t not in s.jail))


def _pay_a_check(s: OriginalState) -> None:
    value = s.checks[0][-1]
    s.remove_check(0, value)
    s.register.append(value)


def _sell_a_lot(s: OriginalState) -> None:
    lot = next(i for i, c in enumerate(s.lots) if c >= 0)
    s.give_card(1, s.lots[lot], public=True)
    s.lots[lot] = s.piles[lot].pop() if s.piles[lot] else -1


def _reveal_a_card(s: OriginalState) -> None:
    s.reveal(2, [c for c in s.hands[2] if c not in s.public[2]][:1])


def _lead(s: OriginalState) -> None:
    s.positions[0] = 39


CHANGES: dict[str, tuple[Callable[[OriginalState], None], tuple[slice, ...]]] = {
    "a pawn takes the lead (and the leader's castle)": (_lead, (TRACK, TABLE, ROWS)),
    "a check is paid into the register": (_pay_a_check, (TABLE, ROWS)),
    "a thief goes to jail (and is greyed in its row)": (_jail_a_thief, (TABLE, ROWS)),
    "a lot is sold and its pile turns up the next card": (_sell_a_lot, (TABLE, ROWS)),
    "a card in hand becomes public": (_reveal_a_card, (ROWS,)),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_each_public_fact_shows(change: str) -> None:
    state, events = _mid_game()
    apply, bands = CHANGES[change]
    before = board_image(state, events)
    changed = state.clone()
    apply(changed)
    assert changed.comparable() != state.comparable()
    after = board_image(changed, events)
    assert after.shape == FRAME_SHAPE
    for band in bands:
        assert not np.array_equal(before[band], after[band]), (change, band)


def test_every_played_card_is_named() -> None:
    """The reveal of each seat in both rulesets' words (O-4: checks name a lot, thieves have numbers)."""
    events = [
        {"kind": "locations", "round": 0, "locations": ["auction", "castle"]},
        {
            "kind": "actions",
            "round": 0,
            "actions": [
                {"location": "auction", "bid": 15, "lot": 1},
                {"location": "auction", "role": "thief"},
                {"location": "castle", "role": "thief", "thief": 6},
                {"location": "castle", "role": "detective"},
                {"location": "auction", "bid": 7},
            ],
        },
    ]
    assert reveal_texts(events[:1], 2) == ["auction", "castle"]
    assert reveal_texts(events, 5) == [
        "auction: check 15 for lot 1",
        "auction: thief",
        "castle: thief 6",
        "castle: detective",
        "auction: bid 7",
    ]
    assert reveal_texts([], 3) == ["", "", ""]


@pytest.mark.parametrize("num_players", [2, 6])
def test_the_reveals_show_in_the_rows(num_players: int) -> None:
    state, events = _mid_game(num_players, seed=num_players, steps=9)  # after a location step
    silent = original_board_image(state, [])
    assert not np.array_equal(silent[ROWS], board_image(state, events)[ROWS])


def test_a_standard_state_is_refused() -> None:
    env = hoity_env.parallel_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="OriginalState"):
        original_board_image(env.game_state)
