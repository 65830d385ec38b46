"""Hostile files: every file format the package reads, damaged in every way we know (issue 44).

Each format has one validating reader (docs/guarantees.md lists them); :data:`READERS` is the
table of those readers, each row with the damages that apply to its format.  Every pair is one
test: the damaged file is refused with one line (a ``ConfigError``, the class every command
reports as ``error:`` with exit status 2; a :class:`FileFormatError` where the file itself is
at fault) that names the file, without a hang (FIFOs), an allocation of the declared size, or
a ``RecursionError``, and nothing in the folder is created or changed.  A few rows go through
the command lines, which must answer exit status 2, one ``error:`` line and no traceback.
Adding a reader adds its row here.

No test here trains or plays a game: the whole matrix runs in seconds.
"""

from __future__ import annotations

import io
import json
import os
import sys
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hoity_env.agents import make
from hoity_env.agents.policies.mlp import FORMAT, load_policy, save_policy
from hoity_env.agents.policies.population import POPULATION_FORMAT, read_population
from hoity_env.cli.eval import main as eval_main
from hoity_env.cli.export import main as export_main
from hoity_env.engine.errors import ConfigError, FileFormatError
from hoity_env.replays import ReplayError, read_replay
from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "docs"))

OBS_DIM, NUM_ACTIONS = 117, 56
"""A 4-player standard observation and its actions: what a policy file for that table holds."""
DEEP = "[" * 100_000 + "]" * 100_000
"""JSON nested far deeper than Python's parser recurses."""
HUGE = 10**400
"""An integer no field of any format holds (JSON writes it as 401 digits)."""


# ------------------------------------------------------------------------ writing good files
def _metadata(**changes: Any) -> dict[str, Any]:
    meta = {
        "format": FORMAT,
        "obs_dim": OBS_DIM,
        "num_actions": NUM_ACTIONS,
        "num_players": 4,
        "rules": "standard",
        "activation": "tanh",
    }
    return {**meta, **changes}


def _arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "w0": rng.normal(size=(8, OBS_DIM)).astype(np.float32),
        "b0": np.zeros(8, np.float32),
        "w1": rng.normal(size=(NUM_ACTIONS, 8)).astype(np.float32),
        "b1": np.zeros(NUM_ACTIONS, np.float32),
    }


def write_policy(path: Path) -> Path:
    """A valid ``npz:`` policy for 4 players of the standard rules."""
    arrays = _arrays()
    return save_policy(path, [arrays["w0"], arrays["w1"]], [arrays["b0"], arrays["b1"]], _metadata())


def _npz(path: Path, metadata: str | None = None, **arrays: np.ndarray) -> None:
    """An ``.npz`` file of a policy's arrays with ``arrays`` replacing some, and the metadata text."""
    content: dict[str, Any] = {**_arrays(), **arrays}
    content["metadata"] = np.array(json.dumps(_metadata()) if metadata is None else metadata)
    with path.open("wb") as fh:
        np.savez(fh, **content)


def _huge_header(path: Path) -> None:
    """A policy whose ``w0`` header declares 10^6 x 10^6 float32 values (3.6 TiB), 16 bytes stored."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**6, 10**6)}
    )
    _npz(path)
    with zipfile.ZipFile(path, "a") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the name written twice: the point here
        archive.writestr("w0.npy", header.getvalue() + bytes(16))  # a second w0: refused either way


def _huge_header_alone(path: Path) -> None:
    """The same header as the only ``w0`` (so the shape itself, not the repeated name, is at fault)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**6, 10**6)}
    )
    arrays = {k: v for k, v in _arrays().items() if k != "w0"}
    with zipfile.ZipFile(path, "w") as archive:
        for name, value in {**arrays, "metadata": np.array(json.dumps(_metadata()))}.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, value)
            archive.writestr(f"{name}.npy", buffer.getvalue())
        archive.writestr("w0.npy", header.getvalue() + bytes(16))


