#!/usr/bin/env bash
# Creates .venv (once), installs the build and test tools, and builds ferrotorch in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null
# torch is the oracle the module, optimizer and op tables compare against (CPU runs);
# nvidia-cuda-nvrtc-cu12 lets the tests compile every CUDA kernel without a GPU.
python -m pip install -q "maturin>=1.5,<2" pytest numpy ruff mypy safetensors scikit-learn tqdm matplotlib torch hypothesis \
  mkdocs-material "mkdocstrings[python]" \
  nvidia-cuda-nvrtc-cu12
# Open MPI from Debian's packages and mpi4py: the engine behind ferrotorch.distributed (CPU tensors).
if ! command -v mpirun >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  { $SUDO apt-get update -q && $SUDO apt-get install -y -q openmpi-bin libopenmpi-dev; } >/dev/null \
    || echo "setup.sh: could not install Open MPI; the distributed tests will be skipped" >&2
fi
python -c "import mpi4py" 2>/dev/null || python -m pip install -q mpi4py
# The extension is abi3 (_core.abi3.so); a version-specific _core.cpython-*.so left by an older
# build would shadow it, since Python tries the version-specific name first.
rm -f python/ferrotorch/_core.cpython-*.so
maturin develop --release -q
