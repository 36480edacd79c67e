#!/usr/bin/env bash
# Regenerates tests/golden/NAME.json from tests/golden/cases.txt with the built bnsim.
# Use only when a change moves outputs on purpose; explain the diff in the commit message.
set -euo pipefail
cd "$(dirname "$0")/.."
bnsim=${BNSIM:-build/sim/bnsim}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# The golden test ignores the build's provenance (the last key of every JSON output); drop it so
# a regeneration diffs only figures.
strip_provenance=$(cat <<'PY'
import re, sys
sys.stdout.write(re.sub(r',\n  "provenance": \{[^{}]*\}', '', sys.stdin.read()))
PY
)
while IFS='|' read -r name args; do
  name=$(echo "$name" | xargs)
  case "$name" in ''|'#'*) continue ;; esac
  eval "set -- $args"   # shell quoting, as the test runs them
  "$bnsim" "$@" | python3 -c "$strip_provenance" > "tests/golden/$name.json.tmp"
  mv "tests/golden/$name.json.tmp" "tests/golden/$name.json"
  echo "updated tests/golden/$name.json"
done < tests/golden/cases.txt
