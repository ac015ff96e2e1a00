#!/usr/bin/env bash
# Builds ferrotorch (release) and runs the main example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
python examples/train_digits.py
