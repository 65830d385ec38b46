"""Export a ``MaskablePPO`` checkpoint's policy to the plain-numpy ``.npz`` format (needs the train extra).

Only what acting needs is kept, the actor MLP and the action head of SB3's ``MlpPolicy``, so that the
policy plays without torch.  A checkpoint whose policy is anything else (a custom features extractor, an
unknown activation) is refused, so an export is never silently wrong.  :func:`export_population` exports a
league's ``population.json`` likewise.  The command line is ``hoity-export`` (:mod:`hoity_env.cli.export`).
See docs/agents.md.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.policies.mlp import ACTIVATIONS, FORMAT, PADDED_FORMAT, load_policy, save_policy
from hoity_env.agents.policies.named import MODELS
from hoity_env.agents.policies.sb3 import check_sizes, load_checkpoint, players_of_checkpoint, read_zip_entry
from hoity_env.agents.view import Table
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.history import CHECKPOINT_KEY
from hoity_env.environment.padding import ruleset_name
from hoity_env.files import folder_atomically, hold_lock, read_json, scratch_folders

__all__ = [
    "export_checkpoint",
    "export_population",
    "export_shipped",
    "npz_name",
    "policy_layers",
    "shipped_path",
]

LOG = logging.getLogger(__name__)

_ACTIVATION_NAMES = {"Tanh": "tanh", "ReLU": "relu"}


def shipped_path(model: str) -> Path:
    """Where the package keeps the shipped model ``model`` (in this checkout)."""
    return Path(__file__).parent.parent / "models" / f"{model}.npz"


def policy_layers(model: Any) -> tuple[list[np.ndarray], list[np.ndarray], str]:
    """The actor's ``(weights, biases, activation)`` of a loaded ``MaskablePPO`` model, float32."""
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    policy = model.policy
    if not isinstance(policy.pi_features_extractor, FlattenExtractor):
        raise ConfigError(f"only a flat features extractor exports, not {type(policy.features_extractor)}")
    modules = [*policy.mlp_extractor.policy_net, policy.action_net]
    linear = [m for m in modules if isinstance(m, torch.nn.Linear)]
    others = {type(m).__name__ for m in modules if not isinstance(m, torch.nn.Linear)}
    kinds = [isinstance(m, torch.nn.Linear) for m in modules]
    alternating = kinds == [True, False] * (len(linear) - 1) + [True]
    if not alternating or len(others) > 1 or not others <= set(_ACTIVATION_NAMES):
        raise ConfigError(
            f"the policy net must alternate Linear and one of {', '.join(_ACTIVATION_NAMES)}, "
            f"got {[type(m).__name__ for m in modules]}"
        )
    activation = _ACTIVATION_NAMES[others.pop()] if others else next(iter(ACTIVATIONS))
    weights = [m.weight.detach().cpu().numpy().astype(np.float32) for m in linear]
    biases = [m.bias.detach().cpu().numpy().astype(np.float32) for m in linear]
    return weights, biases, activation


