"""League training on the fast learner: snapshots, exploiters, PFSP weights (docs/league.md)."""
