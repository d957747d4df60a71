#!/usr/bin/env bash
# Build this site with one site generator in a throwaway environment, time it, and check the output
# (docs-dev/decisions/0001-site-generator.md records the results and says when to re-run this).
#
#   scripts/try-generator.sh mkdocs              # the pinned stack: uv.lock's docs extra, `mkdocs build --strict`
#   scripts/try-generator.sh properdocs [1.6.7]  # the same environment plus ProperDocs, `properdocs build --strict`
#   scripts/try-generator.sh zensical [0.0.73]   # the same environment plus Zensical, `zensical build`
#
# Without a version the newest one that installs is taken. Everything goes under
# $TRY_DIR/<candidate> (default /tmp/try-generator): a copy of the working tree (tracked and
# untracked, not ignored: Zensical has no --site-dir, and nothing in the checkout is touched), a venv,
# the site and the build logs. RUNS builds (default 2: the first with empty caches) are timed.
# Always renders from the committed snapshot (ATTN_EXAMPLES_MEASURE=snapshot), GPU or not.
# Needs uv: $UV, else the checkout's .tools/bin/uv (`make tools`), else uv on PATH.
set -euo pipefail

candidate=${1:?usage: scripts/try-generator.sh mkdocs|properdocs|zensical [version]}
version=${2:-}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=${TRY_DIR:-/tmp/try-generator}/$candidate
runs=${RUNS:-2}
uv=${UV:-$repo/.tools/bin/uv}
[ -x "$uv" ] || uv=$(command -v uv) || { echo "no uv: run 'make tools' or set UV=/path/to/uv" >&2; exit 2; }

case $candidate in mkdocs|properdocs|zensical) ;; *) echo "unknown candidate: $candidate" >&2; exit 2;; esac

rm -rf "$work" && mkdir -p "$work/src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$work/src"

# One environment for all three: the lock's docs extra (no torch), the package installed from the copy.
(cd "$work/src" && UV_PROJECT_ENVIRONMENT="$work/venv" "$uv" sync --locked --extra docs --quiet)
bin=$work/venv/bin
case $candidate in
  mkdocs)     build=("$bin/mkdocs" build --strict -d "$work/site") ;;
  properdocs) "$uv" pip install --quiet --python "$bin/python" "properdocs${version:+==$version}"
              build=("$bin/properdocs" build --strict -f mkdocs.yml -d "$work/site") ;;
  zensical)   "$uv" pip install --quiet --python "$bin/python" "zensical${version:+==$version}"
              build=("$bin/zensical" build -f mkdocs.yml) ;;      # writes site_dir (site/) in the copy
esac
echo "== $candidate: $("$bin/$candidate" --version 2>&1 | head -1)"
"$uv" pip list --python "$bin/python" 2>/dev/null | grep -E -i '^(mkdocs|mkdocs-material|mkdocs-static-i18n|markdown-exec|mkdocs-jupyter|jieba|properdocs|zensical) ' || true

export ATTN_EXAMPLES_MEASURE=snapshot NO_MKDOCS_2_WARNING=1 MKDOCS_JUPYTER_CACHE_DIR="$work/jupyter-cache"
status=0
for run in $(seq 1 "$runs"); do
  start=$(date +%s.%N)
  (cd "$work/src" && "${build[@]}") >"$work/build-$run.log" 2>&1 || status=$?
  end=$(date +%s.%N)
  printf '== build %s: exit %s, %.1f s wall (log: %s)\n' "$run" "$status" "$(awk "BEGIN { print $end - $start }")" "$work/build-$run.log"
  if [ "$status" -ne 0 ]; then tail -5 "$work/build-$run.log"; exit "$status"; fi
done
grep -E -v '^(INFO|DEBUG)|^\s|^$' "$work/build-1.log" | sort | uniq -c | sort -rn | head -8 || true

site=$work/site; [ "$candidate" = zensical ] && site=$work/src/site
echo "== checks ($site)"
python3 "$repo/scripts/check_generated_site.py" "$site" --docs "$work/src/docs" || true
