"""Hand-made positions: ``reset(options={"position": ...})`` of the parallel and the batched env.

An endgame study, a teaching position or a rule's scenario is a game set up by
hand: three cards in one hand and none in the others, a pawn two spaces from the
finish, money that no history of bids could leave.  ``set_state`` refuses such
positions, on purpose: it restores snapshots of games the env could have played,
so it checks the history a state implies (the money spent, the lots sold).  A
position instead passes :meth:`GameState.from_dict` with ``hand_made=True``: every
invariant of the rules (each card in exactly one place, money within bounds,
track, phase, tallies, the outcome) but none that ties it to a past.

What a position is: a state dict as :meth:`GameState.to_dict` writes it (or a
``GameState``) of this env's rules and player count, of a game still in
progress.  The easy way to write one is to deal a game and change what the
position needs::

    d = env.game.new_state(0).to_dict()      # or env.game_state.to_dict() after reset
    d.update(hands=..., positions=..., money=...)
    env.reset(options={"position": d})

From there the env plays the engine's own game: the observations, masks,
rewards and events are exactly those of ``Game.step`` on that state.  The
position counts as ``2·round + phase`` steps already played (as after
``set_state``), so ``max_cycles`` and the round limit count them; a position
that is over, or at ``max_cycles`` already, is refused.  A bad position raises
one :class:`~hoity_env.engine.errors.StateError` naming the field, and the env
is left as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hoity_env.engine.actions import Phase
from hoity_env.engine.errors import ConfigError, StateError
from hoity_env.engine.game import Game
from hoity_env.engine.state import GameState

__all__ = ["POSITION", "played_steps", "position_option", "read_position", "read_positions"]

POSITION = "position"
"""The key of ``reset(options=...)`` that holds a position."""


def position_option(options: Any) -> Any:
    """The ``"position"`` of ``reset``'s ``options`` (``None`` when there is none).

    ``options`` is ``None`` or a dict.  Other keys are left alone, as Gymnasium and
    PettingZoo envs leave the options they do not know (PettingZoo's ``api_test``
    passes ``{"options": 1}``, and a wrapper may pass options of its own).
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise ConfigError(f"reset options must be a dict or None, got {type(options).__name__}")
    return options.get(POSITION)


def played_steps(state: GameState) -> int:
    """The env steps a game in ``state`` has played: two per completed round, one more in the action step."""
    return 2 * state.round + int(state.phase is Phase.ACTION)


def read_position(game: Game, data: Any, max_cycles: int | None, where: str = "position") -> GameState:
    """``data`` (a state dict or a ``GameState``) as a new state of ``game``, checked as a hand-made position.

    Raises :class:`StateError` naming ``where`` and the field at fault; ``data`` is never changed.
    """
    if isinstance(data, GameState):
        data = data.to_dict()
    if not isinstance(data, dict):
        raise StateError(
            f"{where} must be a state dict (GameState.to_dict()) or a GameState, got {data!r:.80}"
        )
    try:
        state = game.state_from_dict(data, hand_made=True)
    except StateError as exc:
        raise StateError(f"{where}: {exc}") from exc
    if state.done:
        outcome = "decided" if state.terminated else "truncated at the round limit"
        raise StateError(f"{where}: the game is over ({outcome}); a position to play is a game in progress")
    steps = played_steps(state)
    if max_cycles is not None and steps >= max_cycles:
        raise StateError(
            f"{where}: round {state.round} ({steps} steps played) is at or past max_cycles={max_cycles}"
        )
    return state


def read_positions(game: Game, data: Any, count: int, max_cycles: int | None) -> list[GameState]:
    """One checked state per game of a batch: one position for all ``count`` games, or a list of ``count``."""
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        if len(data) != count:
            raise StateError(
                f"position: a list of {len(data)} positions for {count} games "
                "(give one position for every game, or a list with one per game)"
            )
        return [read_position(game, d, max_cycles, f"position[{k}]") for k, d in enumerate(data)]
    state = read_position(game, data, max_cycles)
    return [state] * count  # the batch copies each game in (BatchState.from_states)
