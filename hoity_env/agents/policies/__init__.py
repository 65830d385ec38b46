"""Saved policies as agents: numpy and SB3 weights, named agents, populations (docs/agents.md)."""
