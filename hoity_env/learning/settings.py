"""``LearnerSettings``: every knob of the fast learner in one frozen, checked dataclass.

Built once at the edge (the CLI, a script, a test) and passed down, so a bad value fails before
anything trains; a run folder's ``settings.json`` is :meth:`LearnerSettings.to_dict`, and a resume
reads it back with :meth:`LearnerSettings.from_dict`, so a resumed run keeps its own settings.
See docs/learning.md (settings).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, resolve_rules, validate_num_players
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.history import MAX_MEMORY
from hoity_env.environment.rewards import REWARD_MODES
from hoity_env.learning.bounds import (
    MAX_COEF,
    MAX_EPOCHS,
    MAX_LAYERS,
    MAX_LEARNING_RATE,
    MAX_ROWS,
    MAX_SEED,
    MAX_STEPS,
    MAX_THREADS,
    MAX_WEIGHT,
    MAX_WIDTH,
    int_in,
    is_int,
    is_number,
    real_in,
)

SELF = "self"
SNAPSHOT = "snapshot"
MAGNETS = ("none", "uniform", "frozen", "ema")
LR_SCHEDULES = ("constant", "linear")
ACTIVATIONS = ("tanh", "relu")
MAX_SPEC_CHARS = 4096
"""The longest ``init`` spec (a path can be long; no agent spec is longer)."""


def refuse_unknown_fields(cls: type, data: dict[str, Any], what: str) -> None:
    """A :class:`ConfigError` naming the keys of ``data`` that are no field of the dataclass ``cls``.

    The check of every settings ``from_dict`` (``what``: "learner settings", "league settings"),
    so that a misspelt key in a saved ``settings.json`` or ``league.json`` is refused, not dropped.
    """
    unknown = sorted(set(data) - {f.name for f in dataclasses.fields(cls)})
    if unknown:
        raise ConfigError(f"unknown {what}: {', '.join(unknown)}")


@dataclass(frozen=True)
class LearnerSettings:
    """The fast learner's settings (every field is checked when built)."""

    # --- the games
    num_games: int = 256
    """B: games stepped together (their seats are the rows of one forward pass)."""
    num_players: int | tuple[int, ...] = 4
    """Players per game; a tuple of counts (``(2, 3, 4, 5, 6)``) trains one policy on all of them
    at once: one batched env of ``num_games`` games per count, every learner row of every env in
    one forward pass of padded observations (:mod:`hoity_env.environment.padding`).  A tuple
    implies ``padded``; counts are kept sorted, each once."""
    padded: bool = False
    """Whether the policy reads padded observations (one layout for 2-6 players), so that it can
    later play or be trained at other counts; implied by a tuple of counts."""
    rules: str = "standard"
    reward: str = "progress"
    """As the env's ``reward``: ``win_loss``, ``rank`` or ``progress`` (the SB3 recipes' choice)."""
    opponents: tuple[tuple[str, float], ...] = ((SELF, 1.0),)
    """The weighted pool of ``(spec, weight)`` pairs, one drawn per game and episode: ``"self"``
    (every seat the learner: self-play with parameter sharing), ``"snapshot"`` (one learner seat,
    the others a frozen snapshot of the learner, one of the last ``snapshots_kept``) or any
    :func:`hoity_env.agents.make` spec (one learner seat, the others copies of that agent)."""
    snapshot_every: int = 10
    """Updates between frozen snapshots of the learner (used by ``"snapshot"`` entries); 0: none
    taken here, only those added by ``Learner.seating.add_snapshot`` (``"snapshot"`` entries are
    not drawn before the first one, so the pool needs another entry)."""
    snapshots_kept: int = 5

    # --- the start
    init: str = ""
    """An agent spec whose policy the actor starts from (a warm start, :mod:`hoity_env.learning.warm`):
    a named agent, ``npz:PATH``, ``ppo:PATH`` / ``ppo-sample:PATH``, or a population (its heaviest
    member with weights).  The network's shape (``hidden``, ``activation``, ``padded``, ``memory``)
    must be the file's; the critic starts fresh.  Read when a run starts, never when it resumes (the run's
    weights are in its resume state).  "" (the default): a fresh actor."""
    curriculum: tuple[tuple[str, float], ...] = ()
    """A weighted pool of agent specs played first (as ``opponents``), for ``curriculum_steps``
    learner steps; then ``opponents`` (agent specs too).  () (the default): none."""
    curriculum_steps: int = 0
    """Learner steps against ``curriculum``: the pool switches to ``opponents`` at the end of the
    iteration that reaches them (games in progress play on), so a resumed run switches where the
    uninterrupted one did."""

    # --- PPO
    total_steps: int = 1_000_000
    """Learner steps to train for: decisions of learner seats (what SB3 counts as timesteps)."""
    rollout_steps: int = 64
    """Env steps per game between updates."""
    epochs: int = 1
    minibatch_size: int = 8192
    learning_rate: float = 1e-3
    lr_schedule: str = "constant"
    """``constant`` or ``linear``: the rate falls linearly from ``learning_rate`` at step 0 to 0 at
    ``total_steps`` (set before each update from the learner steps done before its rollout), as
    CleanRL's ``anneal_lr``; a fixed budget then ends on small, settling steps."""
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.01
    max_grad_norm: float = 0.5
    normalize_advantages: bool = True
    hidden: tuple[int, ...] = (128, 128)
    """Widths of the actor's and the critic's hidden layers (separate networks, as SB3's MlpPolicy).

    The defaults (128×128 ReLU, one epoch of 8,192-row minibatches over 65,536-step
    rollouts, learning rate 1e-3) won against random and expert after 1M self-play
    steps where 3e-4, tanh or smaller rollouts did worse (docs/learning.md)."""
    activation: str = "relu"
    """``relu`` (the default: tanh costs ~4 ns per element on CPU, a quarter of an update) or
    ``tanh`` (SB3's default, for the same network as an SB3 run)."""
    memory: int = 0
    """Rounds of public history in the policy's input (:mod:`hoity_env.environment.history`): each
    observation followed by every seat's reveals in the ``memory`` rounds before last; 0: the
    observation alone.  Saved with the policy, so its ``ppo:`` agent tracks the same history.
    One player count, unpadded (a history's width depends on the count)."""

    # --- the magnet (a KL term toward a reference policy)
    magnet: str = "none"
    """``none``, ``uniform`` (uniform over the legal actions), ``frozen`` (a copy of the
    policy, refreshed every ``magnet_refresh`` updates; 0: never) or ``ema`` (an
    exponential moving average of the policy's weights, rate ``magnet_rate``)."""
    magnet_coef: float = 0.0
    magnet_refresh: int = 0
    magnet_rate: float = 0.01
    magnet_final_coef: float | None = None
    """The magnet's annealing: ``None`` keeps ``magnet_coef`` all run; a number moves the
    coefficient linearly from ``magnet_coef`` at step 0 to this value at ``total_steps``
    (regularised self-play anneals the pull toward the magnet as the policy improves)."""

    # --- the run
    seed: int = 0
    threads: int = 1
    """``torch.set_num_threads`` (one thread: small networks gain little from more, and
    a shared machine loses by contention)."""
    checkpoint_every: int = 0
    """Learner steps between checkpoints in a run folder (0: only at the end)."""
    keep_checkpoints: int = 5
    """Checkpoints a run folder keeps: after each one, all but the newest ``keep_checkpoints``
    are deleted (0: keep all).  The latest is always kept, and with it the run's end; more
    than one leaves a fall-back when the newest is damaged (:mod:`hoity_env.learning.runs.session`)."""

    def __post_init__(self) -> None:
        _check_counts(self)
        int_in(self, "num_games", 1, MAX_ROWS)
        if not isinstance(self.rules, str):
            raise ConfigError(f"rules must be a preset name (standard, original), got {self.rules!r}")
        resolve_rules(self.rules)
        if self.reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {self.reward!r}")
        int_in(self, "total_steps", 1, MAX_STEPS)
        int_in(self, "checkpoint_every", 0, MAX_STEPS)
        int_in(self, "keep_checkpoints", 0, MAX_STEPS)
        int_in(self, "snapshot_every", 0, MAX_STEPS)
        int_in(self, "magnet_refresh", 0, MAX_STEPS)
        int_in(self, "snapshots_kept", 1, 1000)
        int_in(self, "rollout_steps", 1, MAX_ROWS)
        int_in(self, "minibatch_size", 1, MAX_ROWS)
        int_in(self, "epochs", 1, MAX_EPOCHS)
        int_in(self, "threads", 1, MAX_THREADS)
        int_in(self, "seed", 0, MAX_SEED)
        int_in(self, "memory", 0, MAX_MEMORY)
        rows = self.num_games * sum(self.player_counts) * self.rollout_steps
        if rows > MAX_ROWS:
            raise ConfigError(
                f"num_games × players × rollout_steps ({rows:,} rollout rows) must be at most "
                f"{MAX_ROWS:,}: the rollout buffer holds them all"
            )
        real_in(self, "learning_rate", 0.0, MAX_LEARNING_RATE, low_open=True)
        real_in(self, "clip", 0.0, MAX_COEF, low_open=True)
        for name in ("vf_coef", "ent_coef", "magnet_coef"):
            real_in(self, name, 0.0, MAX_COEF)
        real_in(self, "max_grad_norm", 0.0, MAX_COEF, low_open=True)
        for name in ("gamma", "gae_lambda", "magnet_rate"):
            value = getattr(self, name)
            if not is_number(value) or not 0 <= value <= 1:
                raise ConfigError(f"{name} must be a number in [0, 1], got {value!r}")
        if isinstance(self.hidden, list):  # the JSON form (settings.json, --exploiter-settings)
            object.__setattr__(self, "hidden", tuple(self.hidden))
        if (
            not isinstance(self.hidden, tuple)
            or not 1 <= len(self.hidden) <= MAX_LAYERS
            or any(not is_int(h) or not 1 <= h <= MAX_WIDTH for h in self.hidden)
        ):
            raise ConfigError(
                f"hidden must be a tuple of 1 to {MAX_LAYERS} ints in [1, {MAX_WIDTH}], got {self.hidden!r}"
            )
        if self.activation not in ACTIVATIONS:
            raise ConfigError(f"activation must be one of {ACTIVATIONS}, got {self.activation!r}")
        if self.lr_schedule not in LR_SCHEDULES:
            raise ConfigError(f"lr_schedule must be one of {LR_SCHEDULES}, got {self.lr_schedule!r}")
        if self.magnet not in MAGNETS:
            raise ConfigError(f"magnet must be one of {MAGNETS}, got {self.magnet!r}")
        if self.magnet != "none" and self.magnet_coef == 0:
            raise ConfigError(f"magnet={self.magnet!r} needs magnet_coef > 0")
        final = self.magnet_final_coef
        if final is not None and (not is_number(final) or not 0 <= final <= MAX_COEF):
            raise ConfigError(
                f"magnet_final_coef must be None or a number in [0, {MAX_COEF:g}], got {final!r}"
            )
        if final is not None and self.magnet == "none":
            raise ConfigError("magnet_final_coef anneals a magnet: set magnet to uniform, frozen or ema")
        if not isinstance(self.normalize_advantages, bool):
            raise ConfigError(f"normalize_advantages must be a bool, got {self.normalize_advantages!r}")
        _check_pool(self.opponents)
        if self.snapshot_every == 0 and all(spec == SNAPSHOT for spec, _ in self.opponents):
            raise ConfigError(
                "snapshot_every=0 takes no snapshot until one is added: the opponents need an entry "
                "besides 'snapshot' to draw until then"
            )
        if self.memory and any(spec == SNAPSHOT for spec, _ in self.opponents):
            raise ConfigError(
                "memory: snapshot opponents play the observation alone; use self or agent specs"
            )
        if self.memory and self.padded:
            raise ConfigError(
                "memory reads one table's own observations: it takes one player count, unpadded"
            )
        _check_start(self)

    # ------------------------------------------------------------ derived
    @property
    def player_counts(self) -> tuple[int, ...]:
        """The player counts trained on, sorted (one for an int ``num_players``)."""
        n = self.num_players
        return n if isinstance(n, tuple) else (n,)

    @property
    def learner_seats_only(self) -> bool:
        """Whether some games have seats the learner does not play."""
        return any(spec != SELF for spec, _ in self.opponents)

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (tuples become lists); :meth:`from_dict` reverses it."""
        return json.loads(json.dumps(dataclasses.asdict(self)))  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LearnerSettings:
        """Settings from :meth:`to_dict`'s form; unknown keys raise :class:`ConfigError`."""
        values = dict(data)
        _drop_accelerator(values)
        refuse_unknown_fields(cls, values, "learner settings")
        for name in ("hidden", "num_players"):
            if isinstance(values.get(name), list):
                values[name] = tuple(values[name])
        for name in ("opponents", "curriculum"):
            if isinstance(values.get(name), list):
                values[name] = tuple((str(s), float(w)) for s, w in values[name])
        return cls(**values)

    def replace(self, **changes: Any) -> LearnerSettings:
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)


