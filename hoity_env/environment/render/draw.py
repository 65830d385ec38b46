"""Drawing parts both rulesets' board pictures share (Pillow): title bar, track, pawns, cards,
collections, reveals and events, so the two pictures look like one game.

Everything drawn is public (RULES C-5).  Text is the slow part of a frame, so small images
that repeat are drawn once and pasted (:func:`chip`, :func:`badge`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageColor, ImageDraw, ImageFont

from hoity_env.engine.cards import Deck
from hoity_env.engine.state import GameState, card_text
from hoity_env.environment.render.text import describe_event

__all__ = [
    "BG",
    "FRAME_SHAPE",
    "GRID",
    "HEIGHT",
    "INK",
    "LEFT",
    "PLAYER_COLORS",
    "RIGHT",
    "SERIES_COLORS",
    "WIDTH",
    "badge",
    "chip",
    "draw_card",
    "draw_collection",
    "draw_events",
    "draw_pawns",
    "draw_player_label",
    "draw_title",
    "draw_track_grid",
    "fit_text",
    "font",
    "reveal_texts",
]

HEIGHT, WIDTH = 480, 640
FRAME_SHAPE = (HEIGHT, WIDTH, 3)
"""``(height, width, 3)`` of every frame, whatever the ruleset and player count."""
LEFT, RIGHT = 12, WIDTH - 12
"""Horizontal margins of the track and the rows."""

BG = (246, 241, 228)
INK = (40, 36, 32)
GRID = (200, 190, 170)
BAR = (60, 52, 70)
FINISH_FILL = (226, 214, 186)
WHITE = (255, 255, 255)
PLAYER_COLORS: tuple[tuple[int, int, int], ...] = tuple(
    ImageColor.getrgb(c)[:3] for c in ["#d64541", "#346ec4", "#3ca050", "#e88c1e", "#8c50b4", "#1ea0aa"]
)
"""Seat colours, seat 0 first (written as CSS hex colours, the form a designer hands over)."""
SERIES_COLORS: tuple[tuple[int, int, int], ...] = tuple(
    ImageColor.getrgb(c)[:3] for c in ["#ba4a4a", "#4678aa", "#609646", "#c8a028", "#965aa0", "#6e6e6e"]
)
"""Card series colours, series 0 first."""


@lru_cache(maxsize=4)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` pixels (no font file to install or find)."""
    return ImageFont.load_default(size=size)


def blank() -> Image.Image:
    """An empty frame with the title bar's band."""
    img = Image.new("RGB", (WIDTH, HEIGHT), BG)
    ImageDraw.Draw(img).rectangle((0, 0, WIDTH, 26), fill=BAR)
    return img


def cell_width(finish: int) -> float:
    """Width of one track space: spaces 0 … ``finish`` fill the track."""
    return (RIGHT - LEFT) / (finish + 1)


def draw_track_grid(
    draw: ImageDraw.ImageDraw, num_players: int, finish: int, top: int, lane: int, label_every: int
) -> int:
    """The track's grid (one lane per seat, the finish space shaded) and its numbers; returns its bottom."""
    cell = cell_width(finish)
    bottom = top + lane * num_players
    for k in range(finish + 2):
        x = round(LEFT + k * cell)
        draw.line((x, top, x, bottom), fill=GRID)
    for p in range(num_players + 1):
        y = top + p * lane
        draw.line((LEFT, y, RIGHT, y), fill=GRID)
    for k in range(0, finish + 1, label_every):
        draw.text((LEFT + (k + 0.5) * cell, bottom + 2), str(k), fill=INK, font=font(10), anchor="mt")
    draw.rectangle((round(LEFT + finish * cell) + 1, top + 1, RIGHT - 1, bottom - 1), fill=FINISH_FILL)
    return bottom


def draw_pawns(draw: ImageDraw.ImageDraw, positions: Sequence[int], finish: int, top: int, lane: int) -> None:
    """Every seat's pawn in its lane (a pawn past the finish stands on it)."""
    cell = cell_width(finish)
    radius = max(2.0, min(cell / 2 - 1.5, lane / 2 - 1))
    for p, position in enumerate(positions):
        x = LEFT + (min(position, finish) + 0.5) * cell
        y = top + (p + 0.5) * lane
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=PLAYER_COLORS[p], outline=INK)


def draw_title(draw: ImageDraw.ImageDraw, state: GameState, right: str) -> None:
    """The title bar: the round and next step (or the outcome), and ``right`` at its right end."""
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
    light = (235, 230, 220)
    draw.text((10, 13), "Hoity Toity", fill=WHITE, font=font(16), anchor="lm")
    draw.text((130, 13), title, fill=light, font=font(12), anchor="lm")
    draw.text((WIDTH - 10, 13), right, fill=light, font=font(12), anchor="rm")


