"""Compiling the batched engine's and the agents' kernels with numba: ``jit`` and ``jit_inline``.

Every kernel of the package goes through these two decorators, so how kernels are compiled
(cached on disk, no GIL) is decided in one place.  numba compiles a kernel on its first
call after an install or upgrade (docs/design.md §7 has the figures) and loads it from the
on-disk cache afterwards; the first compilation in a process is announced by one
``logging`` INFO line, so a user who waits knows why.
"""

from __future__ import annotations

import logging
from typing import Any

import numba
import numba.core.event

_log = logging.getLogger(__name__)


def jit(fn: Any) -> Any:
    """Compile ``fn`` with numba, cached on disk, releasing the GIL."""
    return numba.njit(cache=True, nogil=True)(fn)


def jit_inline(fn: Any) -> Any:
    """:func:`jit`, and compiled into every caller (numba inlines it in its own IR).

    For the small helpers of the agents' kernels, called once or more per row: a call between
    compiled functions updates the reference count of every array it passes (the expert's
    per-row helpers take dozens), which cost more than their own arithmetic (issue 34: about
    a third of a location decision of ``expert``), and a call inside a loop over lanes keeps
    the compiler from vectorizing it."""
    return numba.njit(cache=True, nogil=True, inline="always")(fn)


class _AnnounceCompiling(numba.core.event.Listener):  # type: ignore[misc]
    """Logs at INFO, once per process, that numba starts compiling a kernel of this package.

    numba fires ``numba:compile`` only when it compiles (a cache miss), never when it loads a
    kernel from its on-disk cache, so the line appears on a first use and not afterwards.
    """

    def __init__(self) -> None:
        self.announced = False

    def on_start(self, event: Any) -> None:
        module = getattr(event.data["dispatcher"].py_func, "__module__", "") or ""
        if not self.announced and module.startswith("hoity_env."):
            self.announced = True
            _log.info(
                "compiling hoity_env's numba kernels on first use (%s); this takes seconds to a "
                "minute once, later runs load them from numba's cache",
                module,
            )

    def on_end(self, event: Any) -> None:
        """Nothing to do when a compilation ends."""


numba.core.event.register("numba:compile", _AnnounceCompiling())  # type: ignore[no-untyped-call]

__all__ = ["jit", "jit_inline"]
