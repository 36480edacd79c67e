#!/usr/bin/env bash
# Benchmarks reported in the README (not tests): wall time, user time and peak memory of the
# main commands, three runs each. Run after scripts/setup.sh build.
set -euo pipefail
cd "$(dirname "$0")/.."
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
bnsim=build/sim/bnsim
big=(--set shape.C=512 --set shape.D=16)
bench() {
  for i in 1 2 3; do
    /usr/bin/time -f "%e s wall  %U s user  %M KB peak  :: bnsim $*" "$bnsim" "$@" > /dev/null
  done
}
{
  bench trace configs/default.yaml
  bench trace configs/default.yaml "${big[@]}"
  bench run configs/default.yaml
  bench run configs/default.yaml "${big[@]}"
  bench validate configs/default.yaml
} 2>&1 | grep ' wall '
echo "simulated latency:"
"$bnsim" run configs/default.yaml --json | grep -m1 '"latency_ns"'
"$bnsim" run configs/default.yaml "${big[@]}" --json | grep -m1 '"latency_ns"'
