"""Policies saved as ``MaskablePPO`` zips, so a fast-learner policy is a ``ppo:PATH`` agent anywhere.

Why SB3's format and not our own: every consumer of checkpoints already reads it (``ppo:`` /
``ppo-sample:`` agents, ``MaskablePPO.load`` for fine-tuning, the numpy export), so nothing
downstream needs a second loader.  :class:`~hoity_env.learning.policy.MaskedPolicy` has SB3
``MlpPolicy``'s layout, so saving only renames keys.  The learner's resumable state is a separate
file (:mod:`hoity_env.learning.runs.state`).  See docs/learning.md.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from hoity_env.agents.policies.sb3 import ZIP_ENTRY
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.history import CHECKPOINT_KEY
from hoity_env.environment.padding import PaddedInputs
from hoity_env.files import write_atomically
from hoity_env.learning.memory import checkpoint_history
from hoity_env.learning.policy import MaskedPolicy
from hoity_env.learning.settings import LearnerSettings
from hoity_env.learning.update import check_finite_weights

SB3_KEYS = {
    "actor_body.": "mlp_extractor.policy_net.",
    "critic_body.": "mlp_extractor.value_net.",
    "action_head.": "action_net.",
    "value_head.": "value_net.",
}
"""Our state-dict key prefixes → ``MaskableActorCriticPolicy``'s."""

_ACTIVATION_FNS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}


class _Spaces(gym.Env[np.ndarray, int]):
    """Only the spaces: what ``MaskablePPO`` needs to build a policy (it is never stepped)."""

    def __init__(self, observation_space: gym.Space[Any], action_space: gym.Space[Any]) -> None:
        self.observation_space = observation_space
        self.action_space = action_space


def to_sb3(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Our policy's state dict with SB3's key names."""
    out = {}
    for key, value in state.items():
        prefix = next(p for p in SB3_KEYS if key.startswith(p))
        out[SB3_KEYS[prefix] + key[len(prefix) :]] = value
    return out


def from_sb3(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """An SB3 ``MlpPolicy`` state dict with our key names (feature extractors have no weights)."""
    back = {v: k for k, v in SB3_KEYS.items()}
    out = {}
    for key, value in state.items():
        prefix = next((p for p in back if key.startswith(p)), None)
        if prefix is not None:
            out[back[prefix] + key[len(prefix) :]] = value
    return out


def policy_bytes(policy: MaskedPolicy, settings: LearnerSettings, observation_space: gym.Space[Any]) -> bytes:
    """``policy`` as the bytes of a ``MaskablePPO`` zip built on the env's spaces.

    The state dict's keys are renamed (:data:`SB3_KEYS`); the learner's settings become the model's
    hyperparameters (``n_steps``, ``batch_size``, ``gamma`` …), so fine-tuning with SB3 starts from
    comparable values.  A memory policy records its history
    (:func:`~hoity_env.learning.memory.checkpoint_history`); a padded one gets a ``hoity_env.json``
    entry naming its rules and player counts
    (:class:`~hoity_env.environment.padding.PaddedInputs`), which every ``ppo:`` agent reads to pad
    the env's observations.  Needs sb3-contrib (the ``train`` extra).  A policy with a non-finite
    weight raises :class:`~hoity_env.learning.update.DivergenceError` (never saved).
    """
    check_finite_weights(policy, "refusing to save a diverged policy")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ConfigError("saving a policy needs the train extra: pip install -e '.[train]'") from exc
    spaces = _Spaces(observation_space, gym.spaces.Discrete(policy.num_actions))
    model = MaskablePPO(
        "MlpPolicy",
        spaces,
        learning_rate=settings.learning_rate,
        n_steps=settings.rollout_steps,
        batch_size=settings.minibatch_size,
        n_epochs=settings.epochs,
        gamma=settings.gamma,
        gae_lambda=settings.gae_lambda,
        clip_range=settings.clip,
        ent_coef=settings.ent_coef,
        vf_coef=settings.vf_coef,
        max_grad_norm=settings.max_grad_norm,
        policy_kwargs={
            "net_arch": {"pi": list(policy.hidden), "vf": list(policy.hidden)},
            "activation_fn": _ACTIVATION_FNS[policy.activation],
        },
        seed=settings.seed,
        device="cpu",
    )
    model.policy.load_state_dict(to_sb3(policy.state_dict()))
    # Saved among the model's attributes (SB3 keeps them all): what a memory policy's agent tracks.
    history = checkpoint_history(settings)
    if history is not None:
        setattr(model, CHECKPOINT_KEY, history)
    buffer = io.BytesIO()
    model.save(buffer)
    if settings.padded:  # say so in the file: its width alone must never decide how it reads
        padded = PaddedInputs(settings.rules, settings.player_counts)
        with zipfile.ZipFile(buffer, "a", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(ZIP_ENTRY, json.dumps(padded.to_dict(), indent=1) + "\n")
    return buffer.getvalue()


def save_policy(
    policy: MaskedPolicy, path: str | Path, settings: LearnerSettings, observation_space: gym.Space[Any]
) -> Path:
    """Write ``policy`` to ``path`` as a ``MaskablePPO`` zip, atomically; returns the path."""
    return write_atomically(path, policy_bytes(policy, settings, observation_space))


def load_policy(path: str | Path) -> MaskedPolicy:
    """A :class:`MaskedPolicy` from a ``MaskablePPO`` zip with an ``MlpPolicy`` (ours or SB3's)."""
    from hoity_env.agents.policies.sb3 import load_checkpoint

    model = load_checkpoint(Path(path))  # the loader every ppo: spec uses, with its clear errors
    arch = model.policy.net_arch
    hidden = arch.get("pi") if isinstance(arch, dict) else arch
    if not hidden or (isinstance(arch, dict) and arch.get("pi") != arch.get("vf")):
        raise ConfigError(f"checkpoint {path} has a network the fast learner cannot hold: {arch!r}")
    act = {cls: name for name, cls in _ACTIVATION_FNS.items()}.get(model.policy.activation_fn)
    if act is None:
        raise ConfigError(f"checkpoint {path} uses activation {model.policy.activation_fn!r} (tanh or relu)")
    policy = MaskedPolicy(
        int(model.observation_space.shape[0]), int(model.action_space.n), tuple(hidden), act
    )
    policy.load_state_dict(from_sb3(model.policy.state_dict()))
    return policy


__all__ = ["SB3_KEYS", "from_sb3", "load_policy", "policy_bytes", "save_policy", "to_sb3"]
