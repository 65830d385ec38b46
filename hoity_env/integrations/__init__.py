"""Adapters for multi-agent libraries that need more than the env's output options.

Each submodule imports its library, so import it only where that library is installed
(``hoity_env.integrations.rllib.env`` and ``hoity_env.integrations.rllib.league``, the
league's bots, mapping and gate, need the ``rllib`` extra).
"""
