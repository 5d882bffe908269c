#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for running a physvec campaign through a real Slurm.
#
#   benchmarks/slurm_local.sh up DIR     install slurm-wlm and munge when absent (apt-get, as root), then start
#                                        munged, slurmctld and slurmd on localhost with every file under DIR;
#                                        prints the line SLURM_CONF=DIR/slurm.conf, which sbatch/squeue need
#   benchmarks/slurm_local.sh down DIR   stop the three daemons started from DIR (DIR itself is left for reading)
#
# Everything lives under DIR (configuration, munge key and socket, state, spool, logs): nothing in /etc is
# touched, so the cluster cannot disturb a Slurm the machine already has.  Ports are chosen free at start.
# The node offers every core and 80 % of the memory; jobs share it core by core (select/cons_tres, CR_Core).
# Exit status: 0 up (or down), 1 a daemon did not start (its log is printed), 2 bad usage.
set -euo pipefail

usage() { echo "usage: $0 up|down DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

install_when_absent() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
        return
    fi
    if [[ $(id -u) -ne 0 ]]; then
        echo "slurm-wlm and munge are not installed, and installing them needs root (apt-get install slurm-wlm munge)" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >"$dir/apt.log" 2>&1 || {
        echo "apt-get install slurm-wlm munge failed: see $dir/apt.log" >&2; exit 1; }
}

write_config() {
    local host cpus memory_mb
    host=$(hostname)
    cpus=$(nproc)
    memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) * 8 / 10 / 1024 ))
    mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
    cat >"$dir/slurm.conf" <<EOF
ClusterName=physvec-local
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/builtin
NodeName=$host CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds, or fail after SECONDS
    local limit=$1; shift
    for _ in $(seq $((limit * 4))); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.25
    done
    return 1
}

up() {
    install_when_absent
    write_config
    [[ -f $dir/munge/munge.key ]] || { dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none;
                                       chmod 400 "$dir/munge/munge.key"; }
    munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
    export SLURM_CONF=$dir/slurm.conf
    slurmctld -f "$SLURM_CONF" || { cat "$dir/log/slurmctld.log" >&2; exit 1; }
    slurmd -f "$SLURM_CONF" || { cat "$dir/log/slurmd.log" >&2; exit 1; }
    if ! wait_for 30 bash -c "sinfo -h -o %T | grep -qx idle"; then
        echo "the node did not become idle within 30 s:" >&2
        sinfo >&2 || true
        tail -20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2
        exit 1
    fi
    echo "SLURM_CONF=$SLURM_CONF"
}

stop_pid_file() {
    local file=$1
    [[ -f $file ]] || return 0
    local pid
    pid=$(cat "$file")
    kill "$pid" 2>/dev/null || true
    wait_for 10 bash -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
    rm -f "$file"
}

down() {
    stop_pid_file "$dir/slurmd.pid"
    stop_pid_file "$dir/slurmctld.pid"
    stop_pid_file "$dir/munge/munged.pid"
}

case $action in
    up) up ;;
    down) down ;;
    *) usage ;;
esac
