"""BLAS threads: one per process wherever hoity_env plays numpy policies on a machine's cores.

Why: numpy's matrix products (the forward passes of the named agents and of the
populations' members, :mod:`hoity_env.agents.policies.mlp`) run on OpenBLAS, which
starts one thread per core.  Our batches are a few thousand rows of a 128-wide
network: a second thread gains little, and on a machine whose other cores are
busy (evaluation workers, a learner, other jobs) it spin-waits for a core it does
not get.  On the 2-core development machine the ``champion`` line-up played more
than twice the games per CPU-second with one thread (issue 34; the figure is
``benchmarks/bench_harness_engines.py``'s, in docs/results/performance.md).

Who limits what:

* importing hoity_env, or calling the library, leaves numpy as the caller has it;
* the command lines (``hoity-eval``, ``hoity-learn``, ``hoity-league``,
  ``hoity-serve``, ``hoity-play``) run under ``--blas-threads`` threads (default
  :data:`DEFAULT_BLAS_THREADS`) for as long as they run;
* the harness limits its games to
  :attr:`~hoity_env.evaluation.MatchSettings.blas_threads` when that is set, and
  its worker processes (ours, each playing on one core) to that or one.

The limit is `threadpoolctl <https://github.com/joblib/threadpoolctl>`_'s: it works
after numpy is loaded, where the ``OPENBLAS_NUM_THREADS`` variable is read only
when the library loads.
"""

from __future__ import annotations

import contextlib
import os
from contextlib import AbstractContextManager

from threadpoolctl import threadpool_info, threadpool_limits

__all__ = ["DEFAULT_BLAS_THREADS", "blas_threads", "limit_blas", "limit_process"]

DEFAULT_BLAS_THREADS = 1
"""The command lines' ``--blas-threads`` default, and each harness worker's."""

_LATER_LIBRARIES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
"""Read by math libraries when they load (torch's OpenMP pool among them)."""


def limit_blas(threads: int | None) -> AbstractContextManager[object]:
    """A context in which every loaded BLAS runs at most ``threads`` threads (``None``: unchanged).

    The limits in force before are restored on leaving, so a caller's numpy is as it was.
    """
    if threads is None:
        return contextlib.nullcontext()
    limits: AbstractContextManager[object] = threadpool_limits(limits=threads, user_api="blas")
    return limits


def limit_process(threads: int) -> None:
    """For a process of our own (a worker): ``threads`` BLAS threads from now on, for the libraries
    already loaded and, through the environment, for those loaded later."""
    for var in _LATER_LIBRARIES:
        os.environ.setdefault(var, str(threads))
    threadpool_limits(limits=threads, user_api="blas")


def blas_threads() -> list[int]:
    """The thread count of every BLAS this process has loaded (what the tests and benchmarks check)."""
    return [int(lib["num_threads"]) for lib in threadpool_info() if lib.get("user_api") == "blas"]
