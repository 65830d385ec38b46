"""Registers the environments with PettingZoo's and Gymnasium's registries on ``import hoity_env``.

Lazily, so that a user of the rules engine alone neither pays for importing PettingZoo and Gymnasium nor
needs them installed: ``import hoity_env`` registers with each framework already imported, and an import
hook registers with the others right after their own import (neither framework loads plugins).  A tool
that takes only an id string can name the module: ``"hoity_env:hoity/HoityToityVsBots-v0"``.
See docs/design.md §2.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

__all__ = ["AEC_ID", "GYM_ID", "PARALLEL_ID", "register_envs", "register_when_imported"]

PARALLEL_ID = "hoity/HoityToity-v0"
AEC_ID = "hoity/HoityToity-v0"
GYM_ID = "hoity/HoityToityVsBots-v0"


def _register_pettingzoo() -> None:
    import pettingzoo

    if not hasattr(pettingzoo, "register"):  # PettingZoo < 1.27 has no registry; the constructors work
        return
    if PARALLEL_ID not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", PARALLEL_ID, entry_point="hoity_env.environment:parallel_env")
    if AEC_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", AEC_ID, entry_point="hoity_env.environment:env")


def _register_gymnasium() -> None:
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="hoity_env.wrappers:SingleAgentEnv",
            vector_entry_point="hoity_env.wrappers.vector_env:HoityVsBotsVectorEnv",
        )


_REGISTRARS: dict[str, Callable[[], None]] = {
    "pettingzoo": _register_pettingzoo,
    "gymnasium": _register_gymnasium,
}


def register_envs() -> None:
    """Register the parallel and AEC ids with PettingZoo and the single-agent id with Gymnasium now.

    Registering again (after the import did) changes nothing and warns nothing.
    """
    for register in _REGISTRARS.values():
        register()


class _RegisteringLoader(importlib.abc.Loader):
    """Runs the framework's own loader, then registers our ids; everything else is delegated."""

    def __init__(self, loader: Any, register: Callable[[], None]) -> None:
        self._loader = loader
        self._register = register

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._register()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _RegisterAfterImport(importlib.abc.MetaPathFinder):
    """A meta-path finder that only wraps the loaders of the frameworks still waiting for our ids."""

    def __init__(self) -> None:
        self.pending: set[str] = set()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.pending:
            return None
        self.pending.discard(fullname)
        if not self.pending:
            sys.meta_path.remove(self)
        spec: importlib.machinery.ModuleSpec | None = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is not None and finder is not self:
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        if spec is None:
            return None
        if spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader, _REGISTRARS[fullname])
        return spec


def register_when_imported() -> None:
    """Register with each framework already imported, and with the others as soon as they are."""
    hook = next((f for f in sys.meta_path if isinstance(f, _RegisterAfterImport)), None)
    for name, register in _REGISTRARS.items():
        if name in sys.modules:
            register()
            continue
        if hook is None:
            hook = _RegisterAfterImport()
            sys.meta_path.insert(0, hook)
        hook.pending.add(name)
