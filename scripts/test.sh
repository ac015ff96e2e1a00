#!/usr/bin/env bash
# Builds ferrotorch (release) and runs every test: Rust unit tests, then the Python suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
cargo test -q -p ferrotorch
# The CUDA backend without a GPU: every kernel compiled by NVRTC for sm_80 and sm_90 (a kernel
# that does not compile fails here), the allocator on a fake device, clippy over the cuda code.
FERROTORCH_NVRTC_LIB="$(python -c 'import nvidia.cuda_nvrtc as m, os; print(os.path.join(list(m.__path__)[0], "lib", "libnvrtc.so.12"))')"
export FERROTORCH_NVRTC_LIB FERROTORCH_REQUIRE_NVRTC=1
cargo test -q -p ferrotorch --features cuda --lib cuda::
cargo clippy -q -p ferrotorch --features cuda --all-targets -- -D warnings
# The release wheel (tests/test_wheel.py installs it where no Rust is on PATH); it reuses the
# build `maturin develop` just made, so this adds seconds.
bash scripts/wheel.sh >/dev/null
export FERROTORCH_REQUIRE_WHEEL=1
python -m pytest -q tests "$@"
