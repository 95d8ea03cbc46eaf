#!/usr/bin/env bash
# A Slurm cluster of one machine, for testing `grade --slurm` (as root, with Debian's slurm-wlm and
# munge installed): a controller and one node on this machine, whose CPUs it has, with two stand-in
# GPUs (/dev/null and /dev/zero: a job that asks for --gres=gpu:1 is placed as on a GPU node, and its
# CUDA_VISIBLE_DEVICES is set; no GPU exists unless the machine has one).
#
#   local_cluster.sh start DIR   configuration, state and logs in DIR; prints the SLURM_CONF to export
#   local_cluster.sh stop DIR    ends the daemons started with DIR
set -euo pipefail
action=${1:?usage: local_cluster.sh start|stop DIR}
dir=$(realpath -m "${2:?usage: local_cluster.sh start|stop DIR}")
conf=$dir/slurm.conf

stop() {
  for daemon in slurmd slurmctld; do
    [[ -f $dir/$daemon.pid ]] && kill "$(cat "$dir/$daemon.pid")" 2> /dev/null || true
  done
}

if [[ $action == stop ]]; then
  stop
  exit 0
fi
[[ $action == start ]] || { echo "local_cluster.sh: unknown action $action" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "local_cluster.sh: run as root (it starts munged and the Slurm daemons)" >&2; exit 2; }
for program in munged slurmctld slurmd; do
  command -v "$program" > /dev/null || [[ -x /usr/sbin/$program ]] ||
    { echo "local_cluster.sh: $program not found: apt-get install slurm-wlm munge" >&2; exit 2; }
done

mkdir -p "$dir/state" "$dir/spool"
node=$(hostname -s)
cpus=$(nproc)
memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2))
cat > "$conf" << CONF
ClusterName=local
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
GresTypes=gpu
NodeName=$node CPUs=$cpus RealMemory=$memory Gres=gpu:2 State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
printf 'NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n' "$node" "$node" > "$dir/gres.conf"

# munge: the key the package made, the daemon as its own user (it refuses to run as root).
if ! munge -n > /dev/null 2>&1; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged
fi
stop
export SLURM_CONF=$conf
/usr/sbin/slurmctld -f "$conf"
/usr/sbin/slurmd -f "$conf"
for _ in $(seq 60); do
  if sinfo --noheader --format=%t 2> /dev/null | grep -qx idle; then
    echo "export SLURM_CONF=$conf"
    exit 0
  fi
  sleep 1
done
echo "local_cluster.sh: the node did not come up: see $dir/slurmctld.log and $dir/slurmd.log" >&2
exit 1
