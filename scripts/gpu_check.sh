#!/usr/bin/env bash
# The GPU check, run on a machine with an NVIDIA GPU and PyTorch (CUDA) installed: installs the
# wheel built by scripts/wheel.sh (dist/), runs the CUDA test files and the GPU benchmark rows
# side by side with PyTorch. Logs go to $OUT (default /tmp/gpu_check).
#   bash scripts/gpu_check.sh [pytest -k expression]
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$PY -m pip install -q --no-index --no-deps --no-compile --target /tmp/ft_site dist/ferrotorch-*.whl || exit 1
export PYTHONPATH=/tmp/ft_site

# The backend dlopens NVRTC and cuBLAS by their CUDA 12 sonames; where only CUDA 13 libraries
# are installed (PyTorch's cu13 wheels), present them under those names.
LIBS=/tmp/ft_cudalibs
mkdir -p "$LIBS"
for lib in nvrtc cublas cublasLt; do
  f=$(find /opt /usr/local /usr/lib \( -name "lib$lib.so.12*" -o -name "lib$lib.so.13*" \) 2>/dev/null | sort | head -1)
  echo "lib$lib: ${f:-not found}"
  [ -n "$f" ] && ln -sf "$f" "$LIBS/lib$lib.so.12" && export LD_LIBRARY_PATH="$(dirname "$f"):${LD_LIBRARY_PATH:-}"
done
export LD_LIBRARY_PATH="$LIBS:${LD_LIBRARY_PATH:-}" FERROTORCH_CUDA_LIB_DIR="$LIBS"

timeout 60 $PY - <<'EOF' 2>&1 | tee "$OUT/smoke.log"
import ferrotorch as t
print("available", t.cuda.is_available(), t.cuda.device_count(), t.cuda.get_device_name())
x = t.randn(4, 3, device="cuda", requires_grad=True)
y = (x @ x.t()).relu().sum()
y.backward()
print("loss", y.item(), "grad", x.grad.device, x.grad.cpu().sum().item())
EOF

K=${1:-}
timeout 240 $PY -m pytest -q -p no:cacheprovider --timeout 60 -rfE --tb=line ${K:+-k "$K"} \
  tests/test_cuda_op_table.py tests/test_cuda_tensors.py tests/test_cuda_api.py tests/test_cuda_device.py \
  tests/test_cuda_rows_and_selection.py tests/test_cuda_conv_random_cat.py tests/test_cuda_training.py tests/test_cuda_host_routes.py \
  tests/test_cuda_dlpack.py tests/test_pinned_memory.py \
  > "$OUT/pytest.log" 2>&1
echo "pytest rc $?"; tail -n 3 "$OUT/pytest.log"
grep -E '^(FAILED|ERROR)' "$OUT/pytest.log" | sed -E 's/ - (.{0,160}).*/ - \1/' | head -n 60

# The device tests themselves, run against PyTorch: they state PyTorch's behaviour.
FERROTORCH_TEST_TORCH=torch timeout 60 $PY -m pytest -q -p no:cacheprovider tests/test_cuda_device.py \
  > "$OUT/pytest_torch.log" 2>&1
echo "the same device tests on PyTorch: $(tail -n 1 "$OUT/pytest_torch.log")"

timeout 180 $PY -m bench.gpu --repeats 5 --json "$OUT/gpu_bench.json" 2>&1 | tee "$OUT/bench.log"