def draw_card(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], card: int, deck: Deck) -> None:
    """A face-up antique on display in ``box``: its series letter and year on the series colour."""
    series = deck.series[card]
    x0, y0, x1, y1 = box
    middle = (x0 + x1) / 2
    draw.rounded_rectangle(box, 5, fill=SERIES_COLORS[series])
    draw.text((middle, y0 + (y1 - y0) * 11 / 34), "ABCDEF"[series], fill=WHITE, font=font(16), anchor="mm")
    draw.text(
        (middle, y0 + (y1 - y0) * 23 / 34), str(deck.year[card]), fill=WHITE, font=font(12), anchor="mm"
    )


@lru_cache(maxsize=1024)
def chip(series: int, text: str) -> Image.Image:
    """A card of a public collection, drawn once and pasted."""
    img = Image.new("RGB", (31, 19), SERIES_COLORS[series])
    ImageDraw.Draw(img).text((15, 9), text, fill=WHITE, font=font(10), anchor="mm")
    return img


@lru_cache(maxsize=256)
def badge(
    text: str, fill: tuple[int, int, int], ink: tuple[int, int, int], width: int, round_: bool
) -> Image.Image:
    """A small labelled token (a check, a thief), drawn once and pasted: ``width`` x 15 pixels."""
    img = Image.new("RGB", (width, 15), BG)
    draw = ImageDraw.Draw(img)
    if round_:
        draw.ellipse((0, 0, width - 1, 14), fill=fill, outline=INK)
    else:
        draw.rectangle((0, 0, width - 1, 14), fill=fill, outline=INK)
    draw.text((width / 2, 7.5), text, fill=ink, font=font(10), anchor="mm")
    return img


def draw_player_label(draw: ImageDraw.ImageDraw, player: int, top: int) -> None:
    """The colour square and name that start a player's row."""
    draw.rectangle((12, top + 3, 22, top + 13), fill=PLAYER_COLORS[player], outline=INK)
    draw.text((28, top + 1), f"player_{player}", fill=INK, font=font(12))


def draw_collection(
    img: Image.Image, draw: ImageDraw.ImageDraw, state: GameState, player: int, y: int
) -> None:
    """``player``'s publicly known cards (C-5), by series and year, as chips from the row's left."""
    deck = state.deck
    known = sorted(state.public[player], key=lambda c: (deck.series[c], deck.year[c]))
    step, fit = 34, (WIDTH - 56) // 34
    for k, c in enumerate(known[:fit]):
        img.paste(chip(deck.series[c], card_text(c, deck)), (28 + k * step, y))
    if len(known) > fit:
        draw.text((WIDTH - 12, y + 9), f"+{len(known) - fit}", fill=INK, font=font(12), anchor="rm")


def _reveal_text(act: Mapping[str, Any]) -> str:
    if act["location"] == "auction":
        if "bid" not in act:
            return "auction: thief"
        if "lot" in act:
            return f"auction: check {act['bid']} for lot {act['lot']}"
        return f"auction: bid {act['bid']}"
    number = f" {act['thief']}" if "thief" in act else ""
    return f"castle: {act['role']}{number}"


def reveal_texts(events: Sequence[Mapping[str, Any]], num_players: int) -> list[str]:
    """Each seat's revealed choice this step (location, then bid, check or role), '' before any reveal."""
    out = [""] * num_players
    for event in events:
        if event["kind"] == "locations":
            out = [str(loc) for loc in event["locations"]]
        elif event["kind"] == "actions":
            out = [_reveal_text(act) for act in event["actions"]]
    return out


def draw_events(
    draw: ImageDraw.ImageDraw,
    events: Sequence[Mapping[str, Any]],
    deck: Deck,
    at: tuple[int, int],
    max_lines: int,
    width: int,
    size: int = 12,
) -> None:
    """The step's events in words (reveals are drawn per player): ``max_lines`` lines of ``width`` px."""
    lines = [describe_event(e, deck) for e in events if e["kind"] not in ("locations", "actions")]
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], f"… and {len(lines) - max_lines + 1} more"]
    face = font(size)
    for k, line in enumerate(lines):
        draw.text((at[0], at[1] + (size + 3) * k), fit_text(draw, line, size, width), fill=INK, font=face)


def fit_text(draw: ImageDraw.ImageDraw, text: str, size: int, width: float) -> str:
    """``text``, cut and ended with "…" where it is wider than ``width`` pixels at font ``size``."""
    face = font(size)
    if draw.textlength(text, font=face) <= width:
        return text
    while text and draw.textlength(text + "…", font=face) > width:
        text = text[:-1]
    return text + "…"
