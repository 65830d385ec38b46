"""A league run: the main agent on the fast learner, snapshots and exploiters joining its pool.

What joins the pool and how members are weighed is :mod:`hoity_env.league.members`.  The run folder
keeps every rule of :mod:`hoity_env.learning.runs.folder`; member paths in ``league.json`` and
``population.json`` are relative to it, so it can be moved.  See docs/league.md (the run folder).
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from hoity_env.agents.policies.population import resolve_spec, write_population
from hoity_env.evaluation.harness import evaluate
from hoity_env.evaluation.settings import MatchSettings
from hoity_env.files import write_atomically
from hoity_env.league.members import (
    EXPLOITER_SEED_STEP,
    LeagueSettings,
    Member,
    pfsp_factor,
    read_league_record,
    read_league_settings,
    starting_members,
)
from hoity_env.learning.loop import Learner
from hoity_env.learning.runs.folder import LEAGUE, RESPONSE, RunFolder
from hoity_env.learning.runs.session import SETTINGS as LEARNER_SETTINGS
from hoity_env.learning.runs.session import (
    Resumed,
    Stop,
    check_same_settings,
    diverged,
    prepare_resume,
    read_settings,
    save_checkpoint,
    settings_text,
    stop_on_signals,
)
from hoity_env.learning.runs.state import load_learner
from hoity_env.learning.update import DivergenceError
from hoity_env.strength.exploit import exploitability_of
from hoity_env.strength.response import BestResponse

logger = logging.getLogger(__name__)

SETTINGS = "league_settings.json"
RECORD = "league.json"
POPULATION = "population.json"
EVENTS = ("snapshot", "exploiter", "pfsp")


def _next(steps: int, every: int) -> int:
    return (steps // every + 1) * every if every else 0


class League:
    """One league run in its folder: :meth:`start` or :meth:`resume` it, then :meth:`run` it.

    A checkpoint (every ``main.checkpoint_every`` steps, after every league event and at the end)
    writes ``checkpoints/league_<steps>.json`` before the learner's ``state_<steps>.pt``, so a resume
    finds the league as it was at the learner state it continues from; a kill -9 loses at most the
    work since then (an exploiter in training is trained again, in a new folder).
    """

    def __init__(
        self,
        settings: LeagueSettings,
        path: Path,
        learner: Learner,
        state: dict[str, Any],
        resumed: Resumed | None = None,
    ) -> None:
        self.settings, self.path, self.learner = settings, Path(path), learner
        self.folder = RunFolder(self.path, LEAGUE)
        self.members = [Member.from_dict(m) for m in state["members"]]
        self.due: dict[str, int] = dict(state["due"])
        self.events: list[dict[str, Any]] = list(state["events"])
        self.cpu = float(state["cpu"])
        """CPU-seconds spent by this run before the current process's share."""
        self.exploiters = int(state["exploiters"])
        self._started = time.process_time()
        self.resumed = resumed
        """Where a resumed run continues (its checkpoint, this session); ``None`` for a new run."""
        self.stop: Stop | None = None
        """How the last :meth:`run` ended (its signal, its time limit)."""

    @property
    def signal(self) -> int:
        """The signal that stopped the last :meth:`run` early (0: it ran to its end)."""
        return self.stop.signum if self.stop is not None else 0

    # ------------------------------------------------------------ start / resume
    @classmethod
    def start(cls, settings: LeagueSettings, path: str | Path, *, next_free: bool = False) -> League:
        """A new league run in the (empty or missing) folder ``path`` (``next_free``: or the next
        free ``path_2`` …); every setting and agent spec is checked before the folder exists."""
        learner = Learner(settings.main)
        files = {
            LEARNER_SETTINGS: settings_text(settings.main),
            SETTINGS: json.dumps(settings.to_dict(), indent=2) + "\n",
        }
        folder = RunFolder.create(path, LEAGUE, files, next_free=next_free)
        s = settings
        state = {
            "members": [m.to_dict() for m in starting_members(s)],
            "due": {
                "snapshot": _next(0, s.snapshot_every),
                "exploiter": _next(0, s.exploiter_every),
                "pfsp": _next(0, s.pfsp_every),
            },
            "events": [],
            "cpu": 0.0,
            "exploiters": 0,
        }
        return cls(settings, folder.path, learner, state)

    @classmethod
    def resume(cls, path: str | Path) -> League:
        """The run in ``path`` at its newest readable checkpoint, with its own settings (nothing is
        written until :meth:`run`)."""
        folder = RunFolder.open(path, LEAGUE)
        settings = read_league_settings(folder.path / SETTINGS)
        main = read_settings(folder.path / LEARNER_SETTINGS)
        where = f"the main settings in {SETTINGS}"
        check_same_settings(folder.path / LEARNER_SETTINGS, main, settings.main, where)

        def load(at: int) -> tuple[dict[str, Any], Learner]:
            state = read_league_record(folder.checkpoints / f"league_{folder.tag(at)}.json", at)
            # The members' agents are built where the folder is now (it may have moved).
            specs = [_resolve(Member.from_dict(m), folder.path) for m in state["members"]]
            return state, load_learner(folder.state_file(at), specs)

        steps, (state, learner), damaged = folder.latest(load)
        check_same_settings(folder.path / SETTINGS, settings.main, learner.settings)
        return cls(settings, folder.path, learner, state, Resumed(steps, damaged))

    @property
    def finished(self) -> bool:
        """Whether the run reached its end: ``finished.json``, or its steps or CPU budget spent."""
        s = self.settings
        over_cpu = bool(s.cpu_budget) and self.cpu_now() >= s.cpu_budget
        return self.folder.finished or self.learner.steps >= s.main.total_steps or over_cpu

    def cpu_now(self) -> float:
        return self.cpu + time.process_time() - self._started

    # ------------------------------------------------------------ the run
    def run(self, time_limit: float = 0.0) -> Learner:
        """Train until ``main.total_steps`` or ``cpu_budget`` (``time_limit`` seconds of wall time
        in this session, 0: none), holding the folder's lock; checkpoints, events, clean stops.
        Ctrl-C / SIGTERM stop after the iteration, exploiter or scoring in progress with a
        checkpoint; a second signal aborts at once.  A finished run is final: nothing is written."""
        if self.finished:
            logger.info("the league in %s is finished: nothing to train", self.path)
            return self.learner
        self.cpu, self._started = self.cpu_now(), time.process_time()
        every = self.settings.main.checkpoint_every
        last = self.learner.steps
        with self.folder.locked():
            if self.resumed is not None:
                prepare_resume(self.folder, self.resumed, self.learner)
                self._publish()
                self.resumed = None
            try:
                with stop_on_signals(time_limit) as stop:
                    self.stop = stop
                    while not self.finished and not stop.requested:
                        stats = self.learner.iterate()
                        self.folder.log(stats)
                        logger.info(
                            "%d learner steps: return %.3f",
                            self.learner.steps,
                            stats.get("episode_return", 0.0),
                        )
                        changed = self._events(stop)
                        if changed or stop.requested or (every and self.learner.steps - last >= every):
                            self.checkpoint()
                            last = self.learner.steps
            except DivergenceError as exc:
                raise diverged(exc, self.folder) from None
            if last != self.learner.steps or self.learner.steps not in self.folder.complete():
                self.checkpoint()
            if self.finished:
                self.folder.finish({"steps": self.learner.steps, "cpu": self.cpu_now()})
        return self.learner

    def _events(self, stop: Any) -> bool:
        """The league events due after this iteration; whether the pool changed."""
        s, steps = self.settings, self.learner.steps
        changed = False
        if s.snapshot_every and steps >= self.due["snapshot"] and not stop.requested:
            self.due["snapshot"] = _next(steps, s.snapshot_every)
            path = self._save_main()
            self._add(
                f"ppo-sample:{path}", f"main agent at {steps:,} learner steps", "snapshot", s.snapshot_weight
            )
            changed = True
        if s.exploiter_every and steps >= self.due["exploiter"] and not stop.requested:
            self.due["exploiter"] = _next(steps, s.exploiter_every)
            self._exploiter()
            changed = True
        pfsp_due = s.pfsp_every and steps >= self.due["pfsp"]
        if (changed or pfsp_due) and not stop.requested:
            if s.pfsp_every:
                self.due["pfsp"] = _next(steps, s.pfsp_every)
            self._reweigh()
            changed = True
        return changed

    # ------------------------------------------------------------ members
    def _save_main(self) -> str:
        """The main agent's policy now as ``members/main_<steps>.zip``; the path relative to the run."""
        relative = f"members/main_{self.learner.steps}.zip"
        if not (self.path / relative).exists():
            (self.path / "members").mkdir(exist_ok=True)
            self.learner.save_policy(self.path / relative)
        return relative

    def _resolve(self, member: Member) -> str:
        """A member's spec as the agent loader takes it (added members' paths are run-relative)."""
        return _resolve(member, self.path)

    def _add(self, spec: str, origin: str, kind: str, weight: float, **extra: Any) -> None:
        member = Member(spec, origin, kind, self.learner.steps, weight, weight, **extra)
        self.members.append(member)
        self.learner.seating.add_entry(self._resolve(member), weight)
        self.events.append({"steps": self.learner.steps, "event": kind, "member": spec})
        logger.info("league: %s joins (%s)", spec, origin)
        added = [m for m in self.members if m.kind != "start" and m.retired_at is None]
        if len(added) > self.settings.max_members:
            oldest = added[0]
            oldest.retired_at, oldest.weight = self.learner.steps, 0.0
            self.events.append({"steps": self.learner.steps, "event": "retired", "member": oldest.spec})
        self.learner.seating.set_weights([m.weight for m in self.members])
        self.learner.seating.free_retired([i for i, m in enumerate(self.members) if m.retired_at is not None])

    def _exploiter(self) -> None:
        """Train a best response to the main agent as it is now; it joins the pool."""
        s, main = self.settings, self.settings.main
        target = f"ppo-sample:{self.path / self._save_main()}"
        self.exploiters += 1
        base = self.path / "exploiters" / f"exploiter_{self.exploiters}"
        run_dir = RunFolder.create(base, RESPONSE, next_free=True).path
        match = MatchSettings(
            num_players=main.player_counts[0],  # a league trains at one count (LeagueSettings)
            rules=main.rules,
            games=s.exploiter_games,
            seed=main.seed + EXPLOITER_SEED_STEP * self.exploiters,
            progress=False,
        )
        response = BestResponse(
            budget=s.exploiter_budget,
            curve_points=0,
            runs_dir=run_dir.parent,
            ppo=dict(s.exploiter_settings),
            learner="fast",
            preset="fast",  # FAST_SETTINGS: an exploiter is cheap, and many are trained
        )
        entry = exploitability_of(target, match, response, run_dir)
        spec = f"ppo-sample:{(run_dir / 'final_model.zip').relative_to(self.path)}"
        origin = f"exploiter of the main agent at {self.learner.steps:,} steps"
        self._add(spec, origin, "exploiter", s.exploiter_weight, exploiter_win_rate=entry.win_rate)
        logger.info("league: exploiter %d wins %.3f against the main agent", self.exploiters, entry.win_rate)

    def _reweigh(self) -> None:
        """PFSP: score the main agent against every member, then set the draw weights."""
        s, main = self.settings, self.settings.main
        path = self.path / "members" / "pfsp_main.zip"
        path.parent.mkdir(exist_ok=True)
        self.learner.save_policy(path)
        learner_spec = f"ppo-sample:{path}"
        match = MatchSettings(
            num_players=main.player_counts[0],  # a league trains at one count (LeagueSettings)
            rules=main.rules,
            games=s.pfsp_games,
            seed=main.seed + 7,
            progress=False,
        )
        for member in self.members:
            if not member.scored or s.pfsp == "none":
                continue
            table = [learner_spec, *[self._resolve(member)] * (main.player_counts[0] - 1)]
            stats = evaluate(table, match).agent_stats
            rate = next(a.win_rate for a in stats if a.agent == learner_spec)
            member.win_rates.append((self.learner.steps, rate))
            member.weight = member.base_weight * pfsp_factor(rate, s)
        self.learner.seating.set_weights([m.weight for m in self.members])
        self.events.append(
            {"steps": self.learner.steps, "event": "pfsp", "weights": [m.weight for m in self.members]}
        )

    # ------------------------------------------------------------ records
    def _tag(self) -> str:
        return f"{self.learner.steps:012d}"

    def state(self) -> dict[str, Any]:
        return {
            "steps": self.learner.steps,
            "cpu": self.cpu_now(),
            "members": [m.to_dict() for m in self.members],
            "due": self.due,
            "events": self.events,
            "exploiters": self.exploiters,
        }

    def checkpoint(self) -> None:
        """The league record (first), then the learner's checkpoint; league.json and population.json."""
        text = json.dumps(self.state(), indent=1) + "\n"
        save_checkpoint(self.folder, self.learner, first={f"league_{self._tag()}.json": text})
        self._publish(text)

    def _publish(self, text: str | None = None) -> None:
        """``league.json`` and ``population.json`` as the latest checkpoint has them (rewritten
        only if they differ: a resume after a kill -9 or a fall-back puts them back in step)."""
        if text is None:
            text = (self.folder.checkpoints / f"league_{self._tag()}.json").read_text(encoding="utf-8")
        record = self.path / RECORD
        if not record.is_file() or record.read_text(encoding="utf-8") != text:
            write_atomically(record, text)
            write_population(self.path / POPULATION, self.population())

    def population(self) -> list[dict[str, Any]]:
        """The learned members (snapshots, exploiters) and the main agent's latest policy, equally
        weighted: the league as one mixed agent (``population:<run>/population.json``).

        The latest policy is left out when a snapshot was taken at this very step: it is that
        snapshot, and listing it twice would draw it twice as often and ship its weights twice
        (round three's populations, shipped before this, each hold their final agent twice)."""
        live = [m for m in self.members if m.kind != "start" and m.retired_at is None]
        members = [{"spec": m.spec, "weight": 1.0, "origin": m.origin} for m in live]
        if not any(m.kind == "snapshot" and m.added_at == self.learner.steps for m in live):
            latest = "the main agent, latest"
            members.append({"spec": "ppo-sample:policy.zip", "weight": 1.0, "origin": latest})
        return members


def _resolve(member: Member, run: Path) -> str:
    """A member's spec as the agent loader takes it, for the run folder ``run`` (added members'
    paths are relative to it)."""
    return member.spec if member.kind == "start" else resolve_spec(member.spec, run)


def train_league(settings: LeagueSettings, path: str | Path) -> League:
    """A new league run of ``settings`` in ``path``, trained to its end (or a clean stop)."""
    league = League.start(settings, path)
    league.run()
    return league


__all__ = ["POPULATION", "RECORD", "League", "train_league"]
