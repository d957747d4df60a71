#!/usr/bin/env bash
# One batched run on a GPU builder: install, GPU tests (the whole suite when the docs stack is
# carried in .whl/; WHOLE_SUITE=0 skips it), three measurements (RUNS=1: one; RUN1_ARGS=--extended for the one
# to commit), benchmark, claims and drift per run, and with LIVE_BUILD=1 a live site build.
# Everything it produces goes into $OUT (default ./gpu-out), packed as gpu-results.tar.gz.
# MATRIX=1 measures instead the committed matrix of configurations (scripts/matrix.txt, or the file
# MATRIX_FILE names: some of its lines, or a shape nobody has read yet), one snapshot each, packed as matrix-<name>.tar.gz, then stops; with BASELINE=1 the baseline itself first
# (the default configuration, --extended, with counters: snapshots/<device>), as matrix-baseline.tar.gz.
# NOTEBOOK=1 runs instead the site's notebook beside NOTEBOOK_SNAPSHOT (default snapshots/nvidia-h200) and
# brings back its frozen outputs (notebook.ipynb) with the GPU tests' result.
# FAST=1 runs instead benchmarks/live_build.py twice (a cold live strict build stage by stage, a warm serve, the
# fast measurement checked against the baseline) and the GPU tests, packed as fast.tar.gz.
# PASSES=1 runs instead benchmarks/ncu_passes.py (replay passes per counters metric), packed as passes.tar.gz.
# COUNTERS=1 runs instead the counters pass over the committed H200 snapshots that hold counters (COUNTERS_SNAPSHOTS),
# each written back with its .ncu-rep, the notebook's frozen run again (COUNTERS_NOTEBOOK=0: not), then the GPU
# tests, packed as counters.tar.gz.
# ACCEPT=1 runs instead the drift gate's acceptance (scripts/gpu-acceptance.sh): live builds, two
# injected faults, then independent default measurements, packed as acceptance.tar.gz.
#   ATTN_EXAMPLES_GIT_COMMIT=<sha> OUT=/somewhere bash scripts/gpu-builder.sh   (the sha is required where the tree
#   differs from its .git's HEAD: a copy over a stale .git; ALLOW_DIRTY=1 to measure uncommitted code anyway)
set -uo pipefail  # keep going after a failure: every log comes back
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/work"
export PYTHONUNBUFFERED=1 NO_MKDOCS_2_WARNING=1
log() { echo "== $* ($(date -u +%H:%M:%S))"; }

# A builder gets a copy of the working tree, sometimes over an older .git: then `git rev-parse HEAD`
# names a commit the code is not, and every stamp would say so. Name the tree's commit, or say it is dirty.
if [ -z "${ATTN_EXAMPLES_GIT_COMMIT:-}" ] && [ "${ALLOW_DIRTY:-0}" != 1 ] && git rev-parse -q --verify HEAD >/dev/null 2>&1 \
   && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null | head -n 1)" ]; then
  echo "gpu-builder: this tree differs from its .git's HEAD ($(git rev-parse --short HEAD)): set ATTN_EXAMPLES_GIT_COMMIT=<the tree's commit> (or ALLOW_DIRTY=1)" >&2
  exit 2
fi
log install
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  # --target puts nbconvert's templates under /tmp/site/share/jupyter: tell Jupyter where.
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} JUPYTER_PATH=/tmp/site/share/jupyter
fi
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/work/nvidia-smi.txt"
(command -v ncu && ncu --version) > "$OUT/work/ncu-version.txt" 2>&1

if [ "${NOTEBOOK:-0}" = 1 ]; then   # NOTEBOOK=1: run the site's notebook beside a snapshot, freeze its outputs
  snap=${NOTEBOOK_SNAPSHOT:-snapshots/nvidia-h200}
  log "notebook beside $snap"
  /usr/bin/time -f "%e s wall" attn-examples notebook "$snap" > "$OUT/work/notebook.log" 2>&1
  tail -n 5 "$OUT/work/notebook.log"; cp "$snap/notebook.ipynb" "$OUT/notebook.ipynb" 2>/dev/null
  log "gpu tests and the notebook tests"
  python3 -m pytest tests -m gpu -q -p no:cacheprovider 2>&1 | tail -n 5 | tee "$OUT/work/pytest-gpu.log"
  python3 -m pytest tests/test_notebook.py -q -p no:cacheprovider 2>&1 | tail -n 3 | tee "$OUT/work/pytest-notebook.log"
  tar -C "$OUT" -czf "$OUT/notebook.tar.gz" work && rm -rf "$OUT/work"
  log done; exit 0
fi

