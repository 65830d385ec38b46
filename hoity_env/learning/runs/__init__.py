"""The run folder: one writer, resume with its own settings, complete checkpoints, finished is final."""
