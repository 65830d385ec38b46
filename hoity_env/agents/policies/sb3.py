"""``PolicyAgent``: a saved ``MaskablePPO`` checkpoint behind the :class:`Agent` protocol.

Checkpoints and scripted bots are interchangeable everywhere (harness, CLI, the
single-agent wrapper), one seat at a time (``act``) or a batch with one forward
pass (``act_batch``).  Loading needs the ``train`` extra (sb3-contrib, torch);
everything that can go wrong with a checkpoint raises a clear ``ValueError``.
:class:`DistributionAgent` is the part shared with the torch-free named agents
(:mod:`hoity_env.agents.policies.named`): checks, greedy choice and seeded sampling.
"""

from __future__ import annotations

import json
import zipfile
from abc import abstractmethod
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.batch import GeneratorAgent, check_batch, ensure_legal, sample_index
from hoity_env.agents.view import AgentInputError, Table
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, RulesConfig
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.history import CHECKPOINT_KEY
from hoity_env.environment.padding import PaddedInputs, unpadded_dim

ZIP_ENTRY = "hoity_env.json"
"""The entry of a ``MaskablePPO`` zip that marks a padded policy (:class:`PaddedInputs`; SB3
ignores entries it does not know)."""


def read_zip_entry(path: Path) -> PaddedInputs | None:
    """The padded inputs recorded in the ``MaskablePPO`` zip at ``path`` (None without the entry)."""
    try:
        with zipfile.ZipFile(path) as archive:
            if ZIP_ENTRY not in archive.namelist():
                return None
            data = json.loads(archive.read(ZIP_ENTRY).decode("utf-8"))
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"checkpoint {path}: unreadable {ZIP_ENTRY} ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"checkpoint {path}: {ZIP_ENTRY} must hold a JSON object")
    return PaddedInputs.from_dict(data, f"checkpoint {path}")


class DistributionAgent(GeneratorAgent):
    """Plays a policy given as action probabilities: greedily or by sampling, with masks.

    Subclasses compute :meth:`action_probabilities`; this base checks the batch and
    chooses.  Both saved-policy agents share it (``ppo:PATH`` checkpoints through torch,
    the named agents through numpy), so the same probabilities and the same seed give
    the same actions whichever one plays.
    """

    name: str
    deterministic: bool
    obs_dim: int
    num_actions: int
    padded: PaddedInputs | None = None
    """Set for a policy that reads padded observations: ``act_batch`` pads the env's rows first."""
    table: Table
    """The game the agent plays."""

    def __init__(self, *, deterministic: bool, seed: int | None) -> None:
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B,)`` int64 actions from one forward pass over the batch.

        Deterministic: the most probable legal action (the argmax of the masked
        logits).  Sampling: one uniform per row from the agent's own generator,
        so deciding rows one by one or as a batch gives the same actions.
        Malformed input (wrong widths, an all-zero mask row …) raises
        :class:`~hoity_env.agents.view.AgentInputError` naming what is wrong.
        """
        observations = self.policy_inputs(observations)
        obs, masks = check_batch(
            observations, action_masks, obs_dim=self.obs_dim, num_actions=self.num_actions
        )
        return self.choose(self.action_probabilities(obs, masks), masks)

    def choose(self, probs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(B,)`` int64 actions from ``(B, A)`` probabilities: the most probable legal action
        (deterministic), or one drawn with one uniform per row from the agent's generator."""
        if self.deterministic:
            best: np.ndarray = probs.argmax(axis=1).astype(np.int64)
            return best
        return ensure_legal(sample_index(probs, self.rng.random((probs.shape[0],))), masks)

    def policy_inputs(self, observations: np.ndarray) -> np.ndarray:
        """What the network reads: the env's rows, padded for a padded policy (padded rows pass)."""
        if self.padded is None:
            return observations
        return self.padded.pad(observations, self.table.num_players)

    @abstractmethod
    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(B, A)``: the policy's distribution over actions per row, zero off the ``(B, A)`` bool mask."""


