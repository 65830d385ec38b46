"""The replay file: versioned JSON lines (docs/replays.md describes every field).

Line 1 is the header, one line per env step follows, and a game that stopped
(decided, truncated, or quit by a human) ends with an ``end`` line::

    {"format": "hoity_env-replay", "version": 1, "ruleset": "standard", "rules": {...},
     "num_players": 4, "seed": 123, "agents": ["human", "expert", ...], "meta": {...}}
    {"step": 0, "round": 0, "phase": "location", "actions": [1, 0, 1, 1], "events": [...]}
    ...
    {"end": {"reason": "terminated", "rounds": 25, "winners": [2], "positions": [...]}}

``seed`` is the engine seed of the deal (``Game.new_state(seed)``), so a replay
re-simulates from the rules alone, with no env and no agent.  ``actions`` are the
actions the rules applied (after the env's fallback for masked-out actions).
Events are the engine's own dicts.  A header names its ruleset, so a second
ruleset reads and writes the same format; the reader refuses versions it does
not know with a message saying which it reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError
from hoity_env.files import write_atomically

__all__ = ["FORMAT", "VERSION", "Replay", "ReplayError", "ReplayMismatch", "StepRecord", "read_replay"]

FORMAT = "hoity_env-replay"
VERSION = 1
"""The format version this hoity_env writes and reads."""
END_REASONS = ("terminated", "truncated", "max_cycles", "quit")


class ReplayError(ValueError):
    """A replay file that cannot be read, or whose re-simulation differs from its record."""


class ReplayMismatch(ReplayError):
    """A readable replay whose re-simulation differs from its record (the message names the round)."""


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
        return {
            "step": self.step,
            "round": self.round,
            "phase": self.phase,
            "actions": list(self.actions),
            "events": list(self.events),
        }


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


def _field(obj: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = obj.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ReplayError(f"{where}: field {name!r} is missing or not a {getattr(kind, '__name__', kind)}")
    return value


def _check_header(header: Any, where: str) -> Replay:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ReplayError(f'{where}: not a hoity_env replay (line 1 has no "format": "{FORMAT}")')
    version = header.get("version")
    if version != VERSION:
        if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
            raise ReplayError(
                f"{where}: replay format version {version} is newer than this hoity_env reads "
                f"(version {VERSION}); upgrade hoity_env to read it"
            )
        raise ReplayError(
            f"{where}: replay format version {version!r} is not supported; this hoity_env reads "
            f"version {VERSION} only"
        )
    try:
        rules = RulesConfig.from_dict(_field(header, "rules", dict, where))
    except ConfigError as exc:
        raise ReplayError(f"{where}: bad rules: {exc}") from exc
    ruleset = header.get("ruleset")
    if ruleset != rules.ruleset:
        raise ReplayError(f"{where}: header ruleset {ruleset!r} differs from its rules ({rules.ruleset!r})")
    agents = _field(header, "agents", list, where)
    meta = header.get("meta", {})
    if not isinstance(meta, dict):
        raise ReplayError(f"{where}: field 'meta' must be an object")
    return Replay(
        rules=rules,
        num_players=_field(header, "num_players", int, where),
        seed=_field(header, "seed", int, where),
        agents=tuple(str(a) for a in agents),
        meta=meta,
    )


def _step(obj: dict[str, Any], where: str) -> StepRecord:
    actions = _field(obj, "actions", list, where)
    events = _field(obj, "events", list, where)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in actions):
        raise ReplayError(f"{where}: actions must be integers")
    if not all(isinstance(e, dict) for e in events):
        raise ReplayError(f"{where}: events must be objects")
    phase = obj.get("phase")
    if phase not in ("location", "action"):
        raise ReplayError(f"{where}: phase must be 'location' or 'action', got {phase!r}")
    return StepRecord(
        step=_field(obj, "step", int, where),
        round=_field(obj, "round", int, where),
        phase=phase,
        actions=tuple(actions),
        events=tuple(events),
    )


def read_replay(path: str | Path) -> Replay:
    """Read a replay file; a malformed file or an unknown version raises :class:`ReplayError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"cannot read {path}: {exc}") from exc
    lines = [(k, line) for k, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise ReplayError(f"{path}: empty file, not a hoity_env replay")
    objects = []
    for k, line in lines:
        try:
            objects.append((k, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{path}:{k}: not JSON ({exc.msg})") from None
    replay = _check_header(objects[0][1], f"{path}:1")
    for k, obj in objects[1:]:
        where = f"{path}:{k}"
        if replay.end is not None:
            raise ReplayError(f"{where}: a line after the 'end' line")
        if not isinstance(obj, dict):
            raise ReplayError(f"{where}: expected a JSON object")
        if "end" in obj:
            end = obj["end"]
            if not isinstance(end, dict) or end.get("reason") not in END_REASONS:
                raise ReplayError(f"{where}: 'end' must be an object with a reason in {END_REASONS}")
            replay.end = end
            continue
        step = _step(obj, where)
        if step.step != len(replay.steps):
            raise ReplayError(f"{where}: expected step {len(replay.steps)}, got {step.step}")
        replay.steps.append(step)
    return replay
