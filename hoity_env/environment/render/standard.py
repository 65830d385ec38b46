"""The board as a picture (``render_mode="rgb_array"``): a ``uint8`` RGB array of :data:`FRAME_SHAPE`.

What a spectator sees (RULES C-5): the track, the lot, each player's money, hand size and
public collection, the step's reveals and events.  Drawn with Pillow (installed with
matplotlib anyway); the parts that never change in a game are drawn once per table shape.
:func:`board_image` picks the drawing by ruleset; a ruleset not in :data:`DRAWN_RULESETS` gets a
``ConfigError`` from :func:`check_drawable`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.state import GameState
from hoity_env.environment.render.draw import (
    FRAME_SHAPE,
    GRID,
    INK,
    PLAYER_COLORS,
    WIDTH,
    blank,
    draw_card,
    draw_collection,
    draw_events,
    draw_pawns,
    draw_player_label,
    draw_title,
    draw_track_grid,
    font,
    reveal_texts,
)
from hoity_env.environment.render.original import original_board_image

__all__ = ["DRAWN_RULESETS", "FRAME_SHAPE", "board_image", "check_drawable"]

_TRACK_TOP, _LANE = 34, 11
_MID_TOP, _MID_BOTTOM = 110, 206
_ROWS_TOP, _ROWS_BOTTOM = 212, 476
_EVENT_LINES = 6


def _standard_image(state: GameState, events: Sequence[Mapping[str, Any]]) -> np.ndarray:
    n, finish, deck = state.num_players, state.rules.finish, state.deck
    img = _background(n, finish).copy()
    draw = ImageDraw.Draw(img)
    text = font(12)
    draw_title(draw, state, f"deck {len(state.draw_pile)}")
    draw_pawns(draw, state.positions, finish, _TRACK_TOP, _LANE)

    # Lot on display.
    if state.lot >= 0:
        draw_card(draw, (28, _MID_TOP + 20, 76, _MID_BOTTOM - 8), state.lot, deck)
    else:
        draw.text((52, _MID_TOP + 50), "closed", fill=INK, font=text, anchor="mm")
    draw_events(draw, events, deck, (104, _MID_TOP + 4), _EVENT_LINES, WIDTH - 104 - 8)

    # One row per player: money, hand size, revealed choice, public collection.
    reveals = reveal_texts(events, n)
    row = (_ROWS_BOTTOM - _ROWS_TOP) // 6
    for p in range(n):
        top = _ROWS_TOP + p * row
        draw_player_label(draw, p, top)
        draw.text(
            (100, top + 1),
            f"space {state.positions[p]:>2}   money {state.money[p]:>3}   cards {len(state.hands[p]):>2}",
            fill=INK,
            font=text,
        )
        if reveals[p]:
            draw.text((WIDTH - 12, top + 1), reveals[p], fill=PLAYER_COLORS[p], font=text, anchor="ra")
        draw_collection(img, draw, state, p, top + 18)
    return np.asarray(img, dtype=np.uint8)


@lru_cache(maxsize=16)
def _background(num_players: int, finish: int) -> Image.Image:
    """Everything that stays put during a standard game of this shape."""
    img = blank()
    draw = ImageDraw.Draw(img)
    draw_track_grid(draw, num_players, finish, _TRACK_TOP, _LANE, max(1, round(finish / 10)))
    draw.rectangle((12, _MID_TOP, 92, _MID_BOTTOM), outline=GRID)
    draw.text((52, _MID_TOP + 4), "lot on display", fill=INK, font=font(10), anchor="mt")
    draw.line((0, _ROWS_TOP - 3, WIDTH, _ROWS_TOP - 3), fill=GRID)
    return img


_DRAWERS: dict[str, Callable[[GameState, Sequence[Mapping[str, Any]]], np.ndarray]] = {
    "standard": _standard_image,
    "original": original_board_image,
}
DRAWN_RULESETS = tuple(_DRAWERS)
"""Rulesets whose state this module knows how to draw."""


def check_drawable(rules: RulesConfig) -> None:
    """Raise :class:`ConfigError` unless this module can draw games of ``rules``."""
    if rules.ruleset not in _DRAWERS:
        raise ConfigError(
            f"render_mode='rgb_array' draws the {' and '.join(DRAWN_RULESETS)} rulesets only, "
            f"not {rules.ruleset!r}; use render_mode='ansi' for text"
        )


def board_image(state: GameState, events: Sequence[Mapping[str, Any]] = ()) -> np.ndarray:
    """The public board after a step whose events are ``events``: a ``FRAME_SHAPE`` uint8 array."""
    check_drawable(state.rules)
    return _DRAWERS[state.rules.ruleset](state, events)