def write_manifest(path: Path, members: list[dict[str, Any]] | None = None, raw: str | None = None) -> Path:
    members = members or [{"spec": "random", "weight": 1.0}, {"spec": "thief", "weight": 2.0}]
    text = raw if raw is not None else json.dumps({"format": POPULATION_FORMAT, "members": members})
    path.write_text(text, encoding="utf-8")
    return path


def write_member_population(path: Path) -> Path:
    """A manifest at ``path`` whose one ``npz:`` member lies beside it (``member.npz``)."""
    write_policy(path.parent / "member.npz")
    return write_manifest(
        path, [{"spec": "npz:member.npz", "weight": 1.0}, {"spec": "random", "weight": 1.0}]
    )


def write_record(path: Path, runs: Any = None, raw: str | None = None) -> Path:
    run = {
        "kind": "exploit",
        "table": "standard/4",
        "estimator": "strong",
        "seed": 0,
        "budget": 2_000_000,
        "win_rate": 0.25,
        "target_hash": "sha256:0",
    }
    text = raw if raw is not None else json.dumps({"runs": [run] if runs is None else runs})
    path.write_text(text, encoding="utf-8")
    return path


def write_replay(path: Path) -> Path:
    from hoity_env.replays import RecordingEnv

    env = RecordingEnv(num_players=2)
    obs, _ = env.reset(seed=1)
    for _ in range(4):
        obs, *_ = env.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
    return env.save_replay(path)


