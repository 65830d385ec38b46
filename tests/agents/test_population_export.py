"""``npz:PATH`` agents and ``hoity-export --population`` (issue 36).

A league's population is a mixture of ``ppo-sample:`` checkpoints, which need torch.  To
ship one as a table's ``champion-mix`` it is exported member by member to numpy weights
(``npz:`` specs beside a new manifest): the exported population must make the very same
choices, play without torch, and refuse what it cannot export without writing anything.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hoity_env.agents import make
from hoity_env.agents.policies.export import export_checkpoint, export_population
from hoity_env.agents.policies.population import read_population, write_population
from hoity_env.agents.policies.registry import Registry
from hoity_env.cli.export import main
from hoity_env.engine.errors import ConfigError
from hoity_env.files import SCRATCH
from tests.agents.test_batched_agents import collect_rows
from tests.agents.test_policy_agent import save_tiny_model


def _league(tmp_path: Path) -> Path:
    """A league-like folder: two checkpoints in sub-folders and a scripted member."""
    run = tmp_path / "run"
    for folder in (run / "members", run / "exploiters" / "exploiter_1"):
        folder.mkdir(parents=True)
    save_tiny_model(run / "members" / "main_1.zip")
    save_tiny_model(run / "exploiters" / "exploiter_1" / "final_model.zip", learn=True)
    members = [
        {"spec": "ppo-sample:members/main_1.zip", "weight": 1.0, "origin": "main"},
        {"spec": "ppo-sample:exploiters/exploiter_1/final_model.zip", "weight": 2.0, "origin": "exploiter"},
        {"spec": "expert", "weight": 0.5, "origin": "zoo"},
    ]
    return write_population(run / "population.json", members)


def test_an_npz_spec_makes_the_choices_of_ppo_sample_on_its_checkpoint(tmp_path: Path) -> None:
    ckpt = save_tiny_model(tmp_path / "tiny.zip")
    assert main([str(ckpt), str(tmp_path / "tiny.npz")]) == 0
    obs, masks = collect_rows(4, 300, seed=2)
    mine = make(f"npz:{tmp_path / 'tiny.npz'}", seed=9, num_players=4).act_batch(obs, masks)
    theirs = make(f"ppo-sample:{ckpt}", seed=9, num_players=4).act_batch(obs, masks)
    np.testing.assert_array_equal(mine, theirs)
    with pytest.raises(ConfigError, match="names no weights file"):
        make("npz:")
    with pytest.raises(ConfigError, match=r"not an \.npz file of \.npy arrays"):
        make(f"npz:{ckpt}")  # a zip is not numpy weights (its members are no .npy arrays)


def test_an_exported_population_plays_the_same_games_as_its_league(tmp_path: Path) -> None:
    manifest = _league(tmp_path)
    out = export_population(manifest, tmp_path / "shipped")
    members = read_population(out)
    assert [m.spec for m in members] == [
        "npz:members-main_1.npz",
        "npz:exploiters-exploiter_1-final_model.npz",
        "expert",
    ]
    assert [(m.weight, m.origin) for m in members] == [(1.0, "main"), (2.0, "exploiter"), (0.5, "zoo")]
    assert sorted(p.name for p in out.parent.iterdir()) == [
        "exploiters-exploiter_1-final_model.npz",
        "members-main_1.npz",
        "population.json",
    ]
    from hoity_env.evaluation import evaluate

    results = [
        evaluate([f"population:{m}", "expert", "random", "thief"], games=40, seed=4, progress=False)
        for m in (manifest, out)
    ]
    assert [s.wins for s in results[0].agent_stats] == [s.wins for s in results[1].agent_stats]


def test_a_population_hashes_the_same_wherever_it_lies_and_not_once_a_member_changes(tmp_path: Path) -> None:
    import shutil

    from hoity_env.agents.policies.content import content_hash

    out = export_population(_league(tmp_path), tmp_path / "shipped")
    moved = Path(shutil.copytree(out.parent, tmp_path / "elsewhere" / "shipped")) / "population.json"
    assert content_hash(f"population:{out}") == content_hash(f"population:{moved}")
    member = moved.parent / "members-main_1.npz"
    member.write_bytes(member.read_bytes() + b"\0")  # another file under the same name
    assert content_hash(f"population:{out}") != content_hash(f"population:{moved}")


def test_an_export_that_cannot_finish_writes_nothing_and_never_replaces(tmp_path: Path) -> None:
    manifest = _league(tmp_path)
    (tmp_path / "taken").mkdir()
    with pytest.raises(ConfigError, match="exists"):
        export_population(manifest, tmp_path / "taken")
    data = json.loads(manifest.read_text())
    data["members"].append({"spec": "ppo:members/main_1.zip", "weight": 1.0})  # greedy: no npz form
    manifest.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match=r"members\[3\]"):
        export_population(manifest, tmp_path / "out")
    data["members"][-1] = {"spec": "ppo-sample:missing.zip", "weight": 1.0}
    manifest.write_text(json.dumps(data))
    with pytest.raises((ConfigError, OSError)):
        export_population(manifest, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "taken"]  # no folder, no scratch left


def test_the_registry_takes_a_population_folder_one_level_down_and_nothing_else() -> None:
    def reg(file: str) -> Registry:
        return Registry(
            {"format": "hoity-agents/1", "files": {file: None}, "agents": {"mix": {"standard/2": file}}}
        )

    assert reg("mix-standard-2/population.json").entry("mix", ("standard", 2)) is not None
    for bad in ("a/b/population.json", "mix/other.json", "../population.json", "/population.json"):
        with pytest.raises(ConfigError, match=r"FOLDER/population\.json"):
            reg(bad)


# ------------------------------------------------ issue 44: an export stays in its two folders
def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.mark.parametrize("where", ["{absolute}", "../elsewhere/policy.zip"])
def test_a_member_outside_the_manifests_folder_is_refused_unless_allowed_and_lands_in_out(
    tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ppo-sample:/abs/path/policy.zip`` was unpickled without the opt-in, and its ``.npz`` was
    written at the file system's root (``scratch / "/-abs-path-policy.npz"``), named so in the
    manifest, which ``population:`` then refused."""
    (tmp_path / "elsewhere").mkdir()
    outside = save_tiny_model(tmp_path / "elsewhere" / "policy.zip")
    spec = f"ppo-sample:{where.replace('{absolute}', str(outside))}"
    manifest = write_population(tmp_path / "run" / "population.json", [{"spec": spec, "weight": 1.0}])
    before = _files(tmp_path)

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a checkpoint outside the manifest's folder was loaded")

    with monkeypatch.context() as m:
        m.setattr("hoity_env.agents.policies.export.load_checkpoint", never)
        with pytest.raises(ConfigError, match=r"members\[0\]\.spec .*outside the manifest's folder"):
            export_population(manifest, tmp_path / "out")
    assert _files(tmp_path) == before  # nothing read, nothing written

    written = export_population(manifest, tmp_path / "out", any_paths=True)
    (member,) = read_population(written)
    name = member.spec.removeprefix("npz:")
    assert "/" not in name and (written.parent / name).is_file()
    assert _files(tmp_path) - before == {"out", "out/population.json", f"out/{name}"}
    assert len(make(f"population:{written}", num_players=4).agents) == 1  # plays without the opt-in