def _drop_accelerator(values: dict[str, Any]) -> None:
    """Settings saved before the batched engine had one implementation held ``accelerator``:
    ``"auto"`` and ``"numba"`` name the kernels every run uses now and are dropped; the numpy
    path those runs could also ask for is gone, so ``"numpy"`` (or anything else) is refused."""
    if "accelerator" not in values:
        return
    value = values.pop("accelerator")
    if value not in ("auto", "numba"):
        raise ConfigError(
            f"learner settings: accelerator {value!r} is no longer available: the batched engine's "
            "numpy path was removed and every run steps the compiled kernels (numba); delete the "
            "'accelerator' key of this settings file to run it on them"
        )


def _check_counts(settings: LearnerSettings) -> None:
    """``num_players``: an int, or a non-empty tuple of distinct ints in 2..6 (sorted here, and
    ``padded`` set: several counts need one observation layout); ``padded`` a bool."""
    counts = settings.num_players
    if isinstance(counts, tuple):
        if not counts or any(not is_int(n) or not MIN_PLAYERS <= n <= MAX_PLAYERS for n in counts):
            raise ConfigError(
                f"num_players must be an int or a non-empty tuple of player counts in "
                f"{MIN_PLAYERS}..{MAX_PLAYERS}, got {counts!r}"
            )
        if len(set(counts)) != len(counts):
            raise ConfigError(f"num_players lists a count twice: {counts!r}")
        object.__setattr__(settings, "num_players", tuple(sorted(counts)))
        object.__setattr__(settings, "padded", True)
    else:
        validate_num_players(counts)
    if not isinstance(settings.padded, bool):
        raise ConfigError(f"padded must be a bool, got {settings.padded!r}")


