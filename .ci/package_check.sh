#!/usr/bin/env bash
# Packaging check (CI runs it after the tests): build the sdist and the wheel, validate their metadata
# (twine check), install the wheel with its core dependencies only (no torch) in a fresh venv outside
# the checkout, and run .ci/smoke_installed.py there: the installed package, not this source tree,
# must import, play, evaluate the named agents and make the Gymnasium env.
# PYTHON: an interpreter with the dev extra's build and twine (default .ci-venv/bin/python).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$root/.ci-venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
"$python" -m build --outdir "$work/dist" .
"$python" -m twine check --strict "$work"/dist/*
ls -l "$work"/dist
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "$work"/dist/*.whl
cd "$work"  # outside the checkout: nothing on the path but the installed wheel
env -u PYTHONPATH PATH="$work/venv/bin:$PATH" "$work/venv/bin/python" "$root/.ci/smoke_installed.py" "$work"/dist/*.whl
