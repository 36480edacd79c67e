#!/bin/bash
# Runs a bnsim sweep on a real (single-node) Slurm cluster and checks it against a local run:
# brings up munge, slurmctld and slurmd from Debian's packages (slurm-wlm, munge) with a
# throw-away config, submits scripts/sweep_array.sbatch as an array of N shards plus a merge
# job that depends on it, waits, and compares the merged results with `bnsim sweep` run
# locally. Stops the daemons it started. Needs root (it installs packages and starts daemons).
#   bash scripts/slurm_sweep_check.sh [SWEEP.yaml] [N]      (default: configs/sweeps/seed_grid.yaml, 4)
# Exit 0: equal; 1: the merged results differ from the local run; 2: usage or set-up failure.
set -euo pipefail
cd "$(dirname "$0")/.."
sweep=${1:-configs/sweeps/seed_grid.yaml}
n=${2:-4}
bnsim=$PWD/build/sim/bnsim
[ -x "$bnsim" ] || { echo "slurm_sweep_check: $bnsim not built (bash scripts/setup.sh build)" >&2; exit 2; }
[ -f "$sweep" ] || { echo "slurm_sweep_check: $sweep: no such sweep file" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "slurm_sweep_check: needs root (installs slurm-wlm and munge, starts their daemons)" >&2; exit 2; }

for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null; break; }
done

work=$(mktemp -d /tmp/bnsim-slurm.XXXXXX)
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# munge: a fresh key, the daemon as the munge user.
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 400 /etc/munge/munge.key
if ! pgrep -u munge -x munged >/dev/null; then
  runuser -u munge -- /usr/sbin/munged --foreground >"$work/munged.log" 2>&1 & pids+=($!)
  sleep 1
fi
munge -n | unmunge >/dev/null || { echo "slurm_sweep_check: munge does not work" >&2; exit 2; }

# Slurm: everything under $work, found through SLURM_CONF.
mkdir -p "$work/state" "$work/spool" "$work/log"
cat > "$work/slurm.conf" <<CONF
ClusterName=bnsim
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 & pids+=($!)
sleep 2
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 & pids+=($!)
for i in $(seq 60); do
  state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || { echo "slurm_sweep_check: node not idle ($state); logs in $work/log" >&2; exit 2; }
echo "slurm up: node $host ($cpus CPUs), config $SLURM_CONF"

# The array of shards and the merge, as docs/commands.md shows.
out=$work/out
mkdir -p "$out"
jid=$(BNSIM=$bnsim sbatch --parsable --chdir="$PWD" --output="$work/log/shard-%a.log" \
        --array=0-$((n - 1)) scripts/sweep_array.sbatch "$sweep" "$out" "$n")
mid=$(sbatch --parsable --chdir="$PWD" --output="$work/log/merge.log" --dependency=afterok:"$jid" --kill-on-invalid-dep=yes \
        --wrap "$bnsim merge $out/shard-* --out $out/merged")
echo "submitted array job $jid ($n shards) and merge job $mid"
start=$(date +%s)
while [ -n "$(squeue -h -j "$jid,$mid" 2>/dev/null)" ]; do sleep 1; done
echo "slurm jobs finished in $(( $(date +%s) - start )) s"
[ -f "$out/merged/results.jsonl" ] || { echo "slurm_sweep_check: no merged results (a shard failed?); logs in $work/log" >&2; tail -3 "$work"/log/*.log >&2; exit 1; }

"$bnsim" sweep "$sweep" -j "$cpus" --out "$out/local" >/dev/null
status=0
for f in results.csv results.jsonl summary.json; do
  if cmp -s "$out/merged/$f" "$out/local/$f"; then
    echo "equal:   $f ($(wc -l <"$out/local/$f") lines)"
  else
    echo "DIFFERS: $f"; status=1
  fi
done
[ $status = 0 ] && echo "PASS: $n Slurm shards merged equal the local run" || echo "FAIL (outputs kept in $out)"
[ $status = 0 ] && rm -rf "$work"
exit $status
