"""The harness's chunks of deals as Ray tasks (``hoity-eval --backend ray``), Ray imported lazily.

It is fed the very same chunks as the local backend (:mod:`hoity_env.evaluation.workers`) and hands the
results back in task order, so for one seed the records are identical.  Ray is imported only when this
backend is asked for (the ``rllib`` extra), and a task is never retried: a worker or node that dies is
:class:`~hoity_env.evaluation.workers.WorkerDied` naming the chunk.  See docs/scaling.md.
"""

from __future__ import annotations

import contextlib
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any, TypeVar

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.workers import WorkerDied

__all__ = ["BACKENDS", "check_reachable", "import_ray", "ray_session", "run_on_ray"]

T = TypeVar("T")
R = TypeVar("R")

BACKENDS = ("local", "ray")
"""Where the harness plays its games: worker processes on this machine, or a Ray cluster."""

_CONNECT_S = 10.0
"""How long a Ray head address gets to accept a connection."""

INSTALL_HINT = (
    "install the rllib extra (pip install -e '.[rllib]', in a virtual environment of its own: "
    "ray 2.60 pins gymnasium 1.2.2; training/rllib_check.sh builds one)"
)


def import_ray() -> ModuleType:
    """The ``ray`` module, or a :class:`ConfigError` naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(f"backend 'ray' needs Ray, which is not installed: {INSTALL_HINT}") from None
    module: ModuleType = ray
    return module


@contextlib.contextmanager
def ray_session(address: str | None) -> Iterator[int]:
    """Connect to Ray (``address``; ``None`` starts a local instance) and yield its CPU count.

    A Ray session already open in this process (a training script's) is used as it
    is; one started here is shut down on the way out.
    """
    ray = import_ray()
    started = not ray.is_initialized()
    if started:
        check_reachable(address)
        try:
            ray.init(address=address, include_dashboard=False, configure_logging=False)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise ConfigError(f"cannot connect to Ray at {address!r}: {exc}") from exc
    try:
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < 1:
            raise ConfigError("the Ray cluster has no CPUs to play games on")
        yield cpus
    finally:
        if started:
            ray.shutdown()


def check_reachable(address: str | None, timeout_s: float = _CONNECT_S) -> None:
    """A ``HOST:PORT`` address must answer within ``timeout_s``: Ray itself retries a dead one for minutes.

    ``None``, ``auto`` (Ray says at once when no cluster runs here) and ``ray://``
    client addresses are left to Ray.
    """
    if address is None or address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"a Ray address is 'auto' or HOST:PORT (e.g. 10.0.0.1:6379), got {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise ConfigError(f"cannot connect to Ray at {address!r}: nothing answers there ({exc})") from None


def _call(fn: Callable[[T], R], task: T) -> R:
    """The body of every Ray task (a module-level function, so workers import it by name)."""
    return fn(task)


def run_on_ray(fn: Callable[[T], R], tasks: Iterable[T], *, window: int) -> Iterator[R]:
    """Yield ``fn(task)`` for each task, in task order, each computed by a Ray task.

    Needs an open Ray session (:func:`ray_session`).  ``fn`` and the tasks must be
    picklable.  An exception raised by ``fn`` is re-raised here as it was; a Ray
    worker or node that dies raises :class:`WorkerDied` (tasks run with ``max_retries=0``).
    At most ``window`` tasks are in flight; closing the generator early cancels them.
    """
    ray = import_ray()
    remote = ray.remote(num_cpus=1, max_retries=0)(_call)
    source = iter(tasks)
    pending: deque[tuple[int, T, Any]] = deque()
    submitted = 0

    def submit() -> None:
        nonlocal submitted
        for task in source:
            pending.append((submitted, task, remote.remote(fn, task)))
            submitted += 1
            return

    try:
        for _ in range(max(1, window)):
            submit()
        while pending:
            index, task, ref = pending.popleft()
            try:
                result = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:  # fn raised: the caller sees its own error
                cause = exc.cause
                raise (cause if isinstance(cause, Exception) else exc) from None
            except ray.exceptions.RayError as exc:  # the worker or its node is gone
                raise WorkerDied(f"a Ray worker died while playing task {index} ({task}): {exc}") from None
            submit()
            yield result
    finally:
        for _, _, ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
