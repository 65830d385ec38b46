"""How a run starts (issue 45): a warm start from a policy's weights, and a curriculum pool played first.

A warm-started learner's first policy is the init policy (its logits equal the file's on the
run's own observations), its critic the seed's; a resumed run is the uninterrupted one weight for
weight and never reads the init file again; an init whose network is not the learner's, or that
has no weights, is refused before any folder exists.  A curriculum switches its pool at the same
iteration whether or not the run was stopped and resumed in between.  Tiny budgets: plumbing, not
strength.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from hoity_env.agents.policies.named import named_policy
from hoity_env.engine.errors import ConfigError
from hoity_env.learning import Learner, LearnerSettings, resume, train
from hoity_env.learning.runs.session import new_run
from hoity_env.learning.runs.state import load_learner, state_bytes
from hoity_env.learning.warm import init_policy
from tests.learning.stops import train_stopped

CHAMPION = LearnerSettings(
    num_games=4,
    rollout_steps=8,
    minibatch_size=32,
    hidden=(128, 128),
    opponents=(("champion", 1.0),),
    init="champion",
    total_steps=96,
)
"""A best response to ``champion`` (standard, 4 players: 128×128 relu, unpadded) started from it."""


def _logits(learner: Learner) -> np.ndarray:
    obs = torch.from_numpy(np.ascontiguousarray(learner.x.reshape(-1, learner.x.shape[-1])))
    with torch.no_grad():
        out: np.ndarray = learner.policy.logits(obs).double().numpy()
    return out


def _same_weights(a: Learner, b: Learner) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.policy.parameters(), b.policy.parameters(), strict=True))


def _saved(tmp_path: Path, settings: LearnerSettings, name: str = "init.zip") -> Path:
    """A policy of ``settings`` trained one iteration (not the seed's), saved as a ``ppo:`` zip."""
    learner = Learner(settings)
    learner.learn(learner.rows * settings.rollout_steps)
    return learner.save_policy(tmp_path / name)


# ------------------------------------------------------------------ the start
def test_the_first_policy_is_the_named_agents_and_the_critic_the_seeds() -> None:
    learner = Learner(CHAMPION)
    theirs = named_policy("champion").logits(learner.x.reshape(-1, learner.x.shape[-1]))
    assert np.abs(_logits(learner) - theirs).max() < 1e-4
    fresh = Learner(CHAMPION.replace(init=""))
    assert np.abs(_logits(fresh) - theirs).max() > 0.1  # a fresh actor is far from it
    critic = ("critic_body", "value_head")
    mine, seed = learner.policy.state_dict(), fresh.policy.state_dict()
    assert all(torch.equal(mine[k], seed[k]) for k in mine if k.startswith(critic))
    assert not all(torch.equal(mine[k], seed[k]) for k in mine if not k.startswith(critic))


def test_a_population_starts_from_its_heaviest_member_with_padded_inputs() -> None:
    settings = CHAMPION.replace(
        num_players=5, padded=True, opponents=(("champion-mix", 1.0),), init="champion-mix"
    )
    learner = Learner(settings)
    init = init_policy("champion-mix", "standard", (5,))
    assert init.spec.endswith(
        "models/champion-standard.npz (the heaviest member of champion-mix)"
    )  # the first
    assert init.where.endswith("champion-standard.npz") and init.padded is not None
    theirs = named_policy("champion-standard").logits(learner.x.reshape(-1, learner.x.shape[-1]))
    assert np.abs(_logits(learner) - theirs).max() < 1e-4


def test_a_population_passes_over_scripted_members_and_refuses_when_it_has_only_those(
    tmp_path: Path,
) -> None:
    from hoity_env.agents.policies.population import Member, write_population

    mixed = write_population(
        tmp_path / "mixed.json",
        [Member("expert", 3.0), Member("reference", 1.0), Member("champion", 2.0), Member("thief", 2.0)],
    )
    init = init_policy(f"population:{mixed}", "standard", (4,))
    assert init.spec == f"champion (the heaviest member of population:{mixed})"  # expert is heavier
    scripted = write_population(tmp_path / "scripted.json", [Member("expert", 1.0), Member("thief", 1.0)])
    with pytest.raises(ConfigError, match="a population of agents without policy weights"):
        init_policy(f"population:{scripted}", "standard", (4,))


def test_a_ppo_zip_is_copied_exactly(tmp_path: Path) -> None:
    from hoity_env.learning.checkpoint import load_policy

    base = CHAMPION.replace(hidden=(16, 16), opponents=(("thief", 1.0),), init="")
    path = _saved(tmp_path, base)
    learner = Learner(base.replace(init=f"ppo:{path}", seed=3))
    saved, mine = load_policy(path).state_dict(), learner.policy.state_dict()
    actor = [k for k in mine if k.startswith(("actor_body", "action_head"))]
    assert actor and all(torch.equal(mine[k], saved[k]) for k in actor)


def test_a_warm_run_stopped_and_resumed_is_the_uninterrupted_one_without_its_init_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = CHAMPION.replace(hidden=(16, 16), opponents=(("thief", 1.0),), init="")
    path = _saved(tmp_path, base)
    settings = base.replace(init=f"ppo:{path}", seed=3, total_steps=4 * 32)
    straight = train(settings)
    stopped = train_stopped(settings, tmp_path / "run", monkeypatch)  # Ctrl-C after the second update
    assert stopped.steps == 64 < settings.total_steps
    path.unlink()  # the init file is gone: a resume takes the run's weights from its resume state
    resumed = resume(tmp_path / "run")
    assert resumed.steps == straight.steps and _same_weights(resumed, straight)
    assert LearnerSettings.from_dict(json.loads((tmp_path / "run" / "settings.json").read_text())) == settings
    with pytest.raises(ConfigError, match="checkpoint file not found"):
        Learner(settings)  # a new run does read it


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hidden": (64, 64)}, "is a 128×128 relu, the table's input, no memory network"),
        ({"activation": "tanh"}, "this learner's is 128×128 tanh"),
        ({"padded": True}, "this learner's is 128×128 relu, padded input"),
        ({"memory": 2}, "this learner's is 128×128 relu, the table's input, memory 2"),
        ({"init": "expert"}, "init expert has no policy weights to start from"),
        ({"init": "population:" + "x" * 3}, "population"),
        ({"init": "reference", "num_players": 5}, "reference"),
    ],
    ids=["hidden", "activation", "padded", "memory", "scripted", "missing", "table"],
)
def test_an_init_that_does_not_fit_is_refused_before_any_folder(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=message):
        new_run(CHAMPION.replace(**changes), out)
    assert not out.exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"init": "self"}, "init names a policy to start from"),
        ({"init": " champion"}, "init must be an agent spec"),
        ({"curriculum": (("expert", 1.0),)}, "a curriculum needs curriculum_steps > 0"),
        ({"curriculum_steps": 10}, "curriculum_steps needs a curriculum"),
        ({"curriculum": (("self", 1.0),), "curriculum_steps": 8}, "curriculum must be agent specs"),
        (
            {"curriculum": (("expert", 1.0),), "curriculum_steps": 8, "opponents": (("self", 1.0),)},
            "opponents",
        ),
        ({"curriculum": (("expert", 0.0),), "curriculum_steps": 8}, "the weight of curriculum entry"),
    ],
)
def test_start_settings_are_checked(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        CHAMPION.replace(**changes)


def test_start_settings_survive_json() -> None:
    s = CHAMPION.replace(curriculum=(("expert", 2.0), ("thief", 1.0)), curriculum_steps=40)
    assert LearnerSettings.from_dict(s.to_dict()) == s
    old = {k: v for k, v in s.to_dict().items() if k not in ("init", "curriculum", "curriculum_steps")}
    assert LearnerSettings.from_dict(old).init == "" and LearnerSettings.from_dict(old).curriculum == ()


# ------------------------------------------------------------------ the curriculum
CURRICULUM = LearnerSettings(
    num_games=4,
    rollout_steps=8,
    minibatch_size=32,
    hidden=(16, 16),
    opponents=(("thief", 1.0),),
    curriculum=(("expert", 1.0),),
    curriculum_steps=40,  # within the second iteration (32 learner steps each)
    total_steps=160,
)


def _switches(learner: Learner) -> list[int]:
    """Iterate to the end; the learner steps after each iteration at which the pool is the curriculum's."""
    before = []
    while learner.steps < learner.settings.total_steps:
        if learner.seating.entries == ["expert"]:
            before.append(learner.steps)
        learner.iterate()
    return before


def test_the_curriculum_switches_at_the_same_step_after_a_resume(tmp_path: Path) -> None:
    whole = Learner(CURRICULUM)
    assert _switches(whole) == [0, 32]  # switched at the end of the iteration that reached 40
    assert whole.seating.entries == ["expert", "thief"] and list(whole.seating.weights) == [0.0, 1.0]
    for stop in (32, 96):  # before the switch, and after it
        half = Learner(CURRICULUM)
        half.learn(stop)
        state = tmp_path / f"state_{stop}.pt"
        state.write_bytes(state_bytes(half))  # the run folder's resume state, read with weights_only
        resumed = load_learner(state)
        assert _switches(resumed) == ([32] if stop == 32 else [])
        assert _same_weights(resumed, whole) and resumed.seating.entries == whole.seating.entries
        assert np.array_equal(resumed.seating.assignment, whole.seating.assignment)


def test_new_games_after_the_switch_seat_the_opponents_only() -> None:
    learner = Learner(CURRICULUM.replace(total_steps=400))
    learner.learn()
    seating = learner.seating
    expert = seating.entry_actor[0]
    assert seating.weights[0] == 0.0 and not (seating.assignment == expert).any()
