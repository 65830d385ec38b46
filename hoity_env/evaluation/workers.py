"""A small process pool that notices a dead worker, for the evaluation harness.

``multiprocessing.Pool`` loses the task of a worker killed mid-task, so ``imap`` waits forever.  Here
the parent waits on each worker's pipe and process sentinel together: a worker that dies holding a task
raises :class:`WorkerDied` naming it, and every other worker is stopped.  Workers ignore Ctrl-C (the
parent stops them) and exit at once when the parent dies (:func:`exit_with_parent`).
See docs/design.md §5.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

logger = logging.getLogger(__name__)

_JOIN_S = 5.0
"""How long a stopped worker gets to exit before it is killed."""
_POLL_S = 0.2
"""How often the parent looks at ``stop`` while it waits for the workers."""
ORPHAN_EXIT = 3
"""A worker's exit status when it ends because its parent died."""
INTERRUPTED_EXIT = 130
"""A worker's exit status when its task was interrupted (128 + SIGINT, as a shell reports Ctrl-C)."""


class WorkerDied(RuntimeError):
    """An evaluation worker process ended while playing a task (named: number, pid, exit code, task)."""


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity where the OS tells, else the CPU count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS and Windows
        return os.cpu_count() or 1


def exit_with_parent() -> None:
    """In a child process: end it at once when its parent dies (a daemon thread watching the parent).

    ``multiprocessing.parent_process()`` holds a sentinel that becomes ready when the
    parent exits, however it exits; waiting on it costs nothing while the games run.
    """
    parent = multiprocessing.parent_process()
    if parent is None:  # not a multiprocessing child: nothing to watch
        return
    sentinel = parent.sentinel

    def watch() -> None:
        wait([sentinel])
        os._exit(ORPHAN_EXIT)  # no cleanup to run: the task's results have no reader any more

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _serve(
    conn: Connection, fn: Callable[[Any], Any], initializer: Callable[[], None] | None, name: str = "worker"
) -> None:
    """Worker loop: receive a task, send back ``("ok", result)`` or ``("error", exc, text)``.

    An interrupted task (``KeyboardInterrupt`` or a subclass: a job aborted by a second signal)
    ends the worker with one line naming it (``name``), and the parent is told as it would be
    by an error; a traceback from every worker would bury the parent's one line.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    exit_with_parent()
    if initializer is not None:
        initializer()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):  # the parent is gone: never outlive it
            return
        if task is None:
            return
        try:
            reply: tuple[Any, ...] = ("ok", fn(task))
        except Exception as exc:  # sent back and re-raised in the parent
            reply = ("error", exc, traceback.format_exc())
        except KeyboardInterrupt as exc:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the parent's stop may follow: one line only
            logger.warning("%s (pid %d): %s", name, os.getpid(), exc or "interrupted")
            with contextlib.suppress(EOFError, OSError):  # a plain one: a subclass may not unpickle
                conn.send(("error", KeyboardInterrupt(str(exc)), ""))
            _flush_log_queues()
            # At once: the interpreter's teardown after a task cut short can take seconds (measured
            # 5 to 8 s in a best response), and the parent is waiting to exit.
            os._exit(INTERRUPTED_EXIT)
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return


def _flush_log_queues() -> None:
    """Send the log records queued for the parent (a ``QueueHandler``'s multiprocessing queue hands
    them to the pipe from a thread, which ``os._exit`` would not wait for)."""
    for log in (logging.getLogger(), logging.getLogger("hoity_env")):
        for handler in log.handlers:
            queue: Any = getattr(handler, "queue", None)
            if hasattr(queue, "join_thread"):
                with contextlib.suppress(Exception):  # a queue already closed: nothing left to send
                    queue.close()
                    queue.join_thread()


class _Worker(Generic[T]):
    """One worker process, its end of the pipe and the task it holds."""

    def __init__(self, number: int, process: BaseProcess, conn: Connection, label: tuple[str, str]) -> None:
        self.number, self.process, self.conn, self.label = number, process, conn, label
        self.task: tuple[int, T] | None = None

    def describe(self) -> str:
        code = self.process.exitcode
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
        name, verb = self.label
        doing = f" while {verb} task {self.task[0]} ({self.task[1]})" if self.task else ""
        return f"{name} {self.number} (pid {self.process.pid}) {how}{doing}"


def run_in_order(
    fn: Callable[[T], R],
    tasks: Iterable[T],
    *,
    workers: int,
    initializer: Callable[[], None] | None = None,
    window: int | None = None,
    stop: Callable[[], bool] | None = None,
    label: tuple[str, str] = ("evaluation worker", "playing"),
) -> Iterator[R]:
    """Yield ``fn(task)`` for each task, in order, computed by ``workers`` spawned processes.

    ``fn`` and the tasks must be picklable (module-level functions, plain data).
    An exception in ``fn`` is re-raised here; a worker that dies raises
    :class:`WorkerDied` (named by ``label``: what a worker is, what it does with a task).
    Closing the generator early stops every worker.  Tasks are pulled lazily, at most ``window``
    in flight or waiting to be yielded, and results come back in task order.  ``stop`` (for
    tasks that can stop early and still reply, such as checkpointing best responses): once it
    returns true, each busy worker is sent SIGTERM once, no further task is handed out, and the
    replies of the tasks in flight are still collected and yielded.
    """
    ctx = multiprocessing.get_context("spawn")
    window = window or 4 * workers
    pool: list[_Worker[T]] = []
    stopping = False
    try:
        for number in range(workers):
            parent, child = ctx.Pipe()
            name = f"{label[0]} {number}"
            process = ctx.Process(target=_serve, args=(child, fn, initializer, name), daemon=True)
            process.start()
            child.close()
            pool.append(_Worker(number, process, parent, label))
        source = iter(enumerate(tasks))
        done: dict[int, R] = {}
        next_out = 0
        next_in = 0
        exhausted = False
        while True:
            if stop is not None and not stopping and stop():
                stopping = exhausted = True  # no new task; the busy ones are asked to stop early
                for worker in pool:
                    if worker.task is not None and worker.process.pid is not None:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(worker.process.pid, signal.SIGTERM)
            # Hand a task to every idle worker while the window allows.
            for worker in pool:
                if worker.task is None and not exhausted and next_in - next_out < window:
                    item = next(source, None)
                    if item is None:
                        exhausted = True
                        break
                    worker.task = item
                    next_in += 1
                    worker.conn.send(item[1])
            while next_out in done:
                yield done.pop(next_out)
                next_out += 1
            busy = [w for w in pool if w.task is not None]
            if not busy:
                if exhausted:
                    return
                continue
            ready = wait(
                [w.conn for w in busy] + [w.process.sentinel for w in busy],
                timeout=None if stop is None or stopping else _POLL_S,
            )
            for worker in busy:
                if worker.conn in ready:
                    try:
                        reply = worker.conn.recv()
                    except (EOFError, OSError):
                        worker.process.join(_JOIN_S)
                        raise WorkerDied(worker.describe()) from None
                    assert worker.task is not None
                    index = worker.task[0]
                    worker.task = None
                    if reply[0] == "error":
                        raise reply[1]
                    done[index] = reply[1]
                elif worker.process.sentinel in ready:
                    worker.process.join(_JOIN_S)
                    raise WorkerDied(worker.describe())
    finally:
        _stop(pool)


def _stop(pool: list[_Worker[Any]]) -> None:
    """Ask every worker to exit, then terminate (and finally kill) any that do not."""
    for worker in pool:  # a busy one reads it once its task ends (it may ignore SIGTERM between tasks)
        if worker.process.is_alive():
            with contextlib.suppress(EOFError, OSError):
                worker.conn.send(None)
    for worker in pool:
        if worker.task is not None and worker.process.is_alive():
            worker.process.terminate()
    for worker in pool:
        worker.process.join(_JOIN_S)
        if worker.process.is_alive():  # pragma: no cover - a worker deaf to SIGTERM
            worker.process.kill()
            worker.process.join()
        worker.conn.close()