def test_an_exported_folder_has_the_usual_permissions(tmp_path: Path) -> None:
    out = export_population(_league(tmp_path), tmp_path / "shipped").parent
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~mask  # mkdtemp's 0700 is not kept


def test_a_scratch_folder_left_by_a_kill_is_reported_and_removed_by_the_next_export(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manifest = _league(tmp_path)
    left = tmp_path / f".shipped.k1ll3d_9{SCRATCH}"  # what a kill -9 mid-export leaves
    other = tmp_path / f".shipped.v2.k1ll3d_9{SCRATCH}"  # another target's ("shipped.v2"): kept
    other.mkdir()
    (left / "members-main_1.npz").parent.mkdir()
    (left / "members-main_1.npz").write_bytes(b"half")
    with caplog.at_level(logging.WARNING, logger="hoity_env"):
        export_population(manifest, tmp_path / "shipped")
    assert not left.exists()
    assert any(str(left) in r.getMessage() for r in caplog.records)
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "run", "shipped"]


@pytest.mark.parametrize(("stop", "status"), [("sigterm", 143), ("ctrl-c", 130)])
def test_a_stopped_export_leaves_no_scratch_folder(
    tmp_path: Path,
    stop: str,
    status: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    manifest = _league(tmp_path)
    real = export_checkpoint
    calls: list[Path] = []

    def export_then_stop(checkpoint: Path, out: Path, **kwargs: Any) -> Path:
        calls.append(real(checkpoint, out, **kwargs))
        if stop == "sigterm":
            os.kill(os.getpid(), signal.SIGTERM)  # the command's handler unwinds at the next line
        raise KeyboardInterrupt

    monkeypatch.setattr("hoity_env.agents.policies.export.export_checkpoint", export_then_stop)
    handler = signal.getsignal(signal.SIGTERM)
    assert main(["--population", str(manifest), str(tmp_path / "shipped")]) == status
    assert len(calls) == 1  # stopped after one member was written
    assert len(capsys.readouterr().err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no scratch folder, no lock, no OUT
    assert signal.getsignal(signal.SIGTERM) is handler  # the command's own handler is gone


def test_every_member_exports_for_the_leagues_rules(tmp_path: Path) -> None:
    """A league's exploiters record no rules of their own: the league's table decides for all."""
    manifest = _league(tmp_path)
    out = export_population(manifest, tmp_path / "told", rules="standard")
    files = [m.spec.removeprefix("npz:") for m in read_population(out) if m.spec.startswith("npz:")]
    from hoity_env.agents.policies.mlp import load_policy

    assert {load_policy(out.parent / f).metadata["rules"] for f in files} == {"standard"}
    with pytest.raises(ConfigError, match="original"):  # 4-player standard weights, told original
        export_population(manifest, tmp_path / "wrong", rules="original")
    (manifest.parent / "league_settings.json").write_text(json.dumps({"main": {"rules": "original"}}))
    with pytest.raises(ConfigError, match="original"):  # the league's own rules, read beside it
        export_population(manifest, tmp_path / "league")
    assert not (tmp_path / "wrong").exists() and not (tmp_path / "league").exists()