def export_checkpoint(
    checkpoint: str | Path,
    out: str | Path,
    *,
    name: str | None = None,
    rules: str | None = None,
    training_args: dict[str, Any] | None = None,
    inside: Path | None = None,
) -> Path:
    """Write ``checkpoint``'s policy to ``out`` (atomically); returns ``out``.

    ``training_args`` default to the ``args.json`` beside the checkpoint (the
    training recipes write one), or the fast learner's ``settings.json`` of its run folder
    (only those inside the folder ``inside``, when given),
    and ``rules`` to their ``rules`` (else ``standard``, the only preset before there were
    two).  A padded checkpoint (the fast learner's ``--players 2,3,…`` or ``--padded``)
    exports as a padded policy (``hoity_env.mlp_policy/2``) with its own rules and counts.
    The metadata records the checkpoint's path as given (never an absolute path: it names
    the machine) and its sha256.
    """
    checkpoint = Path(checkpoint)
    model = load_checkpoint(checkpoint)
    if getattr(model, CHECKPOINT_KEY, None):
        raise ConfigError(
            f"checkpoint {checkpoint} reads rounds of history; a numpy export reads the observation alone"
        )
    padded = read_zip_entry(checkpoint)
    weights, biases, activation = policy_layers(model)
    if training_args is None:
        training_args = _training_args(checkpoint, inside)
    obs_dim, num_actions = int(weights[0].shape[1]), int(weights[-1].shape[0])
    told = rules or training_args.get("rules", "standard")
    if padded is not None:  # its own record decides: the padded layout of its rules, its counts
        own = Table.of(padded.rules, padded.player_counts[0])
        check_sizes(checkpoint, obs_dim, num_actions, own, None, padded)
        if rules is not None and rules != padded.rules:
            raise ConfigError(f"{checkpoint} was trained for the {padded.rules} rules, not {rules!r}")
        sizes: dict[str, Any] = {"format": PADDED_FORMAT, **padded.to_dict()}
    else:
        players = players_of_checkpoint(checkpoint, obs_dim, ruleset_name(told))
        sizes = {"format": FORMAT, "num_players": players, "rules": told}
    metadata = {
        **sizes,
        "name": name or checkpoint.stem,
        "obs_dim": obs_dim,
        "num_actions": num_actions,
        "activation": activation,
        "hidden": [int(w.shape[0]) for w in weights[:-1]],
        "source": {
            "checkpoint": checkpoint.as_posix() if not checkpoint.is_absolute() else checkpoint.name,
            "sha256": hashlib.sha256(checkpoint.read_bytes()).hexdigest(),
            "algorithm": "sb3_contrib.MaskablePPO",
        },
        "training_args": training_args,
    }
    return save_policy(out, weights, biases, metadata)


def npz_name(source: Path) -> str:
    """The file name a ``ppo-sample:`` member exports to: its path's parts joined by ``-``
    (``members/main_1.zip`` → ``members-main_1.npz``; a root or drive is dropped and ``..`` is
    ``up``), so it lies in ``OUT_DIR`` itself, whatever the member's path."""
    parts = list(source.parts[1:] if source.anchor else source.parts)
    if parts and parts[-1] not in (".", ".."):
        parts[-1] = Path(parts[-1]).stem
    return f"{'-'.join('up' if part == '..' else part for part in parts if part != '.') or 'policy'}.npz"


def export_population(
    manifest: str | Path, out_dir: str | Path, *, any_paths: bool | None = None, rules: str | None = None
) -> Path:
    """Export the population at ``manifest`` to ``out_dir``: its manifest there, each ``ppo-sample:``
    member an ``npz:`` file beside it; returns the new manifest's path.

    Every member is exported for ``rules``: a population plays at one table.  ``None`` takes the
    rules of the league that wrote the manifest (``league_settings.json`` beside it), else each
    checkpoint's own record; a league's exploiters record no rules, and an ``original`` one read
    as ``standard`` would carry the wrong table in its metadata.

    A member's file is named after its path in the run folder (``members/main_1019190.zip`` →
    ``members-main_1019190.npz``, :func:`npz_name`), so two members never share one.  Named and
    scripted members are kept as they are; a greedy ``ppo:`` member is refused (``npz:`` plays by
    sampling, as the league's members do), and so is any other file spec, and a member outside
    the manifest's folder unless ``any_paths`` (``None``: as ``HOITY_POPULATION_PATHS`` says),
    before anything is written.  The files are written in a scratch folder renamed whole at the
    end (:func:`~hoity_env.files.folder_atomically`), holding a lock beside ``out_dir`` so that
    one export writes it at a time; scratch folders a killed export left are removed (and logged)
    first.  Nothing is written outside ``out_dir`` but the lock and the scratch folder.
    """
    from hoity_env.agents.policies.population import (
        Member,
        any_paths_allowed,
        check_inside,
        read_population,
        write_population,
    )

    manifest = Path(manifest)
    members = read_population(manifest)
    rules = rules or _league_rules(manifest.parent / "league_settings.json")
    allowed = any_paths_allowed() if any_paths is None else any_paths
    folder = manifest.parent
    jobs: dict[int, tuple[Path, str]] = {}
    """Member index → (its checkpoint, the ``.npz`` name it exports to)."""
    for index, member in enumerate(members):
        if member.spec.startswith("ppo-sample:"):
            if not allowed:
                check_inside(member.spec, index, manifest)
            source = Path(member.spec[len("ppo-sample:") :])
            jobs[index] = (source if source.is_absolute() else folder / source, npz_name(source))
        elif ":" in member.spec:
            raise ConfigError(
                f"population {manifest}: members[{index}] is {member.spec!r}; only ppo-sample: members, "
                "named and scripted agents export (an npz: member plays by sampling)"
            )
    if len({name for _, name in jobs.values()}) != len(jobs):
        raise ConfigError(f"population {manifest}: two members export to the same file name")
    out_dir = Path(out_dir)
    if out_dir.name in ("", ".", ".."):
        raise ConfigError(f"{out_dir}: name a new folder to export the population to")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with hold_lock(out_dir.parent / f".{out_dir.name}.export.lock", _busy(out_dir)):
        for left in scratch_folders(out_dir):
            shutil.rmtree(left, ignore_errors=True)
            LOG.warning("removed %s, left by an export to %s that was killed", left, out_dir)
        if out_dir.exists() or out_dir.is_symlink():
            raise ConfigError(f"{out_dir} exists; export a population to a new folder (nothing is replaced)")
        with folder_atomically(out_dir) as scratch:
            renamed: list[Member] = []
            for index, member in enumerate(members):
                if index in jobs:
                    source, name = jobs[index]
                    inside = None if allowed else folder
                    export_checkpoint(
                        source, scratch / name, name=name[: -len(".npz")], rules=rules, inside=inside
                    )
                    member = Member(f"npz:{name}", member.weight, member.origin)
                renamed.append(member)
            write_population(scratch / "population.json", renamed)
    return out_dir / "population.json"


