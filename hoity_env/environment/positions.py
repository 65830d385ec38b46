"""Hand-made positions: ``reset(options={"position": ...})`` of the parallel and the batched env.

A position (an endgame study, a rule's scenario) is a state dict as :meth:`GameState.to_dict` writes it, of
this env's rules and player count, of a game in progress.  It passes every invariant of the rules but none
that ties it to a past (the money spent, the lots sold), which ``set_state`` checks; one that is over, or at
``max_cycles``, is refused with a :class:`~hoity_env.engine.errors.StateError`.
See docs/environment.md (Hand-made positions).
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
    """The ``"position"`` of ``reset``'s ``options`` (``None`` or a dict); other keys are left alone,
    as Gymnasium and PettingZoo envs leave options they do not know.
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
    """``data`` (a state dict or a ``GameState``) as a new state of ``game``, checked as a hand-made
    position; :class:`StateError` names ``where`` and the field.
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
