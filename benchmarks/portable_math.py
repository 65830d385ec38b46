"""The main job under each choice of torch's CPU kernels: what it prints, the weights it trains, its CPU time.

torch chooses ATen's and MKL's kernels by the CPU it runs on, and each rounds differently;
over a PPO run those roundings become another agent.  The recipes therefore run with
portable kernels (``training/run_training.py``'s ``PORTABLE_MATH``).  This runs the README's
main job (``training/train_ppo.py`` on its defaults, each time in a fresh runs folder) once
under each setting of :func:`settings` and prints the ``expert`` row, a hash of the trained
weights and the child's CPU time.  Under the portable setting, a CPU limited to older
instructions must train the same weights: that is the claim the last row tests.  With
``--record PATH.json`` it writes them for docs/training.md ("The same figures on every CPU").

    python benchmarks/portable_math.py [--record docs/results/portable_math.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from bench_record import Recorder, add_record_option, cpu_model

ROOT = Path(__file__).resolve().parent.parent
PORTABLE_VARIABLES = ("ATEN_CPU_CAPABILITY", "MKL_CBWR")
"""What the recipes set (``PORTABLE_MATH``): cleared from each run's environment first."""


def _environment(**variables: str) -> dict[str, str]:
    """This process's environment free of the portable settings, with ``variables`` added."""
    return {k: v for k, v in os.environ.items() if k not in PORTABLE_VARIABLES} | variables


def _probe(code: str) -> str:
    """What a fresh interpreter, free of the portable settings, prints for ``code``."""
    return subprocess.run(
        [sys.executable, "-c", code], env=_environment(), check=True, capture_output=True, text=True
    ).stdout.strip()


def settings() -> dict[str, dict[str, str]]:
    """Each setting's variables: the CPU's own kernels, AVX2's, the portable ones, and the portable
    ones on a CPU limited to older instructions (MKL and oneDNN to SSE4.2, numpy without AVX-512)."""
    native = _probe("import torch; print(torch.backends.cpu.get_cpu_capability().lower())")
    avx512 = _probe(
        "from numpy._core._multiarray_umath import __cpu_features__ as f;"
        "print(' '.join(k for k, v in f.items() if v and k.startswith('AVX512')))"
    )
    older = {"MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41"}
    if avx512:
        older["NPY_DISABLE_CPU_FEATURES"] = avx512
    return {
        "the CPU's own kernels": {"ATEN_CPU_CAPABILITY": native, "MKL_CBWR": "AUTO"},
        "AVX2 kernels": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"},
        "portable (the recipes' default)": {},
        "portable, older instructions": older,
    }


def run(variables: dict[str, str]) -> dict[str, Any]:
    """The main job once under ``variables``: its ``expert`` row, the weights' hash, its CPU seconds."""
    env = _environment(**variables)
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            [sys.executable, str(ROOT / "training" / "train_ppo.py"), "--runs-dir", tmp],
            env=env,
            cwd=tmp,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        scores = json.loads((Path(tmp) / "ppo" / "evaluation.json").read_text(encoding="utf-8"))["scores"]
        with zipfile.ZipFile(Path(tmp) / "ppo" / "final_model.zip") as z:
            weights = hashlib.sha256(z.read("policy.pth")).hexdigest()
    expert = scores["expert"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "variables": variables,
        "expert": {k: expert[k] for k in ("games", "wins", "win_rate", "ci_low", "ci_high")},
        "weights_sha256": weights,
        "cpu_seconds": round(cpu, 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    found: dict[str, Any] = {}
    for name, variables in settings().items():
        found[name] = row = run(variables)
        e = row["expert"]
        print(
            f"{name}: expert {e['win_rate']:.3f} [{e['ci_low']:.3f}, {e['ci_high']:.3f}], "
            f"weights {row['weights_sha256'][:12]}, {row['cpu_seconds']:.0f} CPU-s",
            flush=True,
        )
    if (
        found["portable (the recipes' default)"]["weights_sha256"]
        != found["portable, older instructions"]["weights_sha256"]
    ):
        raise SystemExit("the portable kernels trained other weights on older instructions")
    if recorder:
        cpu = cpu_model() or platform.processor() or "unknown"
        recorder.write({"cpu": cpu, "runs": found}, settings={})
    return found


if __name__ == "__main__":
    main()
