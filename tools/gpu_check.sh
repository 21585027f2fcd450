#!/usr/bin/env bash
# The checks that need a CUDA device, in one run: every test that has a real-CuPy case
# (the `device` fixture's "cupy" parameter and the GPU cases of the PaddlePaddle comparisons),
# then `python -m bench gpu` (paddle_nb on GPUPlace(0) against hand-written CuPy and PyTorch).
# Needs CuPy, pytest (with pytest-xdist and pytest-timeout), hypothesis, scipy and protobuf in
# the Python it is given; paddle_nb is imported from this checkout.
#
#   tools/gpu_check.sh [python] [out-dir]      # defaults: python3, ./gpu_out
#
# Then notebook 07's script (the tour's CPU-and-GPU notebook, whose GPU branch runs only where
# there is a device); where IPython is absent a stand-in `display` prints each object's repr.
# Writes tests.log, junit.xml, bench.log, gpu.json and nb07.log into out-dir; each part has its own time
# limit (TEST_LIMIT, BENCH_LIMIT seconds) so that one slow part leaves the other's figures.
set -u
PY=${1:-python3}
OUTDIR=${2:-gpu_out}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
case "$PY" in */*) PY="$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")";; esac  # absolute, unresolved
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
"$PY" -c "import sys, numpy, cupy, google.protobuf as p; print(sys.version.split()[0], 'numpy', numpy.__version__, 'cupy', cupy.__version__, 'protobuf', p.__version__)"
# every test module with a GPU case: the `device` fixture, or a test of its own on GPUPlace
FILES=$(grep -rlE "GPUPlace|[(, ]device[,)]" tests --include="test_*.py" | sort)
XDIST="-n ${WORKERS:-8}"; [ "${WORKERS:-8}" = 0 ] && XDIST=""
timeout "${TEST_LIMIT:-300}" "$PY" -m pytest $FILES -k cupy -q $XDIST \
    -p no:randomly --timeout 120 -rfE --tb=short --junitxml="$OUTDIR/junit.xml" \
    > "$OUTDIR/tests.log" 2>&1
echo "tests: exit $?"; tail -n 40 "$OUTDIR/tests.log" | grep -v "^$" | tail -n 25
timeout "${BENCH_LIMIT:-200}" "$PY" -m bench gpu --json "$OUTDIR/gpu.json" > "$OUTDIR/bench.log" 2>&1
echo "bench: exit $?"; cat "$OUTDIR/bench.log" | tail -n 30
SHIM=$(mktemp -d)
if ! "$PY" -c "import IPython" 2>/dev/null; then
    mkdir -p "$SHIM/IPython"; : > "$SHIM/IPython/__init__.py"
    echo 'def display(obj): print(repr(obj)[:300])' > "$SHIM/IPython/display.py"
fi
(cd notebooks && PYTHONPATH="$PWD/..:$SHIM" timeout 300 "$PY" scripts/07_cpu_and_gpu.py \
    > "$OUTDIR/nb07.log" 2>&1)
echo "notebook 07: exit $?"; grep -i "gpu\|error" "$OUTDIR/nb07.log" | head -n 12
