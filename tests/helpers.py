"""Helpers to build hand-made game states and play rounds in the rules tests.

Series numbers: RULES.md numbers the series 1-6, the engine 0-5.  Helpers here take
*engine* (0-based) series unless their name says ``rule``.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tomllib

from hoity_env.engine import STANDARD, BatchedGame, Event, EventKind, Game, GameState, RulesConfig
from hoity_env.engine.actions import BID0
from hoity_env.engine.cards import Deck

ROOT = Path(__file__).resolve().parent.parent
"""The repository's root folder (the tests read its docs, scripts and result files)."""

RULESETS = ("standard", "original")
"""Both rulesets: the contract, conformance, property, determinism and no-leak tests run for each."""

FAST_TINY = {"num_games": 8, "rollout_steps": 64, "minibatch_size": 256}
"""The fast learner in the best-response tests: 8 games x 64 steps, 512 learner steps per rollout."""

__all__ = [
    "FAST_TINY",
    "ROOT",
    "RULESETS",
    "SideBySide",
    "api_pages",
    "bid",
    "card_places",
    "cards_of_series",
    "events_of",
    "make_state",
    "npz_members",
    "oldest_of_series",
    "play_round",
    "public_modules",
    "rule_series",
    "tiny_training",
]

_FIXED_KEYS = frozenset({"version", "rules", "num_players", "terminated", "truncated", "winners", "rng"})
"""``to_dict`` keys ``make_state`` does not take: set by the game, or outcomes and the generator."""


def tiny_training(runs_dir: Path, ppo: dict[str, Any] = FAST_TINY, learner: str = "fast") -> dict[str, Any]:
    """The keywords every best-response test passes: its run folder, no progress bar, tiny settings."""
    return {"runs_dir": runs_dir, "progress": False, "ppo": ppo, "learner": learner}


def api_pages() -> Any:
    """docs/_generate/api_pages.py, the API reference's page writer."""
    sys.path.insert(0, str(ROOT / "docs" / "_generate"))
    import api_pages

    return api_pages


