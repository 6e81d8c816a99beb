#!/usr/bin/env bash
# Start a one-node Slurm on this machine, in a container without systemd: localhost is both
# controller and compute node. Writes /etc/slurm/slurm.conf (only if absent or written by
# this script), starts munged, slurmctld and slurmd as daemons (they detach, so the script
# returns), and waits until `sinfo` shows the node idle. Idempotent: a running node is left
# as it is. `single-node.sh stop` stops the daemons it started.
# Needs root and tools/slurm/install.sh. Exit 0 when the node is idle, 1 otherwise (with the
# reason and the daemons' log tails).
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"

state=${SLURM_STATE_DIR:-/var/lib/warpkit-slurm}
conf=/etc/slurm/slurm.conf
marker="# written by warpkit tools/slurm/single-node.sh"
node=$(hostname -s)

stop() {
    for pidfile in "$state/slurmd.pid" "$state/slurmctld.pid" /run/munge/munged.pid; do
        if [ -s "$pidfile" ]; then
            kill "$(cat "$pidfile")" 2>/dev/null || true
        fi
    done
    # The daemons do not always leave their pid files; on a node this script configured
    # (its marker in slurm.conf), the daemons by name are its own.
    if grep -qF "$marker" "$conf" 2>/dev/null; then
        pkill -x slurmd 2>/dev/null || true
        pkill -x slurmctld 2>/dev/null || true
        pkill -x munged 2>/dev/null || true
    fi
}

idle() {
    sinfo -h -N -n "$node" -o '%T' 2>/dev/null | grep -qx 'idle'
}

if [ "${1:-}" = stop ]; then
    stop
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "single-node slurm: needs root (the daemons run as root here)" >&2
    exit 1
fi
for tool in munged slurmctld slurmd sinfo; do
    command -v "$tool" >/dev/null || { echo "single-node slurm: $tool is not installed (tools/slurm/install.sh)" >&2; exit 1; }
done
if idle; then
    echo "single-node slurm: node $node is already idle"
    exit 0
fi

mkdir -p "$state/ctld" "$state/d" /etc/slurm
if [ -e "$conf" ] && ! grep -qF "$marker" "$conf"; then
    echo "single-node slurm: $conf exists and was not written by this script; leaving it (and the cluster) alone" >&2
    exit 1
fi
cat > "$conf" <<CONF
$marker
ClusterName=warpkit
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
# No cgroups in a container: plain process tracking, no task containment.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
MaxArraySize=10001
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

# munged runs as its own user, as Debian's service does.
mkdir -p /run/munge
chown munge:munge /run/munge 2>/dev/null || true
if ! munge -n </dev/null >/dev/null 2>&1; then
    if [ ! -s /etc/munge/munge.key ]; then
        (umask 077; dd if=/dev/urandom of=/etc/munge/munge.key bs=128 count=1 status=none)
        chown munge:munge /etc/munge/munge.key 2>/dev/null || true
    fi
    if id munge >/dev/null 2>&1; then
        runuser -u munge -- munged
    else
        munged --force
    fi
fi

running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
running "$state/slurmctld.pid" || slurmctld
running "$state/slurmd.pid" || slurmd

for _ in $(seq 1 60); do
    if idle; then
        echo "single-node slurm: node $node is idle"
        exit 0
    fi
    # A node that came back from an earlier run may be marked down until resumed.
    scontrol update nodename="$node" state=resume >/dev/null 2>&1 || true
    sleep 0.5
done
echo "single-node slurm: node $node is not idle after 30 s: $(sinfo -h -N -o '%N %T %E' 2>&1)" >&2
for log in "$state/slurmctld.log" "$state/slurmd.log"; do
    echo "--- $log" >&2
    tail -n 20 "$log" >&2 2>/dev/null || true
done
exit 1
