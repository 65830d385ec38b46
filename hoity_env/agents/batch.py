"""Batched decisions: input checks, random draws and sampling shared by every batched agent.

A batch is ``B`` independent decisions, ``observations`` ``(B, D)`` float32 and ``action_masks`` ``(B, A)``
int8, whose rows may come from different games and phases.  Every built-in agent decides a whole batch at
once and its one-game ``act`` is the same code at ``B = 1`` (docs/design.md §3: one implementation of each
decision rule); an agent whose play depends on a row's game has the game hooks (:func:`plays_per_game`).
See docs/agents.md.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from hoity_env.agents.view import AgentInputError

__all__ = [
    "BatchAgent",
    "GeneratorAgent",
    "act_batch",
    "can_act_in_batches",
    "check_batch",
    "ensure_legal",
    "plays_per_game",
    "sample_index",
    "start_games",
]


@runtime_checkable
class BatchAgent(Protocol):
    """Anything that decides a batch of independent seats at once (all built-in agents)."""

    name: str

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B,)`` int64 legal actions for ``(B, D)`` observations and ``(B, A)`` masks."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start anew; ``seed`` reseeds the agent's own generator."""
        ...


class GeneratorAgent(ABC):
    """What every built-in agent shares: a generator of its own, and ``act`` as ``act_batch`` at B = 1.

    Scripted styles (:class:`~hoity_env.agents.base.SeededAgent`) and saved policies
    (:class:`~hoity_env.agents.policies.sb3.DistributionAgent`) decide batches; deciding one
    seat through the same batched rule keeps the two paths' actions identical.

    A decision is a pure function of (observation, mask, draws), the draws a fixed number ``K`` of
    uniforms per row taken as one ``(B, K)`` array from the agent's generator.  A generator fills
    ``(B, K)`` with the numbers of ``B`` successive ``(1, K)`` calls, so an agent deciding rows one by
    one and a twin deciding them as one batch (same seed) choose the same actions.
    """

    rng: np.random.Generator

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's own generator (a ``None`` seed keeps the current stream; no global RNG
        is ever touched)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """One decision: :meth:`act_batch` on a batch of one."""
        return int(self.act_batch(*one_row(observation, action_mask))[0])

    @abstractmethod
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B,)`` int64 legal actions for ``(B, D)`` observations and ``(B, A)`` masks."""


def can_act_in_batches(agent: object) -> bool:
    """Whether ``agent`` decides a batch in one call (every built-in agent does)."""
    return callable(getattr(agent, "act_batch", None))


def plays_per_game(agent: object) -> bool:
    """Whether ``agent`` has the game hooks: its rows must be labelled by game.

    An agent whose play depends on which game a row is from (a population draws one member per game)
    has ``start_games(games, seeds=None)`` and ``act_games(games, observations, masks, checked=False)``.
    Loops that batch the rows of many games call :func:`start_games` when games begin and pass
    ``games=`` (a label per row) to :func:`act_batch`; for every other agent both are the plain calls.
    A label names one seat's game: an agent playing several seats of one game gets a label per seat.
    """
    return callable(getattr(agent, "start_games", None)) and callable(getattr(agent, "act_games", None))


def start_games(agent: object, games: np.ndarray, seeds: Sequence[int] | None = None) -> None:
    """Tell ``agent`` that games labelled ``games`` begin (``seeds``: one per game, or its own
    generator's draws); nothing for an agent without the game hooks."""
    if plays_per_game(agent):
        agent.start_games(np.asarray(games, dtype=np.int64), seeds)  # type: ignore[attr-defined]


def act_batch(
    agent: object,
    observations: np.ndarray,
    masks: np.ndarray,
    *,
    checked: bool = False,
    games: np.ndarray | None = None,
) -> np.ndarray:
    """``agent``'s ``(B,)`` int64 actions: its ``act_batch``, or one ``act`` per row for any
    other :class:`~hoity_env.agents.base.Agent` (the batched envs and harness take both).

    ``checked=True`` says the batch comes straight from hoity_env's own encoder (float32
    observations, 0/1 int8 or bool masks with a legal action in every row), so an agent
    with ``act_batch_checked`` skips re-validating it: at the batch sizes of training the
    checks cost as much as a simple style's whole decision.  ``games``: each row's game
    label, for an agent with the game hooks (:func:`plays_per_game`); ignored by the others.
    """
    if games is not None and plays_per_game(agent):
        return np.asarray(
            agent.act_games(games, observations, masks, checked=checked),  # type: ignore[attr-defined]
            dtype=np.int64,
        )
    if checked:
        fast = getattr(agent, "act_batch_checked", None)
        if fast is not None:
            return np.asarray(fast(observations, masks.view(bool) if masks.dtype == np.int8 else masks))
    if can_act_in_batches(agent):
        return np.asarray(agent.act_batch(observations, masks), dtype=np.int64)  # type: ignore[attr-defined]
    rows = zip(observations, masks, strict=True)
    return np.asarray([agent.act(o, m) for o, m in rows], dtype=np.int64)  # type: ignore[attr-defined]


def check_batch(
    observations: np.ndarray,
    action_masks: np.ndarray,
    *,
    obs_dim: int | None = None,
    num_actions: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Checked ``(float32 observations, bool masks)``; a malformed batch raises :class:`AgentInputError`.

    Observations must be a finite 2-D float array; masks a 2-D bool or integer array
    of 0/1 with the same number of rows and at least one 1 per row (RULES C-6).
    ``obs_dim``/``num_actions``, when given, are the widths the agent was built for.
    """
    obs = np.asarray(observations)
    masks = np.asarray(action_masks)
    if obs.ndim != 2 or masks.ndim != 2:
        raise AgentInputError(
            "a batch needs 2-D observations (B, D) and masks (B, A), "
            f"got shapes {obs.shape} and {masks.shape}"
        )
    if obs.shape[0] != masks.shape[0]:
        raise AgentInputError(f"{obs.shape[0]} observation rows but {masks.shape[0]} mask rows")
    if obs.dtype.kind != "f":
        raise AgentInputError(f"observations must be floats (float32), got dtype {obs.dtype}")
    if masks.dtype.kind not in "biu":
        raise AgentInputError(f"action masks must be int8 or bool, got dtype {masks.dtype}")
    if obs_dim is not None and obs.shape[1] != obs_dim:
        raise AgentInputError(f"expected observations of length {obs_dim}, got {obs.shape[1]}")
    if num_actions is not None and masks.shape[1] != num_actions:
        raise AgentInputError(f"expected action masks of length {num_actions}, got {masks.shape[1]}")
    obs = obs.astype(np.float32, copy=False)
    # Whole-array checks first (the common, valid case); the row is looked up only on failure.
    if not np.isfinite(obs).all():
        raise AgentInputError(f"observation row {_first_bad(~np.isfinite(obs))} is not finite")
    if not masks.shape[0]:
        return obs, masks.astype(bool)
    if not masks.shape[1]:
        raise AgentInputError("action mask row 0 is all zero (masks of width 0)")
    # One row-wise maximum answers both mask checks; as unsigned, a negative value is large.
    row_max = masks.view(f"u{masks.itemsize}").max(axis=1)
    if row_max.max() > 1:
        wrong: np.ndarray = (masks != 0) & (masks != 1)
        raise AgentInputError(f"action mask row {_first_bad(wrong)} holds values other than 0 and 1")
    if row_max.min() == 0:
        raise AgentInputError(
            f"action mask row {_first_bad(row_max == 0)} is all zero; hoity_env never sends one (RULES C-6)"
        )
    return obs, masks.astype(bool, copy=False)


def _first_bad(bad: np.ndarray) -> int:
    """Index of the first row with a true entry."""
    return int(np.argmax(bad.reshape(bad.shape[0], -1).any(axis=1)))


def one_row(observation: np.ndarray, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One observation and mask as a batch of one (what every one-game ``act`` passes on)."""
    obs, mask = np.asarray(observation), np.asarray(action_mask)
    if obs.ndim != 1 or mask.ndim != 1:
        raise AgentInputError(
            f"act takes one 1-D observation and one 1-D mask (use act_batch for a batch), "
            f"got shapes {obs.shape} and {mask.shape}"
        )
    return obs[None, :], mask[None, :]


def ensure_legal(choice: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``choice`` where legal, else the row's lowest legal action (a style bug never becomes an illegal
    move)."""
    choice = choice.astype(np.int64, copy=False)
    legal = masks[np.arange(choice.shape[0]), choice]
    if legal.all():
        return choice
    out: np.ndarray = np.where(legal, choice, masks.argmax(axis=1))
    return out


def sample_index(weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row, an index drawn with probability proportional to ``weights`` (negatives count as 0).

    Inverse-CDF sampling with one uniform ``u`` per row (as ``Generator.choice``
    does); a row without positive weight gives index 0.
    """
    cdf = np.maximum(weights, 0.0).cumsum(axis=1)
    total = cdf[:, -1]
    idx = np.minimum((cdf <= (u * total)[:, None]).sum(axis=1), cdf.shape[1] - 1)
    out: np.ndarray = np.where(total > 0, idx, 0)
    return out