def public_modules() -> set[str]:
    """Modules a user is pointed to: named in a package's ``__all__``, or imported by a console script."""
    names = set(api_pages().module_names())
    public = set()
    for package in sorted(n for n in names if (ROOT / n.replace(".", "/") / "__init__.py").is_file()):
        if package == "hoity_env.integrations":
            continue  # its modules import ray (the rllib extra); its __all__ is empty anyway
        exported = getattr(importlib.import_module(package), "__all__", [])
        public |= {f"{package}.{name}" for name in exported} & names
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    for target in scripts.values():
        cli = target.partition(":")[0]
        public.add(cli)
        tree = ast.parse((ROOT / (cli.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hoity_env"):
                public |= ({node.module} | {f"{node.module}.{a.name}" for a in node.names}) & names
            elif isinstance(node, ast.Import):
                public |= {a.name for a in node.names} & names
    return public


def npz_members(manifest: Path) -> set[str]:
    """The file names of a population manifest's own ``npz:`` members (they lie beside it)."""
    from hoity_env.agents.policies.population import read_population

    return {m.spec.removeprefix("npz:") for m in read_population(manifest) if m.spec.startswith("npz:")}


def bid(amount: int) -> int:
    """Flat action index of a bid of ``amount`` (0 = no bid)."""
    return BID0 + amount


def rule_series(series: int) -> int:
    """Engine (0-based) series of RULES.md's 1-based series number."""
    return series - 1


def cards_of_series(deck: Deck, series: int) -> list[int]:
    """Card ids of an engine series, oldest (smallest year) first."""
    return sorted((k for k in range(deck.size) if deck.series[k] == series), key=lambda k: deck.year[k])


def oldest_of_series(deck: Deck, series: int, count: int = 1, skip: int = 0) -> list[int]:
    """The ``count`` oldest cards of an engine series after skipping the ``skip`` oldest."""
    cards = cards_of_series(deck, series)[skip : skip + count]
    assert len(cards) == count, f"series {series} has too few cards"
    return cards


def make_state(
    num_players: int = 4,
    rules: RulesConfig | None = None,
    *,
    seed: int = 0,
    spare_to: int | None = None,
    **overrides: Any,
) -> GameState:
    """A hand-made, fully consistent state.

    Starts from ``Game(rules, num_players).new_state(seed).to_dict()`` and applies
    ``overrides`` (any :meth:`GameState.to_dict` key: ``hands``, ``public``,
    ``positions``, ``money``, ``lot``, ``draw_pile``, ``locations``, ``phase``,
    ``start_player``, ``round`` …).  Hands default to empty, ``public`` to nothing
    known.  Every card not placed explicitly (in a hand, as the lot or in the given
    draw pile) goes to the *bottom* of the draw pile (the top is the last element),
    or to ``spare_to``'s hand when that is given (needed for an empty draw pile).
    Without an explicit ``lot`` the lot is a free card (or -1 when none is left).
    """
    rules = STANDARD if rules is None else rules
    game = Game(rules, num_players)
    d = game.new_state(seed).to_dict()
    unknown = set(overrides) - (set(d) - _FIXED_KEYS)
    if unknown:
        raise KeyError(f"make_state does not know {sorted(unknown)}")
    n = num_players
    hands: list[list[int]] = [list(h) for h in overrides.pop("hands", [[] for _ in range(n)])]
    assert len(hands) == n, "one hand per player"
    pile: list[int] = list(overrides.pop("draw_pile", []))
    placed = [c for h in hands for c in h] + pile
    if "lot" in overrides:
        lot = overrides.pop("lot")
        if lot >= 0:
            placed.append(lot)
    else:
        lot = None
    assert len(placed) == len(set(placed)), f"a card is placed twice: {placed}"
    free = [c for c in range(game.deck.size) if c not in set(placed)]
    if lot is None:
        lot = free.pop() if free else -1
    if spare_to is None:
        pile = free + pile
    else:
        hands[spare_to].extend(free)
    d["hands"] = hands
    d["draw_pile"] = pile
    d["lot"] = lot
    d["public"] = [sorted(p) for p in overrides.pop("public", [[] for _ in range(n)])]
    d.update(overrides)
    if d["phase"] == "location":
        d["locations"] = overrides.get("locations", [-1] * n)
    return GameState.from_dict(d, hand_made=True)


def play_round(
    game: Game, state: GameState, locations: Sequence[int], actions: Sequence[int]
) -> tuple[list[Event], list[Event]]:
    """Play one full round (C-4): the location step, then the action step (flat indices)."""
    loc_events = game.step(state, list(locations))
    act_events = game.step(state, list(actions))
    return loc_events, act_events


def events_of(events: Sequence[Event], kind: EventKind) -> list[dict[str, Any]]:
    """``to_dict()`` of the events of one kind."""
    return [e.to_dict() for e in events if e.kind is kind]


def card_places(state: GameState) -> dict[int, list[str]]:
    """Every place each card is in (``draw_pile``, ``lot``, ``pile<i>``, ``lot<i>`` or ``hand<p>``)."""
    places: dict[int, list[str]] = {}
    for c in state.draw_pile:
        places.setdefault(c, []).append("draw_pile")
    if state.lot >= 0:
        places.setdefault(state.lot, []).append("lot")
    for i, pile in enumerate(getattr(state, "piles", [])):  # the original ruleset's two piles (O-1)
        for c in pile:
            places.setdefault(c, []).append(f"pile{i}")
    for i, lot in enumerate(getattr(state, "lots", [])):
        if lot >= 0:
            places.setdefault(lot, []).append(f"lot{i}")
    for p, hand in enumerate(state.hands):
        for c in hand:
            places.setdefault(c, []).append(f"hand{p}")
    return places


def assert_same(a: Any, b: Any, where: str = "") -> None:
    """Deep, type-strict equality (arrays: dtype, shape and bits)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} != {b.dtype}"
        assert a.shape == b.shape, f"{where}: shape {a.shape} != {b.shape}"
        assert np.array_equal(a, b), f"{where}: arrays differ"
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def make_original(
    num_players: int = 4,
    rules: RulesConfig | None = None,
    *,
    seed: int = 0,
    hands: Sequence[Sequence[int]] | None = None,
    lots: Sequence[int] | None = None,
    piles: Sequence[Sequence[int]] | None = None,
    spare_to: int | None = None,
    **fields: Any,
) -> Any:
    """A hand-made, validated state of the original ruleset (RULES O-1 … O-9).

    ``hands`` default to empty; ``lots`` default to two free cards; every card not
    placed goes to the bottom of the piles (alternately), or to ``spare_to``'s hand.
    ``fields`` sets any other :meth:`to_dict` key (``checks``, ``register``, ``jail``,
    ``positions``, ``start_player``, ``round``…; ``money`` follows ``checks``).  The
    result passes through ``from_dict``, so it is a state the engine accepts.
    """
    from hoity_env.engine.config import PRESETS

    rules = PRESETS["original"] if rules is None else rules
    game = Game(rules, num_players)
    d = game.new_state(seed).to_dict()
    n = num_players
    hand_lists = [list(h) for h in (hands if hands is not None else [[] for _ in range(n)])]
    pile_lists = [list(p) for p in (piles if piles is not None else [[], []])]
    placed = [c for h in hand_lists for c in h] + [c for p in pile_lists for c in p]
    placed += [c for c in (lots or []) if c >= 0]
    assert len(placed) == len(set(placed)), f"a card is placed twice: {placed}"
    free = [c for c in range(game.deck.size) if c not in set(placed)]
    lot_list = list(lots) if lots is not None else [free.pop() if free else -1 for _ in range(2)]
    if spare_to is not None:
        hand_lists[spare_to].extend(free)
    else:
        for k, c in enumerate(free):
            pile_lists[k % 2].insert(0, c)
    d.update(hands=hand_lists, piles=pile_lists, lots=lot_list, public=[[] for _ in range(n)])
    d.update(fields)
    d["money"] = [sum(c) for c in d["checks"]]
    if "register" not in fields:
        held = {v for c in d["checks"] for v in c}
        d["register"] = sorted(v for seat in rules.checks[:n] for v in seat if v not in held)
    return GameState.from_dict(d, hand_made=True)


class SideBySide:
    """The same games in the one-game and the batched engine, for the differential tests.

    Seeds ``seed0 …`` are dealt to both (``batch`` at a time); a finished game is replaced
    by the next seed in both (``reset_games``) until ``games`` have been dealt, so the batch
    stays full and mixes games in different rounds and phases; then its slot stays empty
    (``None`` in :attr:`scalars`).  :attr:`rng` is the test's, seeded from ``seed0`` and the table.
    """

    def __init__(self, game: Game, batched: BatchedGame, games: int, batch: int, seed0: int) -> None:
        self.game, self.batched = game, batched
        seeds = list(range(seed0, seed0 + min(batch, games)))
        self.next_seed, self.stop = seed0 + len(seeds), seed0 + games
        self.scalars: list[GameState | None] = [game.new_state(s) for s in seeds]
        self.state = batched.deal(seeds)
        self.rng = np.random.default_rng([seed0, game.num_players])

    def live(self) -> list[tuple[int, GameState]]:
        """``(slot, one-game state)`` of each game still playing."""
        return [(k, s) for k, s in enumerate(self.scalars) if s is not None]

    def step(self, actions: np.ndarray) -> np.ndarray:
        """Step every live game in both engines with ``actions`` ``(B, n)``; the batched ``played`` flags."""
        for k, s in self.live():
            self.game.step(s, actions[k].tolist())
        return self.batched.step(self.state, actions)

    def replace(self, ended: list[int]) -> None:
        """Deal the next seeds into the ``ended`` slots while seeds are left; empty the others."""
        fresh = ended[: max(0, self.stop - self.next_seed)]
        for k in ended:
            self.scalars[k] = None
        if fresh:
            seeds = list(range(self.next_seed, self.next_seed + len(fresh)))
            self.next_seed += len(fresh)
            for k, seed in zip(fresh, seeds, strict=True):
                self.scalars[k] = self.game.new_state(seed)
            self.batched.reset_games(self.state, np.asarray(fresh), seeds)
