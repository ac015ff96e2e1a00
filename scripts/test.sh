#!/usr/bin/env bash
# Builds ferrotorch (release) and runs every test: Rust unit tests, then the Python suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
cargo test -q -p ferrotorch
python -m pytest -q tests "$@"
