"""``hoity-export``: a ``MaskablePPO`` checkpoint, the shipped models or a population to numpy weights.

``hoity-export CHECKPOINT OUT.npz``, ``hoity-export --shipped`` (rewrites ``hoity_env/agents/models/``;
run it from the repository root) or ``hoity-export --population RUN/population.json OUT_DIR``.  The files
play without torch (``npz:PATH``, the named agents' format; :mod:`hoity_env.agents.policies.export` says
what is kept and what is refused).  See docs/agents.md.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from hoity_env.agents.policies.export import export_checkpoint, export_population, export_shipped
from hoity_env.agents.policies.named import MODELS
from hoity_env.agents.policies.population import read_population
from hoity_env.cli.args import Terminated, fail, parse, sigterm_raises
from hoity_env.engine.errors import ConfigError

__all__ = ["PROG", "build_parser", "main"]

PROG = "hoity-export"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``hoity-export``."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Export a MaskablePPO checkpoint's policy to numpy weights (.npz), which play "
        "without torch.",
    )
    p.add_argument("checkpoint", nargs="?", type=Path, help="the MaskablePPO .zip to export")
    p.add_argument("out", nargs="?", type=Path, help="the .npz to write (replaced atomically)")
    p.add_argument(
        "--name", default=None, help="the policy's name in the metadata (default: the file's stem)"
    )
    p.add_argument(
        "--rules",
        default=None,
        help="rules preset it was trained on (default: from args.json; with --population, the league's)",
    )
    p.add_argument(
        "--population",
        type=Path,
        default=None,
        metavar="MANIFEST",
        help="export this population.json (its ppo-sample: members) to the folder OUT: npz: members",
    )
    p.add_argument(
        "--shipped",
        action="store_true",
        help=f"rewrite the shipped models ({', '.join(MODELS)}) from their checkpoints (registry.json)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (2: a bad argument or file; 130/143: Ctrl-C/SIGTERM).

    A bad argument or file is one ``hoity-export: error:`` line; Ctrl-C or SIGTERM during
    ``--population`` leaves nothing behind.
    """
    parser = build_parser()
    args = parse(parser, argv)
    if isinstance(args, int):
        return args
    if args.population is not None:
        if args.shipped or args.checkpoint is None or args.out is not None:
            return fail(PROG, "give --population MANIFEST OUT_DIR")
        return _population(args.population, args.checkpoint, args.rules)
    if args.shipped == (args.checkpoint is not None):
        return fail(PROG, "give CHECKPOINT OUT, or --shipped alone")
    if not args.shipped and args.out is None:
        return fail(PROG, "OUT is required with CHECKPOINT")
    try:
        if args.shipped:
            written = export_shipped()
        else:
            written = [
                (
                    args.checkpoint,
                    export_checkpoint(args.checkpoint, args.out, name=args.name, rules=args.rules),
                )
            ]
    except (ConfigError, OSError) as exc:
        return fail(PROG, exc)
    for checkpoint, out in written:
        print(f"{checkpoint} -> {out} ({out.stat().st_size} bytes)")
    return 0


def _population(manifest: Path, out_dir: Path, rules: str | None) -> int:
    handler = logging.StreamHandler(sys.stderr)  # the warning about a killed export's leftovers
    logger = logging.getLogger("hoity_env.agents.policies.export")
    logger.addHandler(handler)
    try:
        with sigterm_raises():
            written = export_population(manifest, out_dir, rules=rules)
    except (ConfigError, OSError) as exc:
        return fail(PROG, exc)
    except KeyboardInterrupt:
        return fail(PROG, "nothing was written", 130, "interrupted")
    except Terminated:
        return fail(PROG, "nothing was written", 143, "terminated (SIGTERM)")
    finally:
        logger.removeHandler(handler)
    print(f"{manifest} -> {written} ({len(read_population(written))} members)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
