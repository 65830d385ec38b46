"""Compiling the batched engine's and the agents' kernels with numba: ``jit`` and ``jit_inline``.

Every kernel of the package goes through these two decorators, so how kernels are compiled
(cached on disk, no GIL) is decided in one place.
"""

from __future__ import annotations

from typing import Any

from hoity_env.engine.errors import ConfigError

ACCELERATORS = ("auto", "numpy", "numba")

try:  # the optional extra
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised where numba is absent
    HAVE_NUMBA = False


def resolve_accelerator(accelerator: str) -> str:
    """``"numpy"`` or ``"numba"`` for a requested accelerator (``"auto"``: numba when installed)."""
    if accelerator not in ACCELERATORS:
        raise ConfigError(f"accelerator must be one of {ACCELERATORS}, got {accelerator!r}")
    if accelerator == "numba" and not HAVE_NUMBA:
        raise ConfigError(
            "accelerator='numba' needs numba: pip install 'hoity-env[fast]' (or use accelerator='numpy')"
        )
    if accelerator == "auto":
        return "numba" if HAVE_NUMBA else "numpy"
    return accelerator


def jit(fn: Any) -> Any:
    """Compile ``fn`` with numba (cached on disk) when it is installed; else leave it as Python,
    which ``resolve_accelerator`` never lets the engine call."""
    return numba.njit(cache=True, nogil=True)(fn) if HAVE_NUMBA else fn


def jit_inline(fn: Any) -> Any:
    """:func:`jit`, and compiled into every caller (numba inlines it in its own IR).

    For the small helpers of the agents' kernels, called once or more per row: a call between
    compiled functions updates the reference count of every array it passes (the expert's
    per-row helpers take dozens), which cost more than their own arithmetic (issue 34: about
    a third of a location decision of ``expert``), and a call inside a loop over lanes keeps
    the compiler from vectorizing it."""
    return numba.njit(cache=True, nogil=True, inline="always")(fn) if HAVE_NUMBA else fn


__all__ = ["ACCELERATORS", "HAVE_NUMBA", "jit", "jit_inline", "resolve_accelerator"]
