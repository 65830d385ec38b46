"""The original ruleset's board as a picture (RULES O-1 … O-9): ``rgb_array`` under ``rules="original"``.

The standard frame and drawing parts, laid out for the 1990 game: the castles above the track
with their rewards (O-9), both lots and pile sizes, the jail and the register, and one row per
player with its checks, numbered thieves, reveal and public collection.  Only public
information is drawn, as in the original observation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from hoity_env.engine.actions import NUM_LOTS
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.original.state import OriginalState
from hoity_env.engine.state import GameState
from hoity_env.environment.render.draw import (
    BG,
    GRID,
    INK,
    LEFT,
    PLAYER_COLORS,
    WIDTH,
    badge,
    blank,
    cell_width,
    draw_card,
    draw_collection,
    draw_events,
    draw_pawns,
    draw_player_label,
    draw_title,
    draw_track_grid,
    fit_text,
    font,
    reveal_texts,
)

__all__ = ["original_board_image"]

_STRIP_TOP, _STRIP_BOTTOM = 30, 44
_TRACK_TOP, _LANE = 46, 10
_MID_TOP, _MID_BOTTOM = 122, 222
_ROWS_TOP, _ROWS_BOTTOM = 228, 476
_AUCTION = (12, 168)
_JAIL = (176, 330)
_EVENTS_LEFT, _EVENT_LINES = 338, 7
_CHECK_FILL = (222, 236, 208)
_JAILED = (205, 200, 190)
_LOW_TIER, _HIGH_TIER = (240, 231, 206), (204, 170, 104)


def _castle_span(castle: int, finish: int) -> tuple[float, float]:
    """Left and right x of castle ``castle`` (0: the club room, space 0) on the track."""
    cell = cell_width(finish)
    if castle == 0:
        return LEFT, LEFT + cell
    return LEFT + (2 * castle - 1) * cell, LEFT + min(2 * castle + 1, finish + 1) * cell


def _castle_of(position: int, rules: RulesConfig) -> int:
    """The castle under a pawn on ``position`` (0: the club room), as ``RulesConfig.castle_reward`` has it."""
    if position <= 0:
        return 0
    return min((position + 1) // 2, len(rules.castle_rewards))


def _tier_color(big: int, low: int, high: int) -> tuple[int, int, int]:
    """A castle's shade: pale for the smallest big reward, gold for the largest."""
    t = 0.0 if high == low else (big - low) / (high - low)
    red, green, blue = (round(a + t * (b - a)) for a, b in zip(_LOW_TIER, _HIGH_TIER, strict=True))
    return red, green, blue


@lru_cache(maxsize=16)
def _background(num_players: int, rules: RulesConfig) -> Image.Image:
    """Everything that stays put during an original game of this shape and these rules."""
    img = blank()
    draw = ImageDraw.Draw(img)
    small = font(10)
    finish = rules.finish
    rewards = (rules.club_reward, *rules.castle_rewards)
    bigs = [big for big, _ in rewards]
    for castle, (big, little) in enumerate(rewards):
        x0, x1 = _castle_span(castle, finish)
        if x0 >= x1:
            continue
        draw.rectangle(
            (round(x0), _STRIP_TOP, round(x1), _STRIP_BOTTOM),
            fill=_tier_color(big, min(bigs), max(bigs)),
            outline=GRID,
        )
        label = f"{big}/{little}"
        if draw.textlength(label, font=small) <= x1 - x0 - 2:
            draw.text(
                ((x0 + x1) / 2, (_STRIP_TOP + _STRIP_BOTTOM) / 2), label, fill=INK, font=small, anchor="mm"
            )
    draw_track_grid(draw, num_players, finish, _TRACK_TOP, _LANE, max(1, round(finish / 8)))

    draw.rectangle((_AUCTION[0], _MID_TOP, _AUCTION[1], _MID_BOTTOM), outline=GRID)
    draw.text((sum(_AUCTION) / 2, _MID_TOP + 3), "Auction House", fill=INK, font=small, anchor="mt")
    for i in range(NUM_LOTS):
        draw.text((_lot_x(i), _MID_TOP + 15), f"lot {i}", fill=INK, font=small, anchor="mt")
    draw.rectangle((_JAIL[0], _MID_TOP, _JAIL[1], _MID_BOTTOM), outline=GRID)
    draw.text((sum(_JAIL) / 2, _MID_TOP + 3), "jail (cell 1 first)", fill=INK, font=small, anchor="mt")
    for cell in range(num_players):
        x0 = _cell_x(cell, num_players)
        draw.rectangle((x0, _MID_TOP + 17, x0 + 21, _MID_TOP + 38), fill=BG, outline=INK)
        draw.text((x0 + 11, _MID_TOP + 41), str(cell + 1), fill=INK, font=small, anchor="mt")
    draw.line((0, _ROWS_TOP - 3, WIDTH, _ROWS_TOP - 3), fill=GRID)
    return img


def _lot_x(lot: int) -> float:
    """Centre x of lot ``lot`` in the Auction House box."""
    width = (_AUCTION[1] - _AUCTION[0]) / NUM_LOTS
    return _AUCTION[0] + width * (lot + 0.5)


def _cell_x(cell: int, num_players: int) -> int:
    """Left x of jail cell ``cell`` (the cells are centred in the jail box)."""
    total = 24 * num_players - 2
    return round(_JAIL[0] + (_JAIL[1] - _JAIL[0] - total) / 2) + 24 * cell


