#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs the Debian packages bnsim needs (only
# those missing), builds, then runs the main job or the test suite.
#   bash scripts/setup.sh run    # install + build + bnsim run configs/default.yaml
#   bash scripts/setup.sh test   # install + build + the whole test suite (ctest)
#   bash scripts/setup.sh build  # install + build only
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libsystemc-dev libspdlog-dev libcli11-dev catch2 libexpat1-dev
          libyaml-cpp-dev nlohmann-json3-dev)
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

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >&2
cmake --build build -j "$jobs" >&2

export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
case "${1:-run}" in
  run)   build/sim/bnsim run configs/default.yaml ;;
  test)  ctest --test-dir build --output-on-failure -j "$jobs" ;;
  build) ;;
  *) echo "usage: $0 [run|test|build]" >&2; exit 2 ;;
esac
