#!/bin/bash
# Opens a sweep's report.html in a real browser (Debian's headless Chromium, offline) and saves
# a screenshot: checks that the page renders and gives docs/commands.md its picture.
#   bash scripts/sweep_report_screenshot.sh DIR/report.html OUT.png [WIDTHxHEIGHT]
# Exit 0 with OUT.png written; 1 if Chromium wrote no image; 2 for bad usage.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 REPORT.html OUT.png [WIDTHxHEIGHT]" >&2; exit 2; }
report=$(realpath "$1") png=$2 size=${3:-1400x1900}
[ -f "$report" ] || { echo "$0: $1: no such file" >&2; exit 2; }
command -v chromium >/dev/null || { echo "$0: chromium not installed (apt-get install chromium)" >&2; exit 2; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$png"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --screenshot="$png" --window-size="${size/x/,}" \
  "file://$report" >/dev/null 2>&1 || true
[ -s "$png" ] || { echo "$0: chromium wrote no screenshot" >&2; exit 1; }
echo "$png: $(stat -c %s "$png") bytes"
