#!/bin/sh
# A throwaway Slurm on localhost (slurmctld + slurmd, auth/none) that runs the bootstrap ring
# under `srun --mpi=pmi2` and `srun --mpi=pmix`. Exits 77 ("skipped: why") when Slurm is not
# installed; the daemons are stopped by PID whatever happens.
# usage: slurm_local.sh RING_BINARY [NTASKS [PMIX]]   PMIX: y (default) or n when torus was
# built without libpmix, so --mpi=pmix is not run.
ring=$1
ntasks=${2:-4}
with_pmix=${3:-y}
skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*"; status=1; }

[ -x "$ring" ] || { echo "usage: $0 RING_BINARY [NTASKS] (no executable at '$ring')"; exit 2; }
for tool in slurmctld slurmd srun sinfo; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] ||
    skip "slurm is not installed ($tool not found; Debian package slurm-wlm)"
done
PATH=$PATH:/usr/sbin
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is needed to pick free ports"

dir=$(mktemp -d /tmp/torus-slurm.XXXXXX) || exit 2
ctld_pid=; slurmd_pid=; status=0
cleanup() {
  # By PID only: another test may run its own Slurm on this host at the same time.
  for pid in $slurmd_pid $ctld_pid; do kill "$pid" 2>/dev/null; done
  for pid in $slurmd_pid $ctld_pid; do
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "$status" != 0 ] && [ "$status" != 77 ]; then
    for log in "$dir"/slurmctld.log "$dir"/slurmd.log; do
      [ -f "$log" ] && { echo "--- tail of $log"; tail -n 15 "$log"; }
    done
  fi
  rm -rf "$dir"
}
trap 'cleanup' EXIT
trap 'status=130; exit 130' INT TERM

# Two distinct free ports, released just before the daemons bind them.
ports=$(/usr/bin/python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
set -- $ports
ctld_port=$1; slurmd_port=$2
cpus=$(nproc)
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<EOF
ClusterName=torus$$
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ReturnToService=2
NodeName=localhost CPUs=$cpus RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF="$dir/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 &
slurmd_pid=$!

# The node reports idle within a few seconds; give up after 20.
i=0
until [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ]; do
  i=$((i + 1))
  if [ $i -gt 100 ] || ! kill -0 "$ctld_pid" 2>/dev/null || ! kill -0 "$slurmd_pid" 2>/dev/null; then
    cat "$dir/slurmctld.out" "$dir/slurmd.out" 2>/dev/null
    status=1
    echo "FAIL: slurm node did not become idle within 20 s (sinfo: $(sinfo -h 2>&1))"
    exit 1
  fi
  sleep 0.2
done

run() {  # run MPI_PLUGIN: srun the ring and check every rank's line
  plugin=$1
  out=$dir/out.$plugin
  start=$(date +%s)
  timeout 60 srun -n "$ntasks" --overcommit --mpi="$plugin" -t 1 --kill-on-bad-exit=1 \
    "$ring" >"$out" 2>&1
  rc=$?
  echo "srun --mpi=$plugin: exit $rc in $(( $(date +%s) - start )) s"
  if [ $rc -ne 0 ]; then fail "srun -n $ntasks --mpi=$plugin exited $rc"; cat "$out"; return; fi
  r=0
  while [ $r -lt "$ntasks" ]; do
    grep -q "^ring ok: rank $r of $ntasks (local $r of $ntasks) via $plugin\$" "$out" ||
      { fail "--mpi=$plugin: no ok line from rank $r"; cat "$out"; return; }
    r=$((r + 1))
  done
  cat "$out"
}

run pmi2
if [ "$with_pmix" = n ]; then
  echo "pmix: torus was built without libpmix, --mpi=pmix not run"
else
  run pmix
fi
[ $status -eq 0 ] && echo "slurm bootstrap ok"
exit $status
