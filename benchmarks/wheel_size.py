"""Size of hoity_env's wheel, and of the named agents' weights inside it.

The named agents (``champion``, ``champion-mix`` … at every table) ship as numpy weights and
population manifests in ``hoity_env/agents/models/`` (issue 36): they play from the wheel,
without torch.  This builds the wheel from the source tree (``pip wheel --no-deps``, in a
temporary folder) and reports its size and that of the models inside it, per file.  With
``--record PATH.json`` it writes them with the command and the machine, for docs/agents.md.

    python benchmarks/wheel_size.py [--record docs/results/performance/wheel_size.json]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from bench_record import Recorder, add_record_option

ROOT = Path(__file__).resolve().parent.parent
MODELS = "hoity_env/agents/models/"


def build_wheel(folder: Path) -> Path:
    """The wheel of the source tree, built into ``folder``."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(folder),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = folder.glob("hoity_env-*.whl")
    return wheel


def sizes(wheel: Path) -> dict[str, Any]:
    """The wheel's bytes, and the models folder's files with their compressed and plain bytes."""
    with zipfile.ZipFile(wheel) as z:
        models = [i for i in z.infolist() if i.filename.startswith(MODELS)]
        return {
            "wheel": wheel.name,
            "wheel_bytes": wheel.stat().st_size,
            "files": len(z.infolist()),
            "models": {i.filename[len(MODELS) :]: [i.compress_size, i.file_size] for i in models},
        }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_record_option(parser)
    args = parser.parse_args(argv)
    recorder = Recorder.start(args.record, argv)
    with tempfile.TemporaryDirectory() as tmp:
        found = sizes(build_wheel(Path(tmp)))
    models = sum(c for c, _ in found["models"].values())
    print(
        f"{found['wheel']}: {found['wheel_bytes']:,} bytes, {found['files']} files; models {models:,} bytes"
    )
    if recorder:
        recorder.write(found, settings={})
    return found


if __name__ == "__main__":
    main()
