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
python -m pip install -q "maturin>=1.5,<2" pytest numpy ruff safetensors scikit-learn tqdm matplotlib torch hypothesis \
  nvidia-cuda-nvrtc-cu12
maturin develop --release -q
