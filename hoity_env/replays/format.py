"""The replay file: versioned JSON lines (docs/replays.md describes every field).

A header line, one line per env step, and an ``end`` line once the game stopped.  ``seed`` is the engine
seed of the deal, so a replay re-simulates from the rules alone, with no env and no agent, and the
header names its ruleset, so every ruleset shares the format.  :func:`open_replay` streams and checks one
line at a time, so memory does not grow with the file; :func:`read_replay` collects a :class:`Replay`.
See docs/replays.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hoity_env.engine.config import RulesConfig, validate_num_players
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.events import plain_fields
from hoity_env.engine.inputs import is_integer
from hoity_env.files import write_atomically
from hoity_env.replays.errors import ReplayError, ReplayMismatch
from hoity_env.replays.jsonlines import json_lines

__all__ = [
    "FORMAT",
    "VERSION",
    "Replay",
    "ReplayError",
    "ReplayMismatch",
    "StepRecord",
    "open_replay",
    "read_replay",
]

FORMAT = "hoity_env-replay"
VERSION = 1
"""The format version this hoity_env writes and reads."""
END_REASONS = ("terminated", "truncated", "max_cycles", "quit")


@dataclass(frozen=True)
class StepRecord:
    """One env step: where it was played, the joint action applied, the events it produced."""

    step: int
    round: int
    phase: str
    actions: tuple[int, ...]
    events: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON line's object."""
        return plain_fields(self)