def renormalized(probs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``probs`` (float64) zeroed off the mask and summing to 1 per row; a row without finite
    positive mass (a corrupt policy) becomes uniform over its legal actions."""
    probs = np.where(masks, probs, 0.0)
    total = probs.sum(axis=1, keepdims=True)
    broken = ~np.isfinite(total) | (total <= 0)
    uniform = masks / masks.sum(axis=1, keepdims=True)
    out: np.ndarray = np.where(broken, uniform, probs / np.where(broken, 1.0, total))
    return out


class PolicyAgent(DistributionAgent):
    """Plays a ``MaskablePPO`` policy with masks, deterministically or by sampling.

    Security: an SB3 checkpoint holds pickles, and loading one runs any code it contains.
    Load only checkpoints you made or trust (``ppo:PATH`` specs load through this class).

    It plays the table it is told (``rules``, ``num_players``: the package's defaults
    ``standard``/4 where none is given); a checkpoint trained for another is refused up front.
    A checkpoint whose policy reads rounds of history beside the observation (the fast
    learner's ``memory``) has ``memory`` > 0 and an ``obs_dim`` that is the observation's
    alone; :func:`hoity_env.agents.make` plays it through
    :class:`~hoity_env.agents.policies.history_agent.HistoryAgent`, which tracks that history.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        deterministic: bool = True,
        seed: int | None = None,
        num_players: int | None = None,
        rules: str | RulesConfig | None = None,
        num_actions: int | None = None,
    ) -> None:
        super().__init__(deterministic=deterministic, seed=seed)
        self.path = Path(path)
        self.name = f"{'ppo' if deterministic else 'ppo-sample'}:{self.path}"
        self.model = load_checkpoint(self.path)
        obs_shape = getattr(self.model.observation_space, "shape", None)
        n_act = getattr(self.model.action_space, "n", None)
        if obs_shape is None or len(obs_shape) != 1 or n_act is None:
            raise ConfigError(
                f"checkpoint {self.path} is not a hoity_env policy (flat Box obs, Discrete actions)"
            )
        history = getattr(self.model, CHECKPOINT_KEY, None) or {}
        self.input_dim = int(obs_shape[0])
        """The length of the policy's input rows (the observation's, plus any history)."""
        self.memory = int(history.get("memory", 0))
        """Rounds of history the policy reads (0: the observation alone)."""
        self.obs_dim = int(history.get("observation_dim", self.input_dim))
        self.num_actions = int(n_act)
        self.padded = read_zip_entry(self.path)
        self.table = Table.of(rules, num_players)
        """The game the agent plays."""
        check_sizes(self.path, self.obs_dim, self.num_actions, self.table, num_actions, self.padded)

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(B, A)``: the policy's distribution over actions per row, zero off the ``(B, A)`` bool mask."""
        import torch

        if self.policy_inputs(observations).shape[1] != self.input_dim:
            raise AgentInputError(
                f"checkpoint {self.path} reads {self.memory} rounds of history beside the observation: "
                "play it through hoity_env.agents.make, which tracks them"
            )
        policy = self.model.policy
        obs_tensor, _ = policy.obs_to_tensor(self.policy_inputs(observations))
        with torch.no_grad():
            dist = policy.get_distribution(obs_tensor, action_masks=masks)
            probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
        return renormalized(probs, masks)


def check_sizes(
    path: Path | str,
    obs_dim: int,
    actions: int,
    table: Table,
    num_actions: int | None,
    padded: PaddedInputs | None = None,
) -> None:
    """Refuse a policy that does not play ``table``: its observations (``obs_dim`` long) are not the
    table's, or it was trained with ``actions`` actions where the game has ``num_actions`` (None: not
    checked).

    The error names the checkpoint, so a policy trained for another table or ruleset is refused
    up front.  A padded policy (``padded``, as its file records it) plays the counts and the rules
    it lists; its width is checked to be the padded layout's.
    """
    if padded is not None:
        if obs_dim != padded.obs_dim:
            raise ConfigError(
                f"checkpoint {path} is marked padded ({padded.rules} rules) but reads {obs_dim} values, "
                f"not the padded layout's {padded.obs_dim}"
            )
        padded.check_table(table.num_players)
        padded.check_rules(table.rules)
    elif obs_dim != table.obs_dim:
        try:  # the count it was trained for, if it is one of the told ruleset's: for the message only
            trained = (
                f"{players_of_checkpoint(path, obs_dim, table.ruleset)} players, not {table.num_players}"
            )
        except ConfigError:
            trained = f"another ruleset or game than {table}"
        raise ConfigError(
            f"checkpoint {path} was trained for {trained} (it reads observations of length {obs_dim}, "
            f"this game's have {table.obs_dim})"
        )
    if num_actions is not None and num_actions != actions:
        raise ConfigError(
            f"checkpoint {path} was trained with {actions} actions (another ruleset "
            f"or starting money), this game has {num_actions}"
        )


def players_of_checkpoint(path: Path | str, obs_dim: int, ruleset: str) -> int:
    """The player count of a policy of ``ruleset`` whose input is ``obs_dim`` wide.

    A ``MaskablePPO`` zip records no player count (an exported ``.npz`` does, and an agent is
    told its table), so writing down a zip's count (:mod:`hoity_env.agents.policies.export`)
    reads it from the width; no two counts of a ruleset share one.
    """
    widths = {unpadded_dim(ruleset, n): n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
    if obs_dim not in widths:
        raise ConfigError(
            f"checkpoint {path} reads {obs_dim} values: not a {ruleset} observation of 2-6 players"
        )
    return widths[obs_dim]


TRAIN_EXTRA = "pip install torch==2.13.0 && pip install -e '.[train]'"
"""How to install what loading (or training) a MaskablePPO checkpoint needs."""


def load_checkpoint(path: Path) -> Any:
    """The ``MaskablePPO`` model saved at ``path`` (on the CPU); a missing, damaged or foreign file
    raises :class:`~hoity_env.engine.errors.ConfigError`, as does a missing ``train`` extra, and
    so does a policy with a non-finite weight (a diverged run's: it would fail mid-game)."""
    if not path.is_file():
        raise ConfigError(f"checkpoint file not found: {path}")
    if not zipfile.is_zipfile(path):
        raise ConfigError(f"checkpoint {path} is not a MaskablePPO .zip file (corrupt or wrong format)")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ConfigError(f"loading a checkpoint needs the train extra: {TRAIN_EXTRA}") from exc
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as exc:  # SB3 raises many kinds on a damaged archive
        raise ConfigError(f"checkpoint {path} could not be loaded as MaskablePPO: {exc}") from exc
    bad = [name for name, p in model.policy.named_parameters() if not bool(p.isfinite().all())]
    if bad:
        raise ConfigError(
            f"checkpoint {path} holds non-finite weights (NaN or inf, in {', '.join(bad[:3])}): "
            "the policy of a diverged training run cannot play"
        )
    return model
