"""``hoity_env.engine.jit``: numba compiling one of the package's kernels is announced once per process."""

from __future__ import annotations

import subprocess
import sys

COMPILE_TWO = """
import logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(name)s %(message)s")
import numba
import hoity_env.engine.jit

def one(x):
    return x + 1

def two(x):
    return x * 2

def elsewhere(x):
    return x - 1

elsewhere.__module__ = "somebody_else"
numba.njit(elsewhere)(1)  # another package's kernel: nothing to say
for fn in (one, two):
    fn.__module__ = "hoity_env.engine.demo"
    numba.njit(fn)(1)
"""


def test_the_first_compilation_of_a_package_kernel_is_one_info_line() -> None:
    out = subprocess.run([sys.executable, "-c", COMPILE_TWO], capture_output=True, text=True, check=True)
    lines = [line for line in out.stdout.splitlines() if line.startswith("hoity_env.engine.jit")]
    assert len(lines) == 1 and "compiling hoity_env's numba kernels" in lines[0], out.stdout
    assert "hoity_env.engine.demo" in lines[0]
