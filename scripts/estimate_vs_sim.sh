#!/usr/bin/env bash
# docs/commands.md's table of `bnsim run --estimate` (the list scheduler's timeline) against the full
# SystemC simulation: latency of each, their disagreement, and wall time (minimum of 3 runs).
set -euo pipefail
cd "$(dirname "$0")/.."
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
bnsim=${BNSIM:-build/sim/bnsim}
cases=(
  "seed shape (auto: f_tile 4096, interleave 7)|"
  "interleave 1|--set memory={f_tile: 4096, interleave: 1}"
  "interleave 2|--set memory={f_tile: 4096, interleave: 2}"
  "interleave 4|--set memory={f_tile: 4096, interleave: 4}"
  "residency off (interleave 7)|--set memory={f_tile: 4096, interleave: 7, direct_x_residency: false}"
  "lnc=2, batch sharding|--set lnc=2"
  "C=256 lnc=2, channel sharding|--set shape.C=256 --set lnc=2"
  "fp32|--set dtype=float32"
  "B=64 C=512 D=16|--set shape.C=512 --set shape.D=16"
)
latency() { "$bnsim" run configs/default.yaml "$@" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ns"])'; }
wall() {
  local best=""
  for _ in 1 2 3; do
    local t
    t=$( { /usr/bin/time -f "%e" "$bnsim" run configs/default.yaml "$@" > /dev/null; } 2>&1 )
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
  done
  echo "$best"
}
echo "| config | simulation | estimate | estimate - simulation | wall: simulation / estimate |"
echo "|---|---|---|---|---|"
for c in "${cases[@]}"; do
  name=${c%%|*}
  args=()
  rest=${c#*|}
  if [ -n "$rest" ]; then args=(--set "${rest#--set }"); fi
  if [[ "$rest" == *" --set "* ]]; then read -r -a args <<< "$rest"; fi
  full=$(latency "${args[@]}")
  est=$(latency --estimate "${args[@]}")
  wf=$(wall "${args[@]}")
  we=$(wall --estimate "${args[@]}")
  python3 -c "f=$full; e=$est; print(f'| {\"$name\"} | {f/1000:.1f} us | {e/1000:.1f} us | {100*(e-f)/f:+.2f}% | $wf s / $we s |')"
done
