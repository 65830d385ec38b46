"""BLAS threads: one per process wherever hoity_env plays numpy policies on a machine's cores.

numpy's matrix products (the networks of the named agents and populations) run on OpenBLAS, which starts
one thread per core; our batches are small, and on a busy machine a second thread mostly spin-waits for a
core.  The command lines run under ``--blas-threads`` threads (:data:`DEFAULT_BLAS_THREADS`) and the
harness's workers likewise; importing or calling the library leaves the caller's numpy as it is.  The
limit is threadpoolctl's, which works after numpy is loaded.  See docs/design.md §1 and docs/evaluation.md.
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
