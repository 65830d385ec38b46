"""The run folder every training command writes (``hoity-learn``, ``hoity-league``, best responses,
the recipes in ``training/``): :mod:`.folder` (its kind and format, one writer, fresh names,
complete checkpoints, the resume rule, finished is final), :mod:`.state` (the resume state as
plain data), :mod:`.session` (a fast-learner run in it: start, resume, signals) and
:mod:`.bounded` (its JSON files' reader).  docs/learning.md describes the files."""
