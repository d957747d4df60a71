#!/usr/bin/env bash
# The docs and test stack as wheels in .whl/, for a GPU builder without network: scripts/gpu-builder.sh
# installs .whl/*.whl when the folder is carried (the device tool's `carry: [".whl"]`).
# The versions are uv.lock's, for the builder's Python (PYTHON_VERSION, default 3.12) on Linux x86-64.
# Left out: what a GPU builder brings itself (torch and its CUDA wheels, numpy, matplotlib and its
# dependencies, pytest), playwright (no browser there), and, unless NOTEBOOK=1, what only a running
# Jupyter kernel imports (debugpy, jedi, parso: 10 MB of the 64 MiB a device call carries). A package published only as a source archive
# (jieba) is built into a wheel here; every one of them is pure Python.
#   bash scripts/gpu-wheels.sh            (or: make gpu-wheels)
set -euo pipefail
PYTHON_VERSION=${PYTHON_VERSION:-3.12}
UV=${UV:-.tools/bin/uv}
PIP=${PIP:-python3 -m pip}
OWN='^(torch|triton|nvidia-[a-z0-9-]*|numpy|matplotlib|contourpy|cycler|fonttools|kiwisolver|pillow|pyparsing|pytest|pluggy|iniconfig|playwright|greenlet|pyee)=='
rm -rf .whl.tmp && mkdir -p .whl.tmp
# the lock's pins (universal: markers per Python and platform), then those that apply to the builder
"$UV" export --locked --quiet --no-hashes --no-emit-project --no-annotate --no-header --extra docs --extra test \
  -o .whl.tmp/locked.txt
"$UV" pip compile --quiet --no-deps --no-header --no-annotate --python-version "$PYTHON_VERSION" \
  --python-platform x86_64-manylinux_2_28 .whl.tmp/locked.txt -o .whl.tmp/builder.txt
[ "${NOTEBOOK:-0}" = 1 ] || OWN="${OWN%)==}|debugpy|jedi|parso)=="
grep -Eiv "$OWN" .whl.tmp/builder.txt > .whl.tmp/requirements.txt
platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
while read -r requirement; do
  [ -n "$requirement" ] || continue
  if ! $PIP download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --python-version "$PYTHON_VERSION" \
       "${platforms[@]}" -d .whl.tmp "$requirement" 2>/dev/null; then
    $PIP wheel --quiet --disable-pip-version-check --no-deps -w .whl.tmp "$requirement"   # source only: pure Python
  fi
done < .whl.tmp/requirements.txt
rm .whl.tmp/*.txt
rm -rf .whl && mv .whl.tmp .whl
echo "gpu-wheels: $(ls .whl | wc -l) wheels, $(du -sh .whl | cut -f1) in .whl/ (Python $PYTHON_VERSION, Linux x86-64)"
