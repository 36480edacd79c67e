#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs the Debian packages bnsim needs (only
# those missing), builds, then runs the main job, the test suite or a check.
#   bash scripts/setup.sh run       # install + build bnsim + bnsim run configs/default.yaml
#   bash scripts/setup.sh test      # install + build bnsim and the tests + the whole test suite (ctest)
#   bash scripts/setup.sh build     # install + build only
#   bash scripts/setup.sh sanitize  # + clang: the test suite under ASan+UBSan (build-asan/)
#   bash scripts/setup.sh fuzz [S]  # + clang: each libFuzzer target for S seconds (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-run}"

packages=(build-essential cmake pkg-config python3 libsystemc-dev libspdlog-dev libcli11-dev catch2
          libyaml-cpp-dev nlohmann-json3-dev libnlopt-dev libjs-chart.js)
# The sanitizer and fuzzing build uses clang (libFuzzer and its runtimes ship in libclang-rt).
case "$mode" in sanitize|fuzz) packages+=(clang libclang-rt-14-dev) ;; esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
fi

case "$mode" in
  run|test|build|sanitize|fuzz) ;;
  *) echo "usage: $0 [run|test|build|sanitize|fuzz [SECONDS]]" >&2; exit 2 ;;
esac

jobs=$(nproc 2>/dev/null || echo 2)
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
case "$mode" in
  sanitize|fuzz)
    # Everything, tests and fuzz targets, with ASan+UBSan at -O1 (CMakeLists.txt: BNSIM_FUZZ).
    CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DBNSIM_FUZZ=ON >&2
    cmake --build build-asan -j "$jobs" >&2
    # A sanitizer report (ASan, UBSan, or LeakSanitizer at exit) aborts the process, so it fails
    # the test or the fuzz run. No suppressions: the whole suite runs clean.
    export ASAN_OPTIONS="abort_on_error=1:detect_stack_use_after_return=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    ;;
  *)
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >&2
    # `run` builds only what bnsim needs; the test suite is built by `test` (and `build`).
    target=()
    [ "$mode" = run ] && target=(--target bnsim)
    cmake --build build -j "$jobs" "${target[@]}" >&2
    ;;
esac

case "$mode" in
  run)      build/sim/bnsim run configs/default.yaml ;;
  test)     ctest --test-dir build --output-on-failure -j "$jobs" ;;
  build)    ;;
  sanitize) ctest --test-dir build-asan --output-on-failure -j "$jobs" ;;
  fuzz)     bash scripts/fuzz.sh "${2:-60}" ;;
esac
