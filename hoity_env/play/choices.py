"""The legal choices of one decision, by name, and the reading of what a person types.

A decision offers the legal actions of the mask only: numbered, named, and with
short forms (``a``/``auction``, ``t``/``thief``, a bid as a number).  Anything
else is answered with a message saying what is accepted, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hoity_env.engine.actions import check_of_action
from hoity_env.environment.codec import ActionCodec

__all__ = ["Choice", "Menu", "menu"]

_LABELS = {
    "auction": "go to the Auction House",
    "castle": "go to the Castle",
    "exhibit": "exhibit your best collection",
    "thief": "thief: rob the best exhibition",
    "detective": "detective: catch the thieves",
}


@dataclass(frozen=True)
class Choice:
    """One legal action: its index, a label, and the words that pick it."""

    action: int
    label: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class Menu:
    """The choices of a decision and its default (picked by an empty answer)."""

    choices: tuple[Choice, ...]
    default: int
    bids: tuple[int, ...]
    """Legal bid amounts (empty outside an auction action step)."""

    def describe(self) -> str:
        """The choices as a person reads them."""
        if len(self.bids) == 1:
            return f"your bid: {self.bids[0]} (the only legal bid: you are the lone bidder)"
        if self.bids:
            return f"your bid: {_ranges(self.bids)} (0 = no bid)"
        return "  ".join(f"{k}) {c.label}" for k, c in enumerate(self.choices, start=1))

    def default_text(self, codec: ActionCodec) -> str:
        """The default's name."""
        return codec.describe(self.default)

    def read(self, answer: str) -> int | None:
        """The action ``answer`` picks, the default for an empty answer, or ``None``."""
        text = answer.strip().lower()
        if not text:
            return self.default
        if self.bids:
            if text.isdigit() and int(text) in self.bids:
                return next(c.action for c in self.choices if c.words[0] == text)
            return None
        if text.isdigit() and 1 <= int(text) <= len(self.choices):
            return self.choices[int(text) - 1].action
        for c in self.choices:
            if text in c.words:
                return c.action
        return None


def _ranges(values: tuple[int, ...]) -> str:
    """``0-12`` style text for sorted integers."""
    parts = []
    start = prev = values[0]
    for v in [*values[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(parts)


def menu(mask: np.ndarray, codec: ActionCodec, default: int) -> Menu:
    """The menu of the legal actions in ``mask``; ``default`` must be one of them."""
    choices = []
    bids = []
    for a in np.flatnonzero(mask):
        group, value = codec.decode(int(a))
        if group == "bid" and isinstance(value, int):
            bids.append(value)
            choices.append(Choice(int(a), f"bid {value}", (str(value),)))
        elif group == "check":  # original ruleset (RULES O-4): "15b" = check 15 for lot 1
            amount, lot = check_of_action(int(a))
            choices.append(Choice(int(a), f"check {amount} for lot {'ab'[lot]}", (f"{amount}{'ab'[lot]}",)))
        elif group in ("castle", "auction_thief"):  # original ruleset: numbered thieves, auction thief
            label = {"thief_low": "your lower-numbered thief", "thief_high": "your higher-numbered thief"}
            text = "thief: take the winning check" if group == "auction_thief" else label.get(str(value), "")
            choices.append(Choice(int(a), text or _LABELS.get(str(value), str(value)), (str(value),)))
        else:
            name = str(value)
            choices.append(Choice(int(a), _LABELS.get(name, name), (name, name[0])))
    if not mask[default]:
        raise ValueError(f"default action {default} is not legal")
    return Menu(tuple(choices), default, tuple(bids))