# ------------------------------------------------------------------------------ damages
def _truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _json(text: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        path.write_text(text, encoding="utf-8")

    return damage


def _metadata_text(text: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        _npz(path, metadata=text)

    return damage


def _arrays_replaced(**arrays: Any) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        _npz(path, **arrays)

    return damage


def _member(damage: Callable[[Path], None]) -> Callable[[Path], None]:
    """A damage applied to the population's ``npz:`` member instead of the manifest."""

    def apply(path: Path) -> None:
        damage(path.parent / "member.npz")

    return apply


def _member_link_out(path: Path) -> None:
    """The member is a symbolic link to a valid policy outside the manifest's folder."""
    outside = write_policy(path.parent.parent / "outside.npz")
    (path.parent / "member.npz").unlink()
    (path.parent / "member.npz").symlink_to(outside)


def _member_spec(spec: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        write_manifest(path, [{"spec": spec, "weight": 1.0}])

    return damage


def _manifest_members(*members: Any) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        write_manifest(path, list(members))

    return damage


def _record_text(text: str) -> Callable[[Path], None]:
    return _json(text)


def _record_runs(runs: Any) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        write_record(path, runs)

    return damage


def _replay_line(text: str) -> Callable[[Path], None]:
    """The replay with its second line (the first step) replaced by ``text``."""

    def damage(path: Path) -> None:
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text("\n".join([lines[0], text, *lines[2:]]) + "\n", encoding="utf-8")

    return damage


GENERIC: dict[str, Callable[[Path], None]] = {
    "truncated": _truncated,
    "empty": _empty,
    "fifo": _fifo,
    "directory": _directory,
}
"""What any file can suffer."""


# ------------------------------------------------------------------------------- readers
def _read_tables_record(path: Path) -> Any:
    import tables

    return tables.read_record(path)


@dataclass(frozen=True)
class Reader:
    """One file format's reader: how to write a good file, read it, and the damages to try."""

    name: str
    file: str
    """The file's name in its folder (the test's ``tmp_path/folder``)."""
    write: Callable[[Path], Path]
    read: Callable[[Path], Any]
    damages: dict[str, Callable[[Path], None]]
    error: type[Exception] = FileFormatError
    """What a damaged file raises (every class here is a ``ValueError``)."""
    named: Callable[[Path], str] = field(default=lambda path: str(path))
    """What the message must contain: the file at fault."""


READERS = (
    Reader(
        "policy npz",
        "policy.npz",
        write_policy,
        load_policy,
        {
            **GENERIC,
            "non_object_metadata": _metadata_text("[1, 2]"),
            "deep_metadata": _metadata_text(DEEP),
            "obs_dim_text": _metadata_text(json.dumps(_metadata(obs_dim="abc"))),
            "activation_list": _metadata_text(json.dumps(_metadata(activation=["relu"]))),
            "huge_int": _metadata_text(json.dumps(_metadata(obs_dim=HUGE))),
            "nul": _metadata_text(json.dumps(_metadata(rules="standard\0"))),
            "no_metadata": _metadata_text(""),
            "weights_as_strings": _arrays_replaced(w0=np.full((8, OBS_DIM), "1.0")),
            "complex_weights": _arrays_replaced(w0=np.ones((8, OBS_DIM), np.complex64)),
            "object_weights": _arrays_replaced(w0=np.array([None, 1.0], dtype=object)),
            "integer_weights": _arrays_replaced(w0=np.ones((8, OBS_DIM), np.int32)),
            "nan_weights": _arrays_replaced(b0=np.full(8, np.nan, np.float32)),
            "wrong_shape": _arrays_replaced(w1=np.ones((NUM_ACTIONS, 9), np.float32)),
            "huge_shape": _huge_header_alone,
            "array_named_twice": _huge_header,
        },
    ),
    Reader(
        "population manifest",
        "population.json",
        write_manifest,
        read_population,
        {
            **GENERIC,
            "non_object": _json("[1, 2]"),
            "deep": _json('{"format": ' + DEEP + "}"),
            "weight_text": _manifest_members({"spec": "random", "weight": "1"}),
            "weight_huge_int": _json(
                '{"format": "hoity-population/1", "members": [{"spec": "random", "weight": 1'
                + "0" * 400
                + "}]}"
            ),
            "spec_nul": _manifest_members({"spec": "npz:a\0b.npz", "weight": 1}),
            "spec_control": _manifest_members({"spec": "random\n", "weight": 1}),
            "members_text": _json('{"format": "hoity-population/1", "members": "random"}'),
            "unknown_field": _json(
                '{"format": "hoity-population/1", "members": [{"spec": "random", "weight": 1}], "x": 1}'
            ),
        },
    ),
    Reader(
        "population member",
        "population.json",
        write_member_population,
        lambda path: make(f"population:{path}", num_players=4),
        {
            **{f"member_{k}": _member(d) for k, d in GENERIC.items()},
            "member_link_out": _member_link_out,
            "member_absolute": lambda path: _member_spec(f"npz:{path.parent / 'member.npz'}")(path),
            "member_up": _member_spec("npz:../member.npz"),
            "member_complex": _member(_arrays_replaced(w0=np.ones((8, OBS_DIM), np.complex128))),
            "member_huge_shape": _member(_huge_header_alone),
            "member_nul_metadata": _member(_metadata_text(json.dumps(_metadata(rules="\0")))),
        },
        error=ConfigError,
    ),
    Reader(
        "tables record",
        "tables.json",
        write_record,
        _read_tables_record,
        {
            **GENERIC,
            "truncated_json": _record_text('{"runs": [{"kind": "h2h"'),
            "list": _record_text("[]"),
            "runs_text": _record_runs("abc"),
            "runs_of_integers": _record_runs([1, 2]),
            "deep": _record_text('{"runs": ' + DEEP + "}"),
            "huge_seed": _record_text('{"runs": [{"kind": "h2h", "seed": ' + "9" * 400 + "}]}"),
            "nul": _record_runs([{"kind": "h2h\0"}]),
            "win_rate_text": _record_runs(
                [
                    {
                        "kind": "h2h",
                        "table": "standard/2",
                        "estimator": "",
                        "seed": 7,
                        "budget": 0,
                        "win_rate": "x",
                    }
                ]
            ),
            "unknown_table": _record_runs(
                [{"kind": "h2h", "table": "x", "estimator": "", "seed": 7, "budget": 0, "win_rate": 0.5}]
            ),
        },
    ),
    Reader(
        "replay",
        "game.jsonl",
        write_replay,
        read_replay,
        {
            **GENERIC,
            "deep": _replay_line(DEEP),
            "huge_int": _replay_line(json.dumps({"step": HUGE})),
            "nul": _replay_line(json.dumps({"step": "\0"})),
            "non_object": _replay_line("[1, 2]"),
        },
        error=ReplayError,
    ),
)
"""Every reader of a file format (one row each) and the damages that apply to it."""

CASES = [(reader, damage) for reader in READERS for damage in reader.damages]


def _snapshot(folder: Path) -> dict[str, Any]:
    """Every entry under ``folder``: its kind, and a regular file's bytes (never opening a FIFO)."""
    out: dict[str, Any] = {}
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = Path(root) / name
            mode = path.lstat().st_mode
            regular = path.is_file() and not path.is_symlink() and not path.is_fifo()
            out[str(path.relative_to(folder))] = (mode, path.read_bytes() if regular else None)
    return out


@pytest.mark.parametrize(("reader", "damage"), CASES, ids=[f"{r.name}-{d}" for r, d in CASES])
def test_a_damaged_file_is_one_line_naming_it_and_changes_nothing(
    tmp_path: Path, reader: Reader, damage: str
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    path = reader.write(folder / reader.file)
    reader.read(path)  # the good file reads
    reader.damages[damage](path)
    before = _snapshot(tmp_path)
    with pytest.raises(reader.error) as info:
        reader.read(path)
    message = str(info.value)
    assert "\n" not in message, message
    shown = {str(path), str(path.parent), str(path.parent / "member.npz"), "member.npz"}
    assert any(name in message for name in shown), message
    assert _snapshot(tmp_path) == before


def test_every_reader_meets_every_damage_class() -> None:
    """The matrix is whole: each reader meets the damages every file can suffer."""
    for reader in READERS:
        met = {name.removeprefix("member_") for name in reader.damages}
        assert set(GENERIC) <= met, reader.name


def test_a_huge_declared_shape_is_refused_on_its_header(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Refused before any array is read: reading the data would be the allocation."""
    path = tmp_path / "huge.npz"
    _huge_header_alone(path)
    monkeypatch.setattr(np, "frombuffer", lambda *a, **k: pytest.fail("an array was read"))
    with pytest.raises(FileFormatError, match=r"1,000,000,000,000 values.*nothing was allocated"):
        load_policy(path)


def test_complex_weights_are_refused_not_truncated(tmp_path: Path) -> None:
    path = tmp_path / "c.npz"
    _npz(path, w0=np.ones((8, OBS_DIM)) + 1j)
    with pytest.raises(FileFormatError, match="complex"):
        load_policy(path)
    arrays = _arrays()
    with pytest.raises(ConfigError, match="real numbers"):
        save_policy(
            tmp_path / "d.npz", [arrays["w0"] + 1j, arrays["w1"]], [arrays["b0"], arrays["b1"]], _metadata()
        )
    assert not (tmp_path / "d.npz").exists()


def test_numpy_scalars_in_metadata_are_written_as_plain_values(tmp_path: Path) -> None:
    arrays = _arrays()
    meta = _metadata(obs_dim=np.int64(OBS_DIM), num_actions=np.int32(NUM_ACTIONS))
    path = save_policy(tmp_path / "p.npz", [arrays["w0"], arrays["w1"]], [arrays["b0"], arrays["b1"]], meta)
    assert load_policy(path).metadata["obs_dim"] == OBS_DIM


# --------------------------------------------------------------------------- command lines
def _one_error_line(err: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and ": error: " in lines[0], err
    assert "Traceback" not in err


_NUL_WEIGHT = (
    '{"format": "hoity-population/1", "members": [{"spec": "random\\u0000", "weight": 1},'
    ' {"spec": "random", "weight": 1' + "0" * 400 + "}]}"
)
"""A manifest with a spec holding ``\\u0000`` and a weight of 401 digits (the first is reported)."""


@pytest.fixture
def bad_policy(tmp_path: Path) -> Path:
    path = tmp_path / "bad.npz"
    _npz(path, metadata=json.dumps(_metadata(obs_dim="abc")))
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["--agents", "npz:{policy},random,random,random", "--games", "4"],
        ["tournament", "--pool", "population:{manifest},random", "--players", "2", "--games", "2"],
        ["exploit", "--target", "npz:{policy}", "--budget", "1000", "--runs-dir", "{tmp}/runs"],
        [
            "ladder",
            "--agents",
            "population:{manifest},random",
            "--budget",
            "1000",
            "--runs-dir",
            "{tmp}/runs",
        ],
    ],
    ids=["evaluate-npz", "tournament-population", "exploit-npz", "ladder-population"],
)
def test_hoity_eval_refuses_a_damaged_file_with_one_line(
    tmp_path: Path, bad_policy: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = write_manifest(tmp_path / "population.json", raw=_NUL_WEIGHT)
    before = _snapshot(tmp_path)
    filled = [a.format(policy=bad_policy, manifest=manifest, tmp=tmp_path) for a in argv]
    assert eval_main([*filled, "-q"]) == 2
    _one_error_line(capsys.readouterr().err)
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("against", ["npz:{policy}", "population:{manifest}"])
def test_hoity_learn_refuses_a_damaged_opponent_with_one_line(
    tmp_path: Path, bad_policy: Path, against: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from hoity_env.cli.learn import main as learn_main

    manifest = write_manifest(tmp_path / "population.json", raw=_NUL_WEIGHT)
    before = _snapshot(tmp_path)
    spec = against.format(policy=bad_policy, manifest=manifest)
    assert learn_main(["--against", spec, "--out", str(tmp_path / "run")]) == 2
    _one_error_line(capsys.readouterr().err)
    assert _snapshot(tmp_path) == before


def test_a_fifo_policy_is_refused_without_blocking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "f.npz")  # opening it for reading would wait for a writer forever
    assert eval_main(["-q", "--agents", f"npz:{tmp_path / 'f.npz'},random", "--games", "2"]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert "named pipe" in err


def test_the_tables_record_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import tables

    record = write_record(tmp_path / "tables.json", runs="abc")
    before = _snapshot(tmp_path)
    with pytest.raises(SystemExit) as info:
        tables.main(["--record", str(record), "--runs-dir", str(tmp_path / "runs")])
    assert info.value.code == 2
    _one_error_line(capsys.readouterr().err)
    assert _snapshot(tmp_path) == before  # no lock file, no runs folder, the record as it was


def test_the_export_refuses_a_damaged_manifest_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = write_manifest(
        tmp_path / "population.json", raw='{"format": "hoity-population/1", "members": ['
    )
    before = _snapshot(tmp_path)
    assert export_main(["--population", str(manifest), str(tmp_path / "out")]) == 2
    _one_error_line(capsys.readouterr().err)
    assert _snapshot(tmp_path) == before


# ------------------------------------------------- a hand-made position of numpy integers
def test_a_hand_made_position_of_numpy_integers_plays_as_its_plain_twin() -> None:
    """Read back from arrays, a position holds ``np.int64`` values: they were refused as
    "holds np.int64(28), not a card id in [0, 44]", which is not why."""
    import hoity_env

    env = hoity_env.parallel_env(num_players=4)
    env.reset(seed=0)
    plain = env.game_state.to_dict()
    numpy = {
        **plain,
        "money": [np.int64(v) for v in plain["money"]],
        "hands": [[np.int64(c) for c in hand] for hand in plain["hands"]],
        "round": np.int64(plain["round"]),
    }
    env.reset(seed=1, options={"position": numpy})
    assert env.game_state.to_dict() == plain
    assert all(type(v) is int for v in env.game_state.to_dict()["money"])


def test_identifying_an_agent_never_opens_a_fifo(tmp_path: Path) -> None:
    """The ladder hashes what a spec plays (``content_hash``): a FIFO would block the read."""
    from hoity_env.agents.policies.content import content_hash

    os.mkfifo(tmp_path / "f.npz")
    with pytest.raises(FileFormatError, match="named pipe"):
        content_hash(f"npz:{tmp_path / 'f.npz'}")