def _league_rules(path: Path) -> str | None:
    """The rules of the league whose ``league_settings.json`` is ``path`` (None without one)."""
    if not path.is_file():
        return None
    data = read_json(path, f"league settings {path}")
    main = data.get("main") if isinstance(data, dict) else None
    rules = main.get("rules") if isinstance(main, dict) else None
    if rules is not None and not isinstance(rules, str):
        raise ConfigError(f"{path}: main.rules must be a rules name, not {rules!r}")
    return rules


def _busy(out_dir: Path) -> Callable[[str], Exception]:
    def busy(pid: str) -> ConfigError:
        return ConfigError(f"another export to {out_dir} is running (pid {pid}); wait for it to end")

    return busy


def _training_args(checkpoint: Path, inside: Path | None = None) -> dict[str, Any]:
    """The training recipe's ``args.json`` beside ``checkpoint``, or a fast-learner run's
    ``settings.json`` (``policy.zip`` sits in the run folder, checkpoints one folder down); else {}.
    With ``inside``, only files in that folder are looked at; a damaged one is refused."""
    run = "settings.json"  # hoity_env.learning.runs.session.SETTINGS (the learning layer sits above this one)
    for beside in (checkpoint.parent / "args.json", checkpoint.parent / run, checkpoint.parent.parent / run):
        if inside is not None and not beside.resolve().is_relative_to(inside.resolve()):
            continue
        if beside.is_file():
            data = read_json(beside, f"training settings {beside}", inside=inside)
            return data if isinstance(data, dict) else {}
    return {}


def _shipped_name(model: str) -> str:
    """The name a shipped file already records (its agent's), else the file's stem."""
    try:
        return str(load_policy(shipped_path(model)).metadata.get("name", model))
    except ConfigError:  # missing or unreadable: it is being written afresh
        return model


def export_shipped() -> list[tuple[Path, Path]]:
    """Rewrite every shipped model (:data:`~hoity_env.agents.policies.named.MODELS`) from its
    checkpoint, keeping the name each file records; returns ``(checkpoint, written)`` pairs.
    Run it at the repository's root, where the checkpoints' paths resolve."""
    written = []
    for model, source in MODELS.items():
        out = shipped_path(model)
        export_checkpoint(Path(source), out, name=_shipped_name(model))
        written.append((Path(source), out))
    return written
