"""hoity_env: Hoity Toity (Adel Verpflichtet) for multi-agent reinforcement learning."""

from __future__ import annotations

__version__ = "0.1.0"
