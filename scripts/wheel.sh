#!/usr/bin/env bash
# Builds the release wheel into dist/: abi3 (CPython 3.10+), CPU kernels chosen at run time,
# the CUDA backend loading its libraries at run time. .github/workflows/wheels.yml builds the
# same wheel inside manylinux_2_28; here it gets the lowest manylinux tag this host allows.
# Extra arguments go to `maturin build` (e.g. --no-default-features --features cuda -i python3.9).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x .venv/bin/maturin ]; then
  . .venv/bin/activate
fi
rm -f dist/ferrotorch-*.whl
maturin build --release --out dist "$@"
ls dist/ferrotorch-*.whl
