#!/bin/bash
# Renders bnsim's three report pages in a real browser (Debian's headless Chromium, offline) and
# saves each as a screenshot in docs/: the seed grid's sweep report, the seed shape's
# sensitivity (tornado) page and compare's page for the public M4 vector-add runs. Checks on the
# way that every chart on each page drew (the page's data-charts / data-chart-errors).
#   bash scripts/report_screenshots.sh [BNSIM] [OUT_DIR]      (defaults: build/sim/bnsim, docs)
# Exit 0 with the PNGs written; 1 if a page drew no chart or Chromium wrote no image; 2 for bad
# usage (no bnsim binary, no chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bnsim=${1:-build/sim/bnsim} out=${2:-docs}
[ -x "$bnsim" ] || { echo "$0: $bnsim: no bnsim binary (build first: bash scripts/setup.sh build)" >&2; exit 2; }
command -v chromium >/dev/null || { echo "$0: chromium not installed (apt-get install chromium)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shot PAGE PNG WIDTHxHEIGHT CHARTS: checks the page drew CHARTS charts, then saves the PNG.
shot() {
  local page=$1 png=$2 size=$3 want=$4 drawn
  drawn=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
            --dump-dom "file://$page" 2>/dev/null | grep -o 'data-charts="[0-9]*" data-chart-errors="[^"]*"' || true)
  [ "$drawn" = "data-charts=\"$want\" data-chart-errors=\"\"" ] ||
    { echo "$0: $page: expected $want charts drawn, got '${drawn:-nothing}'" >&2; exit 1; }
  rm -f "$png"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$work/profile" --screenshot="$png" --window-size="${size/x/,}" \
    "file://$page" >/dev/null 2>&1 || true
  [ -s "$png" ] || { echo "$0: chromium wrote no screenshot of $page" >&2; exit 1; }
  echo "$png: $want charts, $(stat -c %s "$png") bytes"
}

"$bnsim" sweep configs/sweeps/seed_grid.yaml -j 2 --out "$work/sweep" > /dev/null
"$bnsim" sensitivity configs/default.yaml --out "$work/sensitivity" > /dev/null
"$bnsim" compare configs/measured/m4_vector_add.csv --out "$work/compare" > /dev/null
shot "$work/sweep/report.html" "$out/sweep-report.png" 1400x2750 5
shot "$work/sensitivity/sensitivity.html" "$out/sensitivity-report.png" 1200x820 1
shot "$work/compare/compare.html" "$out/compare-report.png" 1000x1120 2
