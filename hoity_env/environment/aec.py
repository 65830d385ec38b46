"""The AEC forms (``hoity_env.env`` / ``raw_env``): PettingZoo's conversion, with input checks.

PettingZoo's ``parallel_to_aec_wrapper`` only hands the joint action on when the last agent has
acted, so a bad action would fail on another agent's call with the game stuck.  Here each
``step`` checks its own action first (the error names the sender, who may send again), and a
call before ``reset`` raises :class:`IllegalActionError` in both forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils.conversions import parallel_to_aec_wrapper
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from hoity_env.engine.errors import IllegalActionError
from hoity_env.environment.parallel import HoityParallelEnv


def _before_reset(call: str) -> IllegalActionError:
    return IllegalActionError(f"call reset() before {call}()")


class _ResetFirst:
    """``observe``/``last``/``state`` raise a clear error before ``reset`` (a mixin listed before
    PettingZoo's class).
    """

    _has_reset: bool

    def observe(self, agent: str) -> Any:
        """``agent``'s latest observation."""
        if not self._has_reset:
            raise _before_reset("observe")
        return super().observe(agent)  # type: ignore[misc]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, reward, termination, truncation and info of the selected agent."""
        if not self._has_reset:
            raise _before_reset("last")
        return super().last(observe)  # type: ignore[misc, no-any-return]

    def state(self) -> np.ndarray:
        """Global state vector (see :meth:`HoityParallelEnv.state`)."""
        if not self._has_reset:
            raise _before_reset("state")
        return super().state()  # type: ignore[misc, no-any-return]


class HoityAECEnv(_ResetFirst, parallel_to_aec_wrapper):  # type: ignore[misc]
    """``parallel_to_aec_wrapper`` that checks each action on the call that sends it."""

    env: HoityParallelEnv

    def __init__(self, parallel_env: HoityParallelEnv) -> None:
        super().__init__(parallel_env)
        self._has_reset = False

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (see :meth:`HoityParallelEnv.reset`)."""
        super().reset(seed=seed, options=options)
        self._has_reset = True

    def step(self, action: Any) -> None:
        """Record ``action`` for the selected agent (checked now), or play the joint step."""
        if not self._has_reset:
            raise _before_reset("step")
        agent = self.agent_selection
        if not (self.terminations.get(agent) or self.truncations.get(agent)):
            action = self.env.check_action(agent, action)
        super().step(action)


class HoityOrderEnforcingWrapper(_ResetFirst, OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order checks, with a clear error instead of an assertion before ``reset``."""

    def step(self, action: Any) -> None:
        """See :meth:`HoityAECEnv.step`."""
        if not self._has_reset:
            raise _before_reset("step")
        super().step(action)


def raw_env(**kwargs: Any) -> HoityAECEnv:
    """The AEC form without the order-enforcing wrapper."""
    return HoityAECEnv(HoityParallelEnv(**kwargs))


def env(**kwargs: Any) -> HoityOrderEnforcingWrapper:
    """The AEC form with PettingZoo's order-enforcing wrapper."""
    return HoityOrderEnforcingWrapper(raw_env(**kwargs))
