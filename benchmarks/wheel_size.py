"""Size of hoity_env's wheel, and of the named agents' weights inside it.

The named agents (``champion``, ``champion-mix`` … at every table) ship as numpy weights and
population manifests in ``hoity_env/agents/models/`` (issue 36): they play from the wheel,
without torch.  This builds the wheel from a clean copy of the source tree (``pip wheel
--no-deps``, in a temporary folder: a stale ``build/`` would add files deleted since) and
reports its size and that of the models inside it, per file.  With
``--record PATH.json`` it writes them with the command and the machine, for docs/agents.md.

    python benchmarks/wheel_size.py [--record docs/results/performance/wheel_size.json]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from bench_record import Recorder, add_record_option

ROOT = Path(__file__).resolve().parent.parent
MODELS = "hoity_env/agents/models/"


def source_copy(folder: Path) -> Path:
    """The repository's files (tracked and not ignored, as they are in the working tree) copied
    into ``folder``: setuptools builds through ``build/``, which keeps files deleted since the
    last build, so a wheel built in place can ship members a population no longer has."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the working tree is not copied
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    return folder


def build_wheel(folder: Path) -> Path:
    """The wheel of the source tree (a clean copy of it), built into ``folder``."""
    source = source_copy(folder / "source")
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
            str(source),
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