def _thief_badge(number: int, owner: int, coloured: bool) -> Image.Image:
    """A thief by number: in its owner's colour, or greyed (a row's thief while it sits in jail)."""
    width = max(17, 5 + 6 * len(str(number)))
    if coloured:
        return badge(str(number), PLAYER_COLORS[owner], (255, 255, 255), width, True)
    return badge(str(number), _JAILED, (120, 114, 106), width, True)


def _check_badge(value: int) -> Image.Image:
    """A check in hand by its value (O-2)."""
    return badge(str(value), _CHECK_FILL, INK, 8 + 6 * len(str(value)), False)


def _draw_table(img: Image.Image, draw: ImageDraw.ImageDraw, state: OriginalState) -> None:
    """The leader's castle, the lots and piles, the jail and the register."""
    small = font(10)
    x0, x1 = _castle_span(_castle_of(max(state.positions), state.rules), state.rules.finish)
    draw.rectangle((round(x0), _STRIP_TOP - 1, round(x1), _STRIP_BOTTOM + 1), outline=INK, width=2)
    for i in range(NUM_LOTS):
        x = _lot_x(i)
        box = (round(x - 20), _MID_TOP + 28, round(x + 20), _MID_TOP + 80)
        if state.lots[i] >= 0:
            draw_card(draw, box, state.lots[i], state.deck)
        else:
            draw.rounded_rectangle(box, 5, outline=GRID)
            draw.text((x, _MID_TOP + 54), "sold out", fill=INK, font=small, anchor="mm")
        draw.text((x, _MID_TOP + 85), f"pile {len(state.piles[i])}", fill=INK, font=small, anchor="mt")
    for cell, thief in enumerate(state.jail):
        img.paste(
            _thief_badge(thief, state.thief_owner[thief], True),
            (_cell_x(cell, state.num_players) + 3, _MID_TOP + 20),
        )
    register = ", ".join(str(v) for v in state.register) or "empty"
    room = _JAIL[1] - _JAIL[0] - 12
    draw.text(
        (_JAIL[0] + 6, _MID_TOP + 58), fit_text(draw, f"register: {register}", 10, room), fill=INK, font=small
    )
    big, little = state.leader_reward()
    draw.text((_JAIL[0] + 6, _MID_TOP + 72), f"leader's castle pays {big} / {little}", fill=INK, font=small)
    finish = state.rules.finish
    draw.text((_JAIL[0] + 6, _MID_TOP + 86), f"dinner table: space {finish}", fill=INK, font=small)


def _draw_row(img: Image.Image, draw: ImageDraw.ImageDraw, state: OriginalState, p: int, reveal: str) -> None:
    """Player ``p``'s row: space, hand size, checks, thieves, revealed choice, public collection."""
    top = _ROWS_TOP + p * ((_ROWS_BOTTOM - _ROWS_TOP) // 6)
    text = font(12)
    draw_player_label(draw, p, top)
    draw.text(
        (96, top + 1), f"space {state.positions[p]:>2}  cards {len(state.hands[p]):>2}", fill=INK, font=text
    )
    end = WIDTH - 12
    if reveal:
        draw.text((end, top + 1), reveal, fill=PLAYER_COLORS[p], font=text, anchor="ra")
        end -= round(draw.textlength(reveal, font=text)) + 10
    thieves = [_thief_badge(t, p, t not in state.jail) for t in state.thieves[p]]
    x = 206
    room = end - x - sum(b.width + 3 for b in thieves) - 8
    checks = [_check_badge(v) for v in state.checks[p]]
    widths = [c.width + 3 for c in checks]
    if sum(widths) > room:
        room -= 22  # keep space for the "+k" of the checks left out
    shown = 0
    while shown < len(checks) and widths[shown] <= room:
        img.paste(checks[shown], (x, top + 1))
        room -= widths[shown]
        x += widths[shown]
        shown += 1
    if shown < len(checks):
        draw.text((x, top + 1), f"+{len(checks) - shown}", fill=INK, font=text)
        x += 22
    x += 8
    for b in thieves:
        img.paste(b, (x, top + 1))
        x += b.width + 3
    draw_collection(img, draw, state, p, top + 19)


def original_board_image(state: GameState, events: Sequence[Mapping[str, Any]] = ()) -> np.ndarray:
    """The public board of an original-ruleset game after a step whose events are ``events``."""
    if not isinstance(state, OriginalState):
        raise TypeError(f"the original board draws an OriginalState, got {type(state).__name__}")
    n, finish = state.num_players, state.rules.finish
    img = _background(n, state.rules).copy()
    draw = ImageDraw.Draw(img)
    piles = "/".join(str(len(pile)) for pile in state.piles)
    draw_title(draw, state, f"piles {piles}")
    draw_pawns(draw, state.positions, finish, _TRACK_TOP, _LANE)
    _draw_table(img, draw, state)
    draw_events(
        draw, events, state.deck, (_EVENTS_LEFT, _MID_TOP + 2), _EVENT_LINES, WIDTH - 12 - _EVENTS_LEFT, 11
    )
    reveals = reveal_texts(events, n)
    for p in range(n):
        _draw_row(img, draw, state, p, reveals[p])
    return np.asarray(img, dtype=np.uint8)
