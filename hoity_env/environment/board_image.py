"""The board as a picture (``render_mode="rgb_array"``): a fixed-shape ``uint8`` RGB array.

What is drawn is what a spectator at the table sees (RULES C-5), the same facts
as the text render: the track with every pawn (one lane per seat), the lot on
display, each player's money, hand size and public collection, the step's
reveals (everyone's location, then everyone's bid or role) and the step's events
in words.  Hidden cards never appear, so a frame can be shown to any player.

Why Pillow: it is already installed with every hoity_env (matplotlib requires
it), so it adds no install weight, and it rasterizes text and shapes in C.  The
parts that never change during a game (title bar, track grid, numbers, labels)
are drawn once per table shape and copied for each frame; a frame then costs a
few milliseconds (``benchmarks/bench_render.py`` measures it).  A hand-made numpy
bitmap font would avoid even that dependency but cost more code for uglier text.

The shape is :data:`FRAME_SHAPE` for every player count and rules, so video
encoders and Gymnasium's ``RecordVideo`` see one size.  Only rulesets listed in
:data:`DRAWN_RULESETS` are drawn; another ruleset gets a clear ``ConfigError``
from :func:`check_drawable` when an env is built with ``render_mode="rgb_array"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.state import GameState, card_text
from hoity_env.environment.render import describe_event

__all__ = ["DRAWN_RULESETS", "FRAME_SHAPE", "board_image", "check_drawable"]

HEIGHT, WIDTH = 480, 640
FRAME_SHAPE = (HEIGHT, WIDTH, 3)
"""``(height, width, 3)`` of every frame."""
DRAWN_RULESETS = ("standard",)
"""Rulesets whose state this module knows how to draw (one lot on display)."""

_BG = (246, 241, 228)
_INK = (40, 36, 32)
_GRID = (200, 190, 170)
_BAR = (60, 52, 70)
_PLAYER_COLORS = (
    (214, 69, 65),
    (52, 110, 196),
    (60, 160, 80),
    (232, 140, 30),
    (140, 80, 180),
    (30, 160, 170),
)
_SERIES_COLORS = (
    (186, 74, 74),
    (70, 120, 170),
    (96, 150, 70),
    (200, 160, 40),
    (150, 90, 160),
    (110, 110, 110),
)
_TRACK_TOP, _LANE = 34, 11
_MID_TOP, _MID_BOTTOM = 110, 206
_ROWS_TOP, _ROWS_BOTTOM = 212, 476
_EVENT_LINES = 6


def check_drawable(rules: RulesConfig) -> None:
    """Raise :class:`ConfigError` unless this module can draw games of ``rules``."""
    if rules.ruleset not in DRAWN_RULESETS:
        raise ConfigError(
            f"render_mode='rgb_array' draws the {', '.join(DRAWN_RULESETS)} ruleset only, "
            f"not {rules.ruleset!r}; use render_mode='ansi' for text"
        )


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=16)
def _background(num_players: int, finish: int) -> Image.Image:
    """Everything that stays put during a game of this shape."""
    img = Image.new("RGB", (WIDTH, HEIGHT), _BG)
    draw = ImageDraw.Draw(img)
    small = _font(10)
    draw.rectangle((0, 0, WIDTH, 26), fill=_BAR)
    left, right = 12, WIDTH - 12
    cell = (right - left) / (finish + 1)
    bottom = _TRACK_TOP + _LANE * num_players
    for k in range(finish + 2):
        x = round(left + k * cell)
        draw.line((x, _TRACK_TOP, x, bottom), fill=_GRID)
    for p in range(num_players + 1):
        y = _TRACK_TOP + p * _LANE
        draw.line((left, y, right, y), fill=_GRID)
    step = max(1, round(finish / 10))
    for k in range(0, finish + 1, step):
        draw.text((left + (k + 0.5) * cell, bottom + 2), str(k), fill=_INK, font=small, anchor="mt")
    draw.rectangle(
        (round(left + finish * cell) + 1, _TRACK_TOP + 1, right - 1, bottom - 1), fill=(226, 214, 186)
    )
    draw.rectangle((12, _MID_TOP, 92, _MID_BOTTOM), outline=_GRID)
    draw.text((52, _MID_TOP + 4), "lot on display", fill=_INK, font=small, anchor="mt")
    draw.line((0, _ROWS_TOP - 3, WIDTH, _ROWS_TOP - 3), fill=_GRID)
    return img


@lru_cache(maxsize=1024)
def _chip(series: int, text: str) -> Image.Image:
    """A card of a public collection, drawn once and pasted (text is the slow part of a frame)."""
    img = Image.new("RGB", (31, 19), _SERIES_COLORS[series])
    ImageDraw.Draw(img).text((15, 9), text, fill=(255, 255, 255), font=_font(10), anchor="mm")
    return img


def _reveals(events: Sequence[Mapping[str, Any]], num_players: int) -> list[str]:
    """Each seat's revealed choice this step (location, then bid or role), '' before any reveal."""
    out = [""] * num_players
    for event in events:
        if event["kind"] == "locations":
            out = [str(loc) for loc in event["locations"]]
        elif event["kind"] == "actions":
            out = [
                f"auction: bid {a['bid']}" if a["location"] == "auction" else f"castle: {a['role']}"
                for a in event["actions"]
            ]
    return out


