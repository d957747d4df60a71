#!/usr/bin/env bash
# The drift gate's acceptance on a GPU builder (called by gpu-builder.sh with ACCEPT=1, after install):
#  1. LIVE_BUILDS strict live builds (ATTN_EXAMPLES_LIVE_SCOPE, default core) that must pass;
#  2. two injected faults, each in its own live build that must fail, the code restored after each:
#     cuDNN disabled for un-pinned SDPA calls, and the naive forward's softmax computed in float32;
#  3. RUNS independent default measurements (attn-examples measure), then `check --baseline` on each
#     and the report of benchmarks/drift_gate_runs.py over them and the live builds;
#  4. the GPU tests, if time is left (GPU_TESTS_S seconds at most).
# Every step's exit code and wall time go to $OUT/work/acceptance.tsv.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
W="$OUT/work"; mkdir -p "$W/runs" "$W/builds"
export ATTN_EXAMPLES_LIVE_SCOPE=${ATTN_EXAMPLES_LIVE_SCOPE:-core} NO_MKDOCS_2_WARNING=1
printf 'step\texit\twall_s\n' > "$W/acceptance.tsv"
step() {   # step NAME COMMAND...: run, log, record exit code and wall time
  local name=$1; shift
  local t0=$(date +%s%N)
  echo "== $name ($(date -u +%H:%M:%S))"
  "$@" > "$W/$name.log" 2>&1; local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  printf '%s\t%s\t%d.%03d\n' "$name" "$rc" $((ms / 1000)) $((ms % 1000)) | tee -a "$W/acceptance.tsv"
}
live_build() {   # live_build NAME: a strict live build into /tmp/site-NAME, its measurement kept
  rm -rf .cache/live-snapshot
  step "$1" python3 -m mkdocs build --strict -d "/tmp/site-$1"
  cp -r .cache/live-snapshot "$W/builds/$1" 2>/dev/null
  [ -f "/tmp/site-$1/index.html" ] && echo "site" > "$W/builds/$1.site-written" || true
}
inject() {   # inject FILE PYTHON-REPLACEMENT...: python edits FILE (old -> new), backup kept
  cp "$1" "$1.orig"
  python3 - "$1" "$2" "$3" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
assert old in text, (path, old)
open(path, "w").write(text.replace(old, new, 1))
PY
}
restore() { mv "$1.orig" "$1"; }

for i in $(seq 1 "${LIVE_BUILDS:-3}"); do live_build "live$i"; done

# Fault 1: cuDNN disabled for un-pinned calls (a pinned sdpa_kernel(CUDNN_ATTENTION) still enables it).
f=snippets/sdpa_attention.py
inject "$f" "from torch.nn.attention import SDPBackend, sdpa_kernel" \
  "from torch.nn.attention import SDPBackend, sdpa_kernel
import torch; torch.backends.cuda.enable_cudnn_sdp(False)  # injected fault"
live_build fault-cudnn-off; restore "$f"

# Fault 2: the naive forward's softmax in float32.
f=snippets/naive_attention.py
inject "$f" "    weights = torch.softmax(scores, dim=-1)              # 4. softmax" \
  "    weights = torch.softmax(scores.float(), dim=-1).to(scores.dtype)  # injected fault"
live_build fault-softmax-fp32; restore "$f"

for i in $(seq -w 1 "${RUNS:-20}"); do
  step "measure$i" attn-examples measure --device cuda -q -o "$W/runs/run$i"
done

# claims and drift of every run, with the project's CLI (after the timing, so it disturbs none)
mkdir -p "$W/checks"
for run in "$W"/runs/run*; do
  attn-examples check "$run" --baseline snapshots/nvidia-h200 > "$W/checks/$(basename "$run").txt" 2>&1
  printf '%s\t%s\n' "check-$(basename "$run")" "$?" >> "$W/acceptance.tsv"
done
python3 benchmarks/drift_gate_runs.py --baseline snapshots/nvidia-h200 "$W"/runs/run* "$W"/builds/live*/* \
  > "$W/drift-gate-report.md" 2>&1; tail -n +1 "$W/drift-gate-report.md" | head -n 3

if [ "${GPU_TESTS_S:-0}" -gt 0 ]; then
  step gpu-tests timeout "${GPU_TESTS_S}" python3 -m pytest tests -m gpu -q -p no:cacheprovider
fi
cat "$W/acceptance.tsv"
