#!/usr/bin/env bash
# Everything the GPU needs to check, in one call on a lent GPU machine (about 8 minutes): tests/gpu,
# the GPU benchmarks (warp_nb checked and release; warp-lang when its wheel was carried), then the
# CUDA cases of Warp's own test files through the conformance runner (--cuda-only), summarised.
# Logs go to $OUT when set (the device tool brings them back).
#
# Prepare on the development machine (no GPU needed), in the repository root:
#   printf '/.whl/\n/.conf_cache/\n' >> .git/info/exclude
#   N=warp_lang-1.19.0-py3-none-manylinux_2_28_x86_64; C=~/.cache/warp_nb/conformance
#   python tests/warp_conformance/run.py --fetch-only          # unpacks Warp's tests into $C/data
#   mkdir -p .conf_cache/data .conf_cache/wheel && cp -r $C/data/$N .conf_cache/data/ && touch .conf_cache/wheel/$N.whl
# (the warp-lang wheel itself, 149 MB, is over the tool's 64 MiB; .whl/ may carry smaller wheels)
# then run through the device tool with carry=[".conf_cache"] and command: bash tests/gpu/run_gpu_checks.sh
# GPU_CHECKS="tests bench conformance" selects steps; CONFORMANCE_FILES='test_vec* ...' selects files;
# GPU_CHECKS=tiles alone runs the split-tile checks and the benchmark (a short device call, ~4 minutes).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR="${OUT:-/tmp/gpu_checks}"
mkdir -p "$OUT_DIR"
STEPS="${GPU_CHECKS:-tests bench conformance}"
log() { echo "== $* ($(date +%T))" | tee -a "$OUT_DIR/log.txt"; }

if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl 2>&1 | tail -2
    export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
fi
# warp_nb from the working tree, installed editable as a developer has it (setup.py maps kernels/,
# magics/ and native/ under warp_nb); PYTHONPATH as well, in case the install fails
python3 -m pip install -q --no-deps --no-build-isolation --root-user-action=ignore -e . 2>&1 | tail -2
export PYTHONPATH="$PWD:${PYTHONPATH:-}"
export WARP_NB_CACHE_DIR=/tmp/warp_nb_cache PYTHONUNBUFFERED=1

log "machine"
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    python3 -m pip show cuda-bindings 2>/dev/null | head -2
    g++ --version | head -1
    python3 -c "import warp_nb as wp; print(wp.get_devices(), [d.properties() for d in wp.get_cuda_devices()])"
} 2>&1 | tee -a "$OUT_DIR/log.txt"

if [[ " $STEPS " == *" tests "* ]]; then
    log "tests/gpu"
    per_test=$(python3 -c "import pytest_timeout" 2>/dev/null && echo "--timeout 90")
    # shellcheck disable=SC2086
    # (240 s: NVRTC takes 10-30 s for a kernel of 64 x 64 tiles; the tile file compiles about 17 variants)
    timeout 240 python3 -m pytest -q tests/gpu -p no:cacheprovider -rfE $per_test 2>&1 | tee "$OUT_DIR/gpu_tests.txt"
fi

if [[ " $STEPS " == *" tiles "* ]]; then
    log "split tiles: tests/gpu/test_cuda_tiles.py, then the benchmark"
    timeout 200 python3 -m pytest -q tests/gpu/test_cuda_tiles.py -p no:cacheprovider -rfE 2>&1 | tee "$OUT_DIR/gpu_tiles.txt"
    timeout 240 python3 benchmarks/bench_gpu.py 2>&1 | tee "$OUT_DIR/bench_gpu.txt"
fi

if [[ " $STEPS " == *" bench "* ]]; then
    log "benchmarks on cuda:0"
    timeout 240 python3 benchmarks/bench_gpu.py 2>&1 | tee "$OUT_DIR/bench_gpu.txt"
fi

if [[ " $STEPS " == *" conformance "* ]] && [ -d .conf_cache/data ]; then
    log "Warp's tests, CUDA cases only"
    export WARP_NB_CONFORMANCE_CACHE="$PWD/.conf_cache" WARP_NB_CONFORMANCE_WHEEL
    WARP_NB_CONFORMANCE_WHEEL=$(ls "$PWD"/.conf_cache/wheel/*.whl | head -1)
    rm -rf .conf_cache/results
    # shellcheck disable=SC2086  (the file patterns are words)
    timeout "${CONFORMANCE_TIMEOUT:-240}" python3 tests/warp_conformance/run.py --cuda-only -j "${CONFORMANCE_JOBS:-14}" \
        --timeout 180 ${CONFORMANCE_FILES:+--files $CONFORMANCE_FILES} > "$OUT_DIR/conformance_log.txt" 2>&1
    echo "runner exit $?" | tee -a "$OUT_DIR/log.txt"
    python3 tests/gpu/summarize_cuda_conformance.py .conf_cache/results/warp_nb-cuda-* \
        --json "$OUT_DIR/conformance_cuda.json" 2>&1 | tee "$OUT_DIR/conformance_summary.txt" | tail -60
    # every file's log (a failing example's output is there, not in the summary), without work folders
    tar czf "$OUT_DIR/conformance_logs.tgz" --exclude=work -C .conf_cache/results . 2>/dev/null
fi
log "done"
