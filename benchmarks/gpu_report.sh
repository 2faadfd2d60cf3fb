#!/usr/bin/env bash
# The whole GPU check in one run: `devlint confirm --device cuda` over every rule's fixtures, and the
# DEV005/DEV006 test snippets run for real, writing docs/confirm-cuda.md, docs/confirm-cuda.json,
# docs/cuda-snippets.json and docs/cuda-semantics.txt (benchmarks/cuda_semantics.py) from what ran. Run
# from a checkout on a machine with CUDA and torch:
#
#     benchmarks/gpu_report.sh [OUT] [WHEELS]
#
# OUT: a folder the four files (and the log, nvidia-smi's output) are also copied to. WHEELS: a folder
# of wheels to install first into /tmp/site (libcst, pathspec: what devlint needs beside torch, where
# pip cannot reach an index). DEVICE=cpu runs the same steps without a GPU (confirm on the CPU, the
# snippets on `meta`) to try the script; DOCS=DIR writes the pages to DIR instead of docs/.
set -u
cd "$(dirname "$0")/.."
out=${1:-}
wheels=${2:-}
device=${DEVICE:-cuda}
docs=${DOCS:-docs}
mkdir -p "$docs" ${out:+"$out"}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
if [ -n "$wheels" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "$wheels"/*.whl || exit 2
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
scratch=$(mktemp -d)
log=${out:-$scratch}/gpu_report.log  # in OUT from the start: what ran is there even if the run is cut off
machine=$scratch/machine
{
    echo "$started, $(uname -nsrm)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv \
        2>&1 || true
    python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda",
torch.version.cuda, "available", torch.cuda.is_available())'
} >"$machine" 2>&1
cat "$machine" >"$log"
if [ "$device" = cuda ]; then snippets_device=cuda; else snippets_device=meta; fi

seconds() { echo $(( $(date +%s) - $1 )); }
t0=$(date +%s)
timeout 360 python3 -m devlint confirm --device "$device" --details --json "$docs/confirm-$device.json" \
    --markdown "$docs/confirm-$device.md" >>"$log" 2>&1
confirm_rc=$?
confirm_s=$(seconds "$t0")
[ -n "$out" ] && cp "$docs/confirm-$device.json" "$docs/confirm-$device.md" "$out/" 2>/dev/null
t0=$(date +%s)
fragment=$scratch/snippets.md
timeout 150 python3 benchmarks/cuda_snippets.py --device "$snippets_device" --json "$docs/cuda-snippets.json" \
    --markdown "$fragment" >>"$log" 2>&1
snippets_rc=$?
snippets_s=$(seconds "$t0")

if [ "$device" = cuda ]; then  # the device semantics DEV005 relies on, asked of the GPU itself
    timeout 60 python3 benchmarks/cuda_semantics.py >"$docs/cuda-semantics.txt" 2>>"$log"
    [ -n "$out" ] && cp "$docs/cuda-semantics.txt" "$out/"
fi

page="$docs/confirm-$device.md"
[ -f "$page" ] || echo "# devlint confirm did not write its page (exit status $confirm_rc): see the log" >"$page"
{
    echo
    cat "$fragment"
    echo
    echo "## How this page was made"
    echo
    echo "By \`benchmarks/gpu_report.sh\`, started $started (UTC); each section above says its own command."
    echo
    echo "- \`devlint confirm\`: exit status $confirm_rc, $confirm_s s; \`benchmarks/cuda_snippets.py\`:"\
         "exit status $snippets_rc (1: a snippet differs from the tests), $snippets_s s"
    echo "- the machine, as the script saw it:"
    echo
    echo '```'
    cat "$machine"
    echo '```'
} >>"$page"
[ -n "$out" ] && cp "$page" "$docs/confirm-$device.json" "$docs/cuda-snippets.json" "$out/" 2>/dev/null
cat "$log"
rm -rf "$scratch"
echo "confirm: exit $confirm_rc ($confirm_s s); snippets: exit $snippets_rc ($snippets_s s)"