if [ "${FAST:-0}" = 1 ]; then   # FAST=1: the live build's minute, stage by stage (benchmarks/live_build.py)
  # first, on a cold machine (no measurement cache, no compile cache): what a new GPU builder sees
  log "live build benchmark (cold), then a warm serve"
  python3 benchmarks/live_build.py --out "$OUT/work/live" 2>&1 | tail -n 3 | tee "$OUT/work/live-build-result.txt"
  tail -n 4 "$OUT/work/live"/live-build-*.log
  if [ "${FAST_TWICE:-1}" = 1 ]; then
    log "second live build (warm compile caches, measured afresh)"
    python3 benchmarks/live_build.py --out "$OUT/work/live2" 2>&1 | tail -n 1 | tee -a "$OUT/work/live-build-result.txt"
  fi
  grep -h "==PROF== Profiling" "$OUT/work/live/ncu-full/ncu.log" 2>/dev/null | sed 's/: 0%.*100% - / /' | sort | uniq -c | sort -rn | head -n 12
  rm -rf "$OUT/work/live/site" "$OUT/work/live2/site" "$OUT/work/live2"/ncu-* "$OUT/work/live"/ncu-*/*.ncu-rep
  log "gpu tests"
  python3 -m pytest tests -m gpu -q -p no:cacheprovider 2>&1 | tail -n 8 | tee "$OUT/work/pytest-gpu.log"
  tar -C "$OUT" -czf "$OUT/fast.tar.gz" work && rm -rf "$OUT/work"
  log done; exit 0
fi

if [ "${PASSES:-0}" = 1 ]; then   # PASSES=1: ncu's replay passes per counters metric (benchmarks/ncu_passes.py)
  log "ncu passes per metric"
  python3 benchmarks/ncu_passes.py --out "$OUT/work/ncu-passes.jsonl" 2>&1 | tail -n 3
  tar -C "$OUT" -czf "$OUT/passes.tar.gz" work && rm -rf "$OUT/work"
  log done; exit 0
fi

if [ "${COUNTERS:-0}" = 1 ]; then   # COUNTERS=1: the committed H200 snapshots' counters (and .ncu-rep) afresh, then the GPU tests
  for snap in ${COUNTERS_SNAPSHOTS:-snapshots/nvidia-h200 snapshots/nvidia-h200-float16 snapshots/nvidia-h200-b1-h8-s512}; do
    name=$(basename "$snap")
    log "counters over $snap"
    /usr/bin/time -f "%e s wall" attn-examples counters "$snap" --ncu-log "$OUT/work/ncu-$name" > "$OUT/work/counters-$name.log" 2>&1
    tail -n 3 "$OUT/work/counters-$name.log"
    rm -f "$OUT/work/ncu-$name"/*.ncu-rep   # the snapshot keeps it
    mkdir -p "$OUT/work/snapshots" && cp -r "$snap" "$OUT/work/snapshots/"
  done
  if [ "${COUNTERS_NOTEBOOK:-1}" = 1 ]; then   # the notebook's frozen run, again (its code changed)
    log "notebook beside snapshots/nvidia-h200"
    /usr/bin/time -f "%e s wall" attn-examples notebook snapshots/nvidia-h200 > "$OUT/work/notebook.log" 2>&1
    tail -n 3 "$OUT/work/notebook.log"; cp snapshots/nvidia-h200/notebook.ipynb "$OUT/work/snapshots/nvidia-h200/" 2>/dev/null
  fi
  log "gpu tests"
  python3 -m pytest tests -m gpu -q -p no:cacheprovider -rs 2>&1 | tail -n 12 | tee "$OUT/work/pytest-gpu.log"
  tar -C "$OUT" -czf "$OUT/counters.tar.gz" work && rm -rf "$OUT/work"
  log done; exit 0
fi

if [ "${ACCEPT:-0}" = 1 ]; then
  OUT="$OUT" bash scripts/gpu-acceptance.sh
  tar -C "$OUT" -czf "$OUT/acceptance.tar.gz" work && rm -rf "$OUT/work"
  log done; exit 0
fi

if [ "${MATRIX:-0}" = 1 ]; then
  # name | measure arguments | "counters" to add the ncu pass; lines starting with # are skipped
  { [ "${BASELINE:-0}" = 1 ] && echo "baseline | --extended | counters"; grep -v '^#' "${MATRIX_FILE:-scripts/matrix.txt}"; } \
  | while IFS='|' read -r name args extra; do
    name=$(echo "$name" | xargs); [ -n "$name" ] || continue
    log "matrix $name: measure $args"
    mkdir -p "$OUT/work/$name"
    /usr/bin/time -f "%e s wall" attn-examples measure --device cuda $args -q -o "$OUT/work/$name/snapshot" </dev/null \
      > "$OUT/work/$name/measure.log" 2>&1; tail -n 3 "$OUT/work/$name/measure.log"
    if [ "$(echo "$extra" | xargs)" = counters ]; then
      log "matrix $name: counters"
      /usr/bin/time -f "%e s wall" attn-examples counters "$OUT/work/$name/snapshot" </dev/null \
        > "$OUT/work/$name/counters.log" 2>&1; tail -n 3 "$OUT/work/$name/counters.log"
    fi
    attn-examples check "$OUT/work/$name/snapshot" > "$OUT/work/$name/check.txt" 2>&1; tail -n 2 "$OUT/work/$name/check.txt"
    tar -C "$OUT/work" -czf "$OUT/matrix-$name.tar.gz" "$name" && rm -rf "$OUT/work/$name"
  done
  log done; exit 0
fi

log gpu tests
python3 -m pytest tests -m gpu -q -p no:cacheprovider 2>&1 | tee "$OUT/work/pytest-gpu.log"
if [ "${WHOLE_SUITE:-1}" = 1 ] && python3 -c "import mkdocs_static_i18n" 2>/dev/null; then
  log "whole suite (docs stack carried)"
  python3 -m pytest tests -q -p no:cacheprovider 2>&1 | tee "$OUT/work/pytest-all.log" | tail -n 15
fi

RUN_IDS=$(seq 1 "${RUNS:-3}")   # RUNS=1: one measurement, no benchmark
for i in $RUN_IDS; do
  log "measure run $i"
  extra=""; [ "$i" = 1 ] && extra="${RUN1_ARGS:-}"   # e.g. RUN1_ARGS=--extended: the run to commit
  /usr/bin/time -f "%e s wall" attn-examples measure --device cuda $extra -o "$OUT/work/run$i" 2>&1 \
    | tee "$OUT/work/measure-run$i.log" | tail -n 40
done

if [ "${RUNS:-3}" -ge 3 ]; then
  log benchmark
  python3 benchmarks/measure_wall.py --device cuda | tee "$OUT/work/benchmark.json"
  python3 benchmarks/compare_runs.py "$OUT"/work/run1 "$OUT"/work/run2 "$OUT"/work/run3 | tee "$OUT/work/runs.txt"
fi
for i in $RUN_IDS; do
  log "claims and drift, run $i"
  attn-examples check "$OUT/work/run$i" --baseline snapshots/nvidia-h200 > "$OUT/work/check-run$i.txt" 2>&1
  echo "exit $?" >> "$OUT/work/check-run$i.txt"; tail -n 3 "$OUT/work/check-run$i.txt"
done

if [ "${COUNTERS:-0}" = 1 ]; then   # Nsight Compute pass over run 1 (one ncu process per variant)
  log "hardware counters (ncu)"
  /usr/bin/time -f "%e s wall" attn-examples counters "$OUT/work/run1" --ncu-log "$OUT/work/ncu-logs" 2>&1 \
    | tee "$OUT/work/counters.log" | tail -n 5
  attn-examples check "$OUT/work/run1" > "$OUT/work/check-counters.txt" 2>&1; tail -n 3 "$OUT/work/check-counters.txt"
fi

# Pack what we have before the long live build, so a time-out there loses nothing else.
tar -C "$OUT" -czf "$OUT/gpu-results.tar.gz" work && rm -rf "$OUT/work" && mkdir -p "$OUT/work"

if [ "${LIVE_BUILD:-0}" = 1 ]; then
  log "live site build (auto mode: the GPU is detected)"
  rm -rf .cache/live-snapshot
  /usr/bin/time -f "%e s wall" python3 -m mkdocs build --strict -d /tmp/live-site 2>&1 | tee "$OUT/work/live-build.log" | tail -n 20
  cp -r .cache/live-snapshot "$OUT/work/live-snapshot" 2>/dev/null
  attn-examples check .cache/live-snapshot/* > "$OUT/work/live-check.txt" 2>&1; tail -n 2 "$OUT/work/live-check.txt"
  for lang in "" zh-TW/; do
    for page in "" cudnn/; do
      f=/tmp/live-site/${lang}${page}index.html
      [ -f "$f" ] && cp "$f" "$OUT/work/live-$(echo "${lang}${page}" | tr -d / | tr -c 'A-Za-z\n' _)index.html"
    done
  done
fi

if [ -n "${EXTRA:-}" ]; then log extra; bash -c "$EXTRA" 2>&1 | tee "$OUT/work/extra.log"; fi
tar -C "$OUT" -czf "$OUT/gpu-live.tar.gz" work && rm -rf "$OUT/work"
log done
