#!/usr/bin/env bash
# Everything the GPU needs to check, in one call on a lent GPU machine (at most ~8 minutes):
# install what is missing from the carried wheels, run tests/gpu and the CUDA-side of the
# suite, then the GPU benchmarks beside warp-lang. Output also goes to $OUT when set.
#
# Prepare on the development machine (no GPU needed), in the repository root:
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#       --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .whl warp-lang==1.19.0 pytest
# then run through the device tool with carry=[".whl"] and command: bash tests/gpu/run_gpu_checks.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR="${OUT:-/tmp/gpu_checks}"
mkdir -p "$OUT_DIR"
log() { echo "== $*" | tee -a "$OUT_DIR/log.txt"; }

if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl 2>&1 | tail -2
    export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
fi
export PYTHONPATH="$PWD:${PYTHONPATH:-}"   # warp_nb from the working tree (finds native/ beside it)
export WARP_NB_CACHE_DIR=/tmp/warp_nb_cache PYTHONUNBUFFERED=1

log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee -a "$OUT_DIR/log.txt"
python3 -c "import warp_nb as wp; print(wp.get_devices(), [d.properties() for d in wp.get_cuda_devices()])" \
    2>&1 | tee -a "$OUT_DIR/log.txt"

log "tests/gpu"
timeout 300 python3 -m pytest -q -x tests/gpu -p no:cacheprovider 2>&1 | tee -a "$OUT_DIR/log.txt"

log "benchmarks (warp_nb and warp-lang on cuda:0)"
timeout 240 python3 benchmarks/bench_gpu.py 2>&1 | tee -a "$OUT_DIR/log.txt"
