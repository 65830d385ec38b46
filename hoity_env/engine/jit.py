"""Every numba kernel of the package is compiled through :func:`jit` or :func:`jit_inline`.

Kernels are cached on disk and release the GIL; the first compilation in a process is announced
by one ``logging`` INFO line, so a user who waits knows why (docs/design.md §7).
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
    """:func:`jit`, inlined into every caller: a call between kernels updates the reference count of
    each array it passes, which costs more than a small helper's arithmetic.
    """
    return numba.njit(cache=True, nogil=True, inline="always")(fn)


class _AnnounceCompiling(numba.core.event.Listener):  # type: ignore[misc]
    """Logs at INFO, once per process, that numba starts compiling a kernel of this package (numba
    fires ``numba:compile`` only on a cache miss).
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

    def on_end(self, event: Any) -> None: ...


numba.core.event.register("numba:compile", _AnnounceCompiling())  # type: ignore[no-untyped-call]

__all__ = ["jit", "jit_inline"]