@dataclass
class Replay:
    """A recorded game: header fields, its steps and, once it stopped, its ``end`` record."""

    rules: RulesConfig
    num_players: int
    seed: int
    agents: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)
    steps: list[StepRecord] = field(default_factory=list)
    end: dict[str, Any] | None = None

    def header(self) -> dict[str, Any]:
        """The first line's object."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "ruleset": self.rules.ruleset,
            "rules": self.rules.to_dict(),
            "num_players": self.num_players,
            "seed": self.seed,
            "agents": list(self.agents),
            "meta": self.meta,
        }

    def to_text(self) -> str:
        """The whole file: header, steps, end (JSON lines, one object per line)."""
        lines = [self.header(), *(s.to_dict() for s in self.steps)]
        if self.end is not None:
            lines.append({"end": self.end})
        return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)

    def save(self, path: str | Path) -> Path:
        """Write the file atomically (a temporary file beside it, then a rename); return its path."""
        return write_atomically(path, self.to_text())


HEADER_FIELDS = frozenset({"format", "version", "ruleset", "rules", "num_players", "seed", "agents", "meta"})
STEP_FIELDS = frozenset({"step", "round", "phase", "actions", "events"})
END_FIELDS = frozenset({"reason", "rounds", "winners", "positions"})


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: a hostile file must not make a huge message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _field(obj: dict[str, Any], name: str, kind: type, where: str) -> Any:
    value = obj.get(name)
    ok = is_integer(value) if kind is int else isinstance(value, kind)
    if not ok:
        raise ReplayError(f"{where}: field {name!r} is missing or not a {kind.__name__}, got {_short(value)}")
    return value


def _known_fields(obj: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise ReplayError(f"{where}: unknown field(s) {_short(unknown)}; a line has only {sorted(allowed)}")


def _int_list(obj: dict[str, Any], name: str, where: str, length: int | None = None) -> list[int]:
    values: list[int] = _field(obj, name, list, where)
    if not all(is_integer(v) and v >= 0 for v in values) or (length is not None and len(values) != length):
        size = f"{length} " if length is not None else ""
        raise ReplayError(
            f"{where}: field {name!r} must be a list of {size}non-negative ints, got {_short(values)}"
        )
    return values


def _check_header(header: Any, where: str) -> Replay:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ReplayError(f'{where}: not a hoity_env replay (line 1 has no "format": "{FORMAT}")')
    version: Any = header.get("version")
    if not is_integer(version) or version != VERSION:
        if is_integer(version) and version > VERSION:
            raise ReplayError(
                f"{where}: replay format version {version} is newer than this hoity_env reads "
                f"(version {VERSION}); upgrade hoity_env to read it"
            )
        raise ReplayError(
            f"{where}: replay format version {_short(version)} is not supported; this hoity_env reads "
            f"version {VERSION} only"
        )
    _known_fields(header, HEADER_FIELDS, where)
    try:
        rules = RulesConfig.from_dict(_field(header, "rules", dict, where))
        num_players = validate_num_players(header.get("num_players"))
    except ConfigError as exc:
        raise ReplayError(f"{where}: bad rules or num_players: {exc}") from exc
    ruleset = header.get("ruleset")
    if ruleset != rules.ruleset:
        raise ReplayError(
            f"{where}: header ruleset {_short(ruleset)} differs from its rules ({rules.ruleset!r})"
        )
    seed = _field(header, "seed", int, where)
    if seed < 0:
        raise ReplayError(f"{where}: field 'seed' must be a non-negative int (an engine seed), got {seed}")
    agents = _field(header, "agents", list, where)
    if len(agents) != num_players or not all(isinstance(a, str) for a in agents):
        raise ReplayError(f"{where}: field 'agents' must be {num_players} labels (strings), one per seat")
    meta = header.get("meta", {})
    if not isinstance(meta, dict):
        raise ReplayError(f"{where}: field 'meta' must be an object")
    return Replay(rules=rules, num_players=num_players, seed=seed, agents=tuple(agents), meta=meta)


def _step(obj: dict[str, Any], where: str, num_players: int, expected: int) -> StepRecord:
    _known_fields(obj, STEP_FIELDS, where)
    step = _field(obj, "step", int, where)
    if step != expected:
        raise ReplayError(f"{where}: expected step {expected}, got {step}")
    phase = obj.get("phase")
    if phase not in ("location", "action"):
        raise ReplayError(f"{where}: phase must be 'location' or 'action', got {_short(phase)}")
    # A round is a location step then an action step: the number says which round and step.
    rnd = _field(obj, "round", int, where)
    if (rnd, phase) != (step // 2, ("location", "action")[step % 2]):
        raise ReplayError(
            f"{where}: step {step} is round {step // 2 + 1}'s {('location', 'action')[step % 2]} step"
        )
    actions = _field(obj, "actions", list, where)
    if not all(is_integer(a) for a in actions):
        raise ReplayError(f"{where}: actions must be integers")
    if len(actions) != num_players:
        raise ReplayError(f"{where}: {len(actions)} actions for {num_players} players")
    events = _field(obj, "events", list, where)
    if not all(isinstance(e, dict) for e in events):
        raise ReplayError(f"{where}: events must be objects")
    return StepRecord(step=step, round=rnd, phase=phase, actions=tuple(actions), events=tuple(events))


def _end(obj: dict[str, Any], where: str, num_players: int) -> dict[str, Any]:
    end = obj["end"]
    if len(obj) != 1 or not isinstance(end, dict) or end.get("reason") not in END_REASONS:
        raise ReplayError(
            f"{where}: 'end' must be the line's only field, an object with a reason in {END_REASONS}"
        )
    _known_fields(end, END_FIELDS, where)
    for name in ("rounds", "winners", "positions"):
        if name in end or end["reason"] != "quit":
            if name == "rounds":
                _field(end, name, int, where)
            else:
                _int_list(end, name, where, num_players if name == "positions" else None)
    return end


def open_replay(path: str | Path) -> tuple[Replay, Iterator[StepRecord]]:
    """The checked header of a replay file (its :class:`Replay` without steps) and an iterator of its steps.

    The iterator reads, parses and checks one line at a time; it sets ``replay.end`` when it
    reaches the end line.  Anything malformed raises :class:`ReplayError` naming the line.
    """
    path = Path(path)
    lines = json_lines(path)
    first = next(lines, None)
    if first is None:
        raise ReplayError(f"{path}: empty file, not a hoity_env replay")
    replay = _check_header(first[1], f"{path}:{first[0]}")
    return replay, _steps(replay, lines, path)


def _steps(replay: Replay, lines: Iterator[tuple[int, Any]], path: Path) -> Iterator[StepRecord]:
    count = 0
    most = 2 * replay.rules.max_rounds  # a game never has more steps than its round limit allows
    for k, obj in lines:
        where = f"{path}:{k}"
        if replay.end is not None:
            raise ReplayError(f"{where}: a line after the 'end' line")
        if not isinstance(obj, dict):
            raise ReplayError(f"{where}: expected a JSON object")
        if "end" in obj:
            replay.end = _end(obj, where, replay.num_players)
            continue
        if count >= most:
            raise ReplayError(
                f"{where}: more than {most} steps, the most max_rounds={replay.rules.max_rounds} allows"
            )
        yield _step(obj, where, replay.num_players, count)
        count += 1


def read_replay(path: str | Path) -> Replay:
    """Read a whole replay file; a malformed file or an unknown version raises :class:`ReplayError`."""
    replay, steps = open_replay(path)
    replay.steps.extend(steps)
    return replay
