"""The scripted players: random, the styles, the experts (docs/agents.md)."""
