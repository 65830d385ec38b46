"""A recipe's training loop: ``model.learn`` with the run's callbacks, interrupts, then the report.

Ctrl-C (SIGINT) and SIGTERM (``timeout``, a scheduler, ``docker stop``) are handled
alike: the model is saved as ``checkpoints/<name>_<N>_steps.zip``, the command that
resumes the run is printed and the recipe exits with the status a shell reports for
that signal, :data:`EXIT_STATUS` (130 and 143).  After a kill -9 nothing can be
saved; ``--resume RUN_FOLDER`` continues from the run's latest complete checkpoint.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from final_report import finish
from model_setup import remaining_timesteps
from run_callbacks import RunCheckpoints, TimeLimit, curve_callback
from run_folder import save_model
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import VecEnv

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation import AgentStats

PORTABLE_MATH = {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"}
"""The settings under which a recipe computes the same floats on every x86-64 CPU.

torch picks its kernels by the CPU it runs on (AVX2, AVX-512, AMX): MKL's matrix products
and ATen's vectorised sums and transcendentals round differently on each, a few ulps per
step, and over a quarter-million PPO steps those ulps become another agent, so the README's
table would hold on one kind of CPU only.  MKL's conditional numerical reproducibility mode
(``MKL_CBWR=COMPATIBLE``) and ATen's portable kernels (``ATEN_CPU_CAPABILITY=default``)
take the same code path on every CPU, for some more CPU time (docs/training.md, "The same
figures on every CPU"; ``benchmarks/portable_math.py`` measures both).  A variable the user
has set is left as it is (``ATEN_CPU_CAPABILITY=avx512`` restores the fast kernels, and
with them the CPU-dependent figures).
"""

EXIT_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}
"""Exit status of a recipe stopped by a signal: 128 + the signal number, as shells report it."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, as Ctrl-C raises ``KeyboardInterrupt``.

    A subclass of it, so that whatever cleans up after Ctrl-C (the evaluation
    harness stopping its workers, SB3 closing its envs) cleans up after SIGTERM too.
    """


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Terminated`; the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set them
        yield
        return
    previous = {s: signal.getsignal(s) for s in EXIT_STATUS}
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def learn_and_finish(
    model: MaskablePPO,
    env: VecEnv,
    args: Any,
    run_dir: Path,
    opponents: Sequence[str],
    *,
    script: str,
    callbacks: Sequence[BaseCallback] = (),
    meta: Callable[[], dict[str, Any]] = dict,
) -> tuple[Path, dict[str, AgentStats], str]:
    """Train to ``--total-timesteps`` with the learning curve and checkpoints, then ``finish``.

    What every recipe does around ``model.learn``: ``callbacks`` run before the curve
    (selfplay's league), ``meta()`` adds to the report once training is over, and a
    signal saves a checkpoint and exits (:func:`interrupted`).
    """
    curve = curve_callback(env, run_dir, args, opponents)
    checkpoints = RunCheckpoints(args.checkpoint_every, run_dir / "checkpoints", args.name, curve)
    bar = [] if curve.bar is None else [curve.bar]  # first: the curve's games show at its step
    if curve.bar is not None:
        log = run_dir / "log.txt"
        print(f"training in {run_dir}; the training log goes to {log} (--verbose prints it too)", flush=True)
    with signals_as_interrupts():
        try:
            start = time.time()
            model.learn(
                total_timesteps=remaining_timesteps(model, args.total_timesteps),
                callback=CallbackList(
                    [*bar, *callbacks, curve, checkpoints, TimeLimit(args.time_limit_minutes)]
                ),
                reset_num_timesteps=not args.resume,
            )
            train_seconds = time.time() - start
            env.close()
            curve.evaluate()  # the last point of the curve
            return finish(model, args, run_dir, opponents, train_seconds, **meta())
        except KeyboardInterrupt as stop:
            if curve.bar is not None:
                curve.bar.close()
            signum = signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT
            interrupted(model, env, args, run_dir, script, signum)


def interrupted(model: Any, env: Any, args: Any, run_dir: Path, script: str, signum: int) -> NoReturn:
    """Save a checkpoint, say how to resume, exit with the signal's :data:`EXIT_STATUS`."""
    for s in EXIT_STATUS:  # a second Ctrl-C or SIGTERM must not cut the save short
        signal.signal(s, signal.SIG_IGN)
    path = run_dir / "checkpoints" / f"{args.name}_{model.num_timesteps}_steps.zip"
    if not path.is_file():  # a checkpoint at this very step is kept: nothing of the run is replaced
        save_model(model, path)
    with contextlib.suppress(Exception):  # the envs' worker processes may be gone already
        env.close()
    what = "interrupted" if signum == signal.SIGINT else "terminated (SIGTERM)"
    print(
        f"\n{what} at {model.num_timesteps:,} timesteps; saved {path} (curve and args are in {run_dir})\n"
        f"resume with: python {script} --resume {shlex.quote(str(run_dir))}",
        file=sys.stderr,
        flush=True,
    )
    raise SystemExit(EXIT_STATUS[signal.Signals(signum)])


def run_cli(main: Callable[[], object], prog: str) -> int:
    """Run a recipe's ``main`` under :data:`PORTABLE_MATH`; a :class:`ConfigError` exits 2 with one line.

    Only a recipe run as a script sets the variables (into ``os.environ``, so its evaluation
    workers inherit them): both are read when torch first needs them, which is after this
    point, and a program that imports a recipe's ``main`` keeps its own settings.
    """
    for name, value in PORTABLE_MATH.items():
        os.environ.setdefault(name, value)
    try:
        main()
    except ConfigError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    return 0