def _check_start(settings: LearnerSettings) -> None:
    """``init`` (an agent spec, or ""), ``curriculum`` and ``curriculum_steps`` (both or neither; the
    curriculum and the opponents after it are agent specs: the pool switches between agents)."""
    init = settings.init
    if not isinstance(init, str) or len(init) > MAX_SPEC_CHARS or init != init.strip():
        raise ConfigError(f"init must be an agent spec or '' (a fresh actor), got {init!r:.80}")
    if init in (SELF, SNAPSHOT):
        raise ConfigError(f"init names a policy to start from (an agent spec with weights), got {init!r}")
    if isinstance(settings.curriculum, list):  # the JSON form
        object.__setattr__(settings, "curriculum", tuple(settings.curriculum))
    int_in(settings, "curriculum_steps", 0, MAX_STEPS)
    curriculum = settings.curriculum
    if curriculum == ():
        if settings.curriculum_steps:
            raise ConfigError("curriculum_steps needs a curriculum: the pool played first")
        return
    _check_pool(curriculum, "curriculum")
    if not settings.curriculum_steps:
        raise ConfigError("a curriculum needs curriculum_steps > 0: the learner steps it is played for")
    for name, pool in (("curriculum", curriculum), ("opponents", settings.opponents)):
        if any(spec in (SELF, SNAPSHOT) for spec, _ in pool):
            raise ConfigError(
                f"with a curriculum, {name} must be agent specs (not self or snapshot): the pool switches "
                f"from one set of agents to another, got {[spec for spec, _ in pool]}"
            )


