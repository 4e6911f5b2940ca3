#!/bin/bash
# One call on a lent GPU machine: the new GPU paths' tests, the benchmark, the whole
# gpu-marked suite; logs and results under $OUT.  Usage (repository root):
#   bash bench/gpu_session.sh [new-tests-s bench-s suite-s profile-s]  (profile: 0 = skip)
set -u
OUT=${OUT:-/tmp/gpu_session}
mkdir -p "$OUT"
export PYTHONPATH=. PYTHONUNBUFFERED=1
T_NEW=${1:-90} T_BENCH=${2:-110} T_SUITE=${3:-110} T_PROFILE=${4:-0}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import cupy, torch; print('cupy', cupy.__version__, 'torch', torch.__version__)"
python3 -c "from gluonlite.ops import _cudnn_lib as L; lib = L.library(); print('cudnn', lib and lib.version, L.load_error())"
timeout "$T_NEW" python3 -m pytest -q --maxfail=20 --tb=short -p no:cacheprovider -n 4 \
    tests/ops/test_cudnn_ops.py tests/engine/test_cuda_graph.py \
    tests/ops/test_gpu_update_kernels.py > "$OUT/new_tests.log" 2>&1
tail -n 60 "$OUT/new_tests.log"
timeout "$T_BENCH" python3 bench/bench_gpu.py --json "$OUT/bench.json" --steps 10 > "$OUT/bench.log" 2>&1
cat "$OUT/bench.log"
timeout "$T_SUITE" python3 -m pytest -q -m gpu tests -p no:cacheprovider -n 8 --tb=line \
    > "$OUT/gpu_suite.log" 2>&1
grep -E "FAILED|ERROR|passed|failed" "$OUT/gpu_suite.log" | tail -n 40
if [ "$T_PROFILE" -gt 0 ]; then
    timeout "$T_PROFILE" python3 bench/profile_gpu_step.py resnet18 5 > "$OUT/profile.log" 2>&1
    head -n 45 "$OUT/profile.log"
fi
