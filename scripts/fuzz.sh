#!/usr/bin/env bash
# Runs each libFuzzer target (tests/fuzz) for SECONDS, as many at once as the machine has cores
# (FUZZ_JOBS to change it; each target's output in build-asan/fuzz/TARGET.log, printed when it
# finds something), from its seed corpus
# in tests/fuzz/corpus/TARGET; inputs it finds go to build-asan/fuzz/corpus/TARGET (the seeds stay
# untouched), a crashing input to build-asan/fuzz/TARGET-crash-*. Build first with
# `bash scripts/setup.sh fuzz` (which also runs this). Exit status non-zero on any finding.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]      # TARGET: config set npy trace trace_image measured_csv
#                                                   # latency_table profile_json profile_csv sweep
#                                                   # results (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config set npy trace trace_image measured_csv latency_table profile_json profile_csv sweep results)
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
for t in "${targets[@]}"; do
  [ -x "build-asan/tests/fuzz/fuzz_$t" ] || { echo "fuzz: build-asan/tests/fuzz/fuzz_$t is not built (bash scripts/setup.sh fuzz 0)" >&2; exit 2; }
done
mkdir -p build-asan/fuzz
# One target, its output in its log; the exit status is libFuzzer's.
fuzz_one() {
  local t="$1" dict=()
  mkdir -p "build-asan/fuzz/corpus/$t"
  case "$t" in config|set|sweep) dict=(-dict=tests/fuzz/config.dict) ;; esac
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GB is a runaway allocation.
  "build-asan/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="build-asan/fuzz/$t-" "${dict[@]}" \
      "build-asan/fuzz/corpus/$t" "tests/fuzz/corpus/$t" > "build-asan/fuzz/$t.log" 2>&1
}
failed=()
pids=()
names=()
# Waits for the oldest running target; a finding prints its log.
reap() {
  local t="${names[0]}"
  if ! wait "${pids[0]}"; then
    failed+=("$t")
    echo "fuzz: $t found a problem:" >&2
    cat "build-asan/fuzz/$t.log" >&2
  else
    echo "fuzz: $t clean ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "build-asan/fuzz/$t.log" | grep -o '[0-9]*$' || echo '?') runs)" >&2
  fi
  pids=("${pids[@]:1}")
  names=("${names[@]:1}")
}
for t in "${targets[@]}"; do
  [ ${#pids[@]} -lt "$jobs" ] || reap
  echo "fuzz: $t for ${secs} s" >&2
  fuzz_one "$t" &
  pids+=($!)
  names+=("$t")
done
while [ ${#pids[@]} -gt 0 ]; do reap; done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: findings in ${failed[*]}" >&2; exit 1; }