def board_image(state: GameState, events: Sequence[Mapping[str, Any]] = ()) -> np.ndarray:
    """The public board after a step whose events are ``events``: a ``FRAME_SHAPE`` uint8 array."""
    check_drawable(state.rules)
    n, finish, deck = state.num_players, state.rules.finish, state.deck
    img = _background(n, finish).copy()
    draw = ImageDraw.Draw(img)
    font, big = _font(12), _font(16)

    # Title bar.
    if state.done:
        winners = ", ".join(f"player_{p}" for p in state.winners)
        title = f"game over after {state.round} rounds: " + (
            f"winner {winners}" if winners else "truncated, no winner"
        )
    else:
        title = (
            f"round {state.round + 1} · next: {state.phase.name.lower()} step · "
            f"start player_{state.start_player}"
        )
    draw.text((10, 13), "Hoity Toity", fill=(255, 255, 255), font=big, anchor="lm")
    draw.text((130, 13), title, fill=(235, 230, 220), font=font, anchor="lm")
    draw.text((WIDTH - 10, 13), f"deck {len(state.draw_pile)}", fill=(235, 230, 220), font=font, anchor="rm")

    # Track: one lane per seat.
    left = 12
    cell = (WIDTH - 24) / (finish + 1)
    radius = max(2.0, min(cell / 2 - 1.5, _LANE / 2 - 1))
    for p in range(n):
        x = left + (min(state.positions[p], finish) + 0.5) * cell
        y = _TRACK_TOP + (p + 0.5) * _LANE
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=_PLAYER_COLORS[p], outline=_INK)

    # Lot on display.
    if state.lot >= 0:
        series = deck.series[state.lot]
        draw.rounded_rectangle((28, _MID_TOP + 20, 76, _MID_BOTTOM - 8), 5, fill=_SERIES_COLORS[series])
        draw.text((52, _MID_TOP + 42), "ABCDEF"[series], fill=(255, 255, 255), font=big, anchor="mm")
        draw.text(
            (52, _MID_TOP + 66), str(deck.year[state.lot]), fill=(255, 255, 255), font=font, anchor="mm"
        )
    else:
        draw.text((52, _MID_TOP + 50), "closed", fill=_INK, font=font, anchor="mm")

    # This step's events in words (reveals get their own column below).
    lines = [describe_event(e, deck) for e in events if e["kind"] not in ("locations", "actions")]
    if len(lines) > _EVENT_LINES:
        lines = [*lines[: _EVENT_LINES - 1], f"… and {len(lines) - _EVENT_LINES + 1} more"]
    for k, line in enumerate(lines):
        draw.text((104, _MID_TOP + 4 + 15 * k), line[:90], fill=_INK, font=font)

    # One row per player: money, hand size, revealed choice, public collection.
    reveals = _reveals(events, n)
    row = (_ROWS_BOTTOM - _ROWS_TOP) // 6
    for p in range(n):
        top = _ROWS_TOP + p * row
        draw.rectangle((12, top + 3, 22, top + 13), fill=_PLAYER_COLORS[p], outline=_INK)
        draw.text((28, top + 1), f"player_{p}", fill=_INK, font=font)
        draw.text(
            (100, top + 1),
            f"space {state.positions[p]:>2}   money {state.money[p]:>3}   cards {len(state.hands[p]):>2}",
            fill=_INK,
            font=font,
        )
        if reveals[p]:
            draw.text((WIDTH - 12, top + 1), reveals[p], fill=_PLAYER_COLORS[p], font=font, anchor="ra")
        known = sorted(state.public[p], key=lambda c: (deck.series[c], deck.year[c]))
        chip, fit = 34, (WIDTH - 56) // 34
        for k, c in enumerate(known[:fit]):
            img.paste(_chip(deck.series[c], card_text(c, deck)), (28 + k * chip, top + 18))
        if len(known) > fit:
            draw.text((WIDTH - 12, top + 27), f"+{len(known) - fit}", fill=_INK, font=font, anchor="rm")
    return np.asarray(img, dtype=np.uint8)
