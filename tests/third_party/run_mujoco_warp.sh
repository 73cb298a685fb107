#!/usr/bin/env bash
# Runs MuJoCo Warp's own tests on the CPU against warp_nb, with only `import warp` resolved to
# warp_nb (the conformance runner's import hook, tests/warp_conformance/child). Not part of pytest
# or CI; results are summarised in docs/compat.md ("MuJoCo Warp").
#   tests/third_party/run_mujoco_warp.sh [test_file_stem ...]   (default: every *_test.py)
# MJW_PATCH=1 (default) adds mjw_array_spec_patch.py, which accepts warp_nb's array annotations in
# MuJoCo Warp's is_array_spec (see that file); MJW_PATCH=0 runs it unchanged.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
VENV=${MJW_VENV:-/tmp/mjw-venv}
LOGS=${MJW_LOGS:-/tmp/mjw-logs}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "mujoco-warp==4.0.0" "warp-lang==1.19.0" pytest absl-py
  "$VENV/bin/pip" install -q -e "$REPO" --no-deps   # needs warp_nb/native (symlink in a worktree)
fi
CHILD=$REPO/tests/warp_conformance/child
export PYTHONPATH=$CHILD/shim:$CHILD:$REPO/tests/third_party   # the shim wins over warp-lang
export WARP_NB_CONFORMANCE_DATA=${WARP_NB_CONFORMANCE_DATA:-$HOME/.cache/warp_nb/conformance/data/warp_lang-1.19.0-py3-none-manylinux_2_28_x86_64}
export CUDA_VISIBLE_DEVICES=''
"$VENV/bin/python" -c "import warp; assert warp.__name__ == 'warp_nb', warp.__file__" || exit 1
SRC=$("$VENV/bin/python" -c "import mujoco_warp, os; print(os.path.dirname(mujoco_warp.__file__))")/_src
PLUGIN=(); [ "${MJW_PATCH:-1}" = 1 ] && PLUGIN=(-p mjw_array_spec_patch)
mkdir -p "$LOGS"
if [ $# -eq 0 ]; then set -- $(cd "$SRC" && ls *_test.py | sed 's/\.py$//'); fi
for stem in "$@"; do   # one file at a time; at the time limit SIGINT makes pytest print its summary
  timeout -s INT -k 30 "${MJW_TIMEOUT:-600}" "$VENV/bin/python" -m pytest "${PLUGIN[@]}" -p no:cacheprovider -q \
    "$SRC/$stem.py" > "$LOGS/$stem.log" 2>&1
  echo "$stem rc=$? $(grep -E ' in [0-9.]+s' "$LOGS/$stem.log" | tail -1)"
done
