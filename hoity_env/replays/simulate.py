"""Re-simulate a replay from its seed and actions, check every event, and group it by round.

The check needs nothing but the rules engine: the deal comes from the header's
seed, each step's joint action is applied by ``Game.step`` (which refuses an
illegal one), and the events it returns must equal the recorded ones.  The first
difference raises :class:`ReplayError` naming the round, the step and the event.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from hoity_env.engine.actions import Phase
from hoity_env.engine.errors import ConfigError, IllegalActionError
from hoity_env.engine.game import Game
from hoity_env.engine.state import GameState
from hoity_env.replays.format import Replay, ReplayError, ReplayMismatch, StepRecord

__all__ = ["RoundView", "iter_rounds", "resimulate", "rounds"]


@dataclass(frozen=True)
class RoundView:
    """One round as replayed: its events (both steps) and a copy of the state after it.

    ``round`` is ``-1`` for the deal (before any step).  A game stopped halfway
    through a round ends with that round's location step only.
    """

    round: int
    events: tuple[dict[str, Any], ...]
    state: GameState


def _first_difference(recorded: tuple[dict[str, Any], ...], actual: list[dict[str, Any]]) -> str:
    for k, (a, b) in enumerate(zip(recorded, actual, strict=False)):
        if a != b:
            return f"event {k}: recorded {a} but the rules give {b}"
    return f"recorded {len(recorded)} events but the rules give {len(actual)}"


def resimulate(
    replay: Replay, steps: Iterable[StepRecord] | None = None
) -> Iterator[tuple[StepRecord, GameState]]:
    """Yield each step record with the state right after it; raise :class:`ReplayError` on a mismatch.

    ``steps`` defaults to ``replay.steps``; pass the iterator of :func:`open_replay` to check a
    file while it is read (one line in memory at a time; the state is the one being played,
    so copy it to keep it).  The first yield is the deal.
    """
    try:
        game = Game(replay.rules, replay.num_players)
    except ConfigError as exc:
        raise ReplayError(f"the replay's game cannot be built: {exc}") from exc
    state = game.new_state(replay.seed)
    yield StepRecord(-1, -1, "deal", (), ()), state
    size = game.layout.size
    for record in replay.steps if steps is None else steps:
        phase = "location" if state.phase is Phase.LOCATION else "action"
        where = f"round {record.round + 1} ({record.phase} step, step {record.step})"
        if state.done:
            raise ReplayMismatch(f"{where}: the game was already over")
        if (record.round, record.phase) != (state.round, phase):
            raise ReplayMismatch(
                f"{where}: the rules are at round {state.round + 1} ({phase} step) at this point"
            )
        if len(record.actions) != replay.num_players:
            raise ReplayMismatch(f"{where}: {len(record.actions)} actions for {replay.num_players} players")
        if not all(0 <= a < size for a in record.actions):
            raise ReplayMismatch(f"{where}: the recorded actions are not all in [0, {size})")
        try:
            events = [e.to_dict() for e in game.step(state, record.actions)]
        except (IllegalActionError, ValueError) as exc:
            raise ReplayMismatch(f"{where}: the recorded actions are not legal here: {exc}") from exc
        if events != list(record.events):
            raise ReplayMismatch(f"replay diverges at {where}: {_first_difference(record.events, events)}")
        yield record, state
    end = replay.end
    if end is not None and end["reason"] != "quit":
        got = {"rounds": state.round, "winners": list(state.winners), "positions": list(state.positions)}
        want = {k: end.get(k) for k in got}
        if got != want:
            raise ReplayMismatch(f"the end line says {want} but the replayed game ends with {got}")


def iter_rounds(replay: Replay, steps: Iterable[StepRecord] | None = None) -> Iterator[RoundView]:
    """The checked game round by round, as it is re-simulated: the deal, then each round.

    A game stopped halfway through a round ends with that round's location step only.
    ``steps`` as for :func:`resimulate` (stream a file through it with :func:`open_replay`).
    """
    events: list[dict[str, Any]] = []
    pending: RoundView | None = None  # a location step whose action step may not come
    for record, state in resimulate(replay, steps):
        events.extend(record.events)
        if record.phase == "location":
            pending = RoundView(record.round, tuple(events), state.clone())
            continue
        pending = None
        yield RoundView(record.round, tuple(events), state.clone())
        events = []
    if pending is not None:
        yield pending


def rounds(replay: Replay) -> list[RoundView]:
    """The checked game round by round (:func:`iter_rounds` of ``replay.steps``, as a list)."""
    return list(iter_rounds(replay))