def parse_counts(text: str) -> int | tuple[int, ...]:
    """``"4"`` → ``4``; ``"2,3,4,5,6"`` → ``(2, 3, 4, 5, 6)`` (the CLIs' ``--players``)."""
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ConfigError(f"players must be a count or counts like 2,3,4, got {text!r}") from None
    return counts[0] if len(counts) == 1 else counts


def _check_pool(pool: object, name: str = "opponents") -> None:
    if not isinstance(pool, tuple) or not pool:
        raise ConfigError(f"{name} must be a non-empty tuple of (spec, weight) pairs, got {pool!r}")
    for entry in pool:
        if not isinstance(entry, tuple) or len(entry) != 2:
            raise ConfigError(f"each {name} entry must be a (spec, weight) pair, got {entry!r}")
        spec, weight = entry
        if not isinstance(spec, str) or not spec:
            raise ConfigError(f"each {name} spec must be a non-empty string, got {spec!r}")
        if not is_number(weight) or not 0 < weight <= MAX_WEIGHT:
            raise ConfigError(
                f"the weight of {name} entry {spec!r} must be a number in (0, {MAX_WEIGHT:g}], got {weight!r}"
            )


def parse_pool(text: str) -> tuple[tuple[str, float], ...]:
    """``"self@2,snapshot,expert@0.5"`` → ``(("self", 2.0), ("snapshot", 1.0), ("expert", 0.5))``.

    A weight is the text after the last ``@``; ``ppo:PATH`` specs keep their colon.
    """
    pool = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            raise ConfigError(f"empty entry in the opponents list {text!r}")
        spec, _, weight = part.rpartition("@") if "@" in part else (part, "", "1")
        try:
            pool.append((spec, float(weight)))
        except ValueError:
            raise ConfigError(f"bad weight {weight!r} in opponents entry {part!r}") from None
    result = tuple(pool)
    _check_pool(result)
    return result


__all__ = [
    "ACTIVATIONS",
    "LR_SCHEDULES",
    "MAGNETS",
    "MAX_SPEC_CHARS",
    "SELF",
    "SNAPSHOT",
    "LearnerSettings",
    "parse_counts",
    "parse_pool",
    "refuse_unknown_fields",
]
