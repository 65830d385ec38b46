"""The scripted zoo's styles: one rule per ruleset each, the strategy in the docstring (docs/design.md §3).

Every style reads only its own observation, draws every random choice from its own seeded generator, varies
its bids (equal bids void each other under the unique-bid rule, RULES S-5) and mixes its castle roles (any
pure role is exploitable, RULES.md's last table).  A style's rules are keyed by ruleset name
(:attr:`ScriptedAgent.RULES`): numba kernels for the standard rules
(:mod:`hoity_env.agents.bots.styles_kernels`), numpy over the batch for the original ones
(:mod:`hoity_env.agents.bots.styles_original`).  See docs/agents.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from hoity_env.agents.base import SeededAgent
from hoity_env.agents.bots.styles_kernels import (
    Rule,
    collector_kernel,
    detective_kernel,
    kernel_rule,
    thief_kernel,
)
from hoity_env.agents.bots.styles_original import original_rule
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError

__all__ = ["CollectorAgent", "DetectiveAgent", "ScriptedAgent", "ThiefAgent"]


class ScriptedAgent(SeededAgent):
    """A style: one rule per ruleset it plays (:attr:`RULES`), the one of its table deciding.

    It assumes its ruleset's preset numbers (``min_exhibition`` 3, thief penalty and detective reward 2 …),
    which the observation does not carry; ``act`` is the same rule at ``B = 1``.
    """

    name = "scripted"
    DRAWS = 4
    """Uniforms per row and decision: a coin, a weighted pick and two for a normal bid jitter."""
    RULES: ClassVar[Mapping[str, Rule]] = {}
    """The style's rule for each ruleset it plays, by the engine's ruleset name."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        rules: str | RulesConfig | None = None,
        num_players: int | None = None,
    ) -> None:
        super().__init__(seed, rules=rules, num_players=num_players)
        if self.table.ruleset not in self.RULES:
            raise ConfigError(
                f"{self.name} plays the {' and '.join(self.RULES)} rulesets, not {self.table.ruleset!r}"
            )

    def decide(self, observations: np.ndarray, masks: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """A location, a bid or a role for each row, by the rule of the agent's ruleset (looked up
        in the class, so that an agent pickles as its table and generator alone)."""
        return self.RULES[self.table.ruleset](observations, masks, draws, self.table.num_players)


class CollectorAgent(ScriptedAgent):
    """``collector``: buys what extends its run, exhibits when it can.

    Goes to the Auction House when the lot grows its best exhibition or touches
    its series (or while it has no exhibition), bidding more for a bigger gain;
    otherwise it visits the Castle and exhibits, or, without an exhibition, plays
    mostly detective with the odd theft.
    """

    name = "collector"
    RULES: ClassVar[Mapping[str, Rule]] = {
        "standard": kernel_rule(collector_kernel, name),
        "original": original_rule(name),
    }


class ThiefAgent(ScriptedAgent):
    """``thief``: an aggressive thief.

    Mostly visits the Castle and steals (three times in four), sometimes plays
    detective to punish other thieves and exhibits only now and then; it bids
    small, random amounts when it does go to the auction.
    """

    name = "thief"
    RULES: ClassVar[Mapping[str, Rule]] = {
        "standard": kernel_rule(thief_kernel, name),
        "original": original_rule(name),
    }


class DetectiveAgent(ScriptedAgent):
    """``detective``: hunts the thieves it expects.

    Reads every rival's past share of thefts; when the rivals at the Castle with
    it are likely to steal, it plays detective, otherwise it exhibits when it can.
    It buys lots that help its run with moderate bids.
    """

    name = "detective"
    RULES: ClassVar[Mapping[str, Rule]] = {
        "standard": kernel_rule(detective_kernel, name),
        "original": original_rule(name),
    }
