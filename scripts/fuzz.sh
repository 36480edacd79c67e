#!/usr/bin/env bash
# Runs each libFuzzer target (tests/fuzz) for SECONDS, one after the other, from its seed corpus
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
for t in "${targets[@]}"; do
  bin=build-asan/tests/fuzz/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz: $bin is not built (bash scripts/setup.sh fuzz 0)" >&2; exit 2; }
  mkdir -p "build-asan/fuzz/corpus/$t"
  dict=()
  case "$t" in config|set|sweep) dict=(-dict=tests/fuzz/config.dict) ;; esac
  echo "fuzz: $t for ${secs} s" >&2
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GB is a runaway allocation.
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
         -artifact_prefix="build-asan/fuzz/$t-" "${dict[@]}" \
         "build-asan/fuzz/corpus/$t" "tests/fuzz/corpus/$t"
done
