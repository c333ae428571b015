#!/usr/bin/env bash
# make test-slurm: runs a pbuckets sweep on a real one-node Slurm cluster
# and checks what a user relies on. It installs Debian's slurm-wlm and
# munge if missing (apt-get, as root), then under a temporary folder:
#   1. starts munged, slurmctld and slurmd (one node with this machine's
#      CPUs; proctrack/linuxproc, task/none, select/cons_tres, no
#      accounting, no cgroups; free ports, so that it runs beside other
#      clusters);
#   2. builds a static pbuckets (CGO_ENABLED=0) and submits a small sweep
#      with the documented command (scripts/slurm/submit.sh), whose
#      resource check lowers shard.sbatch's CPUs to the node's;
#   3. kills array task 1 with SIGKILL while it runs and cancels task 3
#      while it waits; checks the task states (scontrol, no sacct) and that
#      the finish step reports parts 1 and 3 and prints the rerun command;
#   4. runs that command, checks that the new finish step finds the set
#      complete and lists the figures, and compares the parts with an
#      unsharded run bit for bit (pbuckets show --format csv);
#   5. stops every daemon it started, by pid.
# KEEP=1 keeps the folder (logs, configuration) for inspection.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
log() { echo "test-slurm: $*" >&2; }
fail() {
	log "FAIL: $*"
	exit 1
}

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
	log "installing slurm-wlm and munge (Debian packages)"
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq slurm-wlm munge >/dev/null
fi

tmp=$(mktemp -d /tmp/pbuckets-slurm.XXXXXX)
chmod 700 "$tmp"
pidfiles=()
stop() {
	local status=$?
	# Newest first: slurmd, slurmctld, munged; each by the pid it wrote.
	for ((k = ${#pidfiles[@]} - 1; k >= 0; k--)); do
		local f=${pidfiles[k]}
		[ -s "$f" ] || continue
		local pid
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	done
	if [ "$status" != 0 ] || [ -n "${KEEP:-}" ]; then
		log "logs and configuration kept in $tmp"
		for f in "$tmp"/log/*.log; do
			[ "$status" = 0 ] || { echo "---- $f (last lines)"; tail -n 15 "$f"; } >&2
		done
	else
		rm -rf "$tmp"
	fi
	exit "$status"
}
trap stop EXIT
trap 'exit 130' INT TERM

mkdir -p "$tmp"/{munge,state,spool,log,run,repo/bin}
user=$(id -un)

# munge: its own key, socket and pid file.
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
socket=$tmp/munge/munge.socket
munged --force --key-file="$tmp/munge/munge.key" --socket="$socket" \
	--pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/munge.seed"
pidfiles+=("$tmp/run/munged.pid")

# Two free TCP ports for slurmctld and slurmd.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
	done
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((ctld_port + 1))
node=$(hostname -s)
# The node as slurmd sees it (CPUs, sockets, cores, memory).
nodeconf=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')
cat >"$tmp/slurm.conf" <<CONF
ClusterName=pbuckets-ci
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/slurmd-%n
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$node NodeAddr=127.0.0.1 $nodeconf State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -f "$SLURM_CONF"
pidfiles+=("$tmp/run/slurmctld.pid")
slurmd -f "$SLURM_CONF" -N "$node"
pidfiles+=("$tmp/run/slurmd.pid")
for _ in $(seq 100); do
	[ "$(sinfo -h -N -o '%t' 2>/dev/null)" = idle ] && break
	sleep 0.2
done
[ "$(sinfo -h -N -o '%t')" = idle ] || fail "the node did not become idle: $(sinfo -N 2>&1)"
log "cluster up: $(sinfo -h -N -o '%N %c CPUs %m MB %t') (ports $ctld_port, $slurmd_port)"

# A repository-like folder for the sweep: scripts, a static binary, the
# manifest (a copy, as users submit from their checkout).
cp -r "$repo/scripts" "$tmp/repo/"
(cd "$repo" && CGO_ENABLED=0 go build -o "$tmp/repo/bin/pbuckets" ./cmd/pbuckets)
mkdir -p "$tmp/repo/experiments"
cat >"$tmp/repo/experiments/slurm-ci.toml" <<'TOML'
name = "slurm-ci"
title = "The sweep of make test-slurm"
[engine]
buckets = 50000
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 2.0
[sweep]
"g.sigma" = [2.0, 4.0, 8.0, 16.0]
[query]
compositions = [64, 1024, 16384]
e_eps = [1.5, 2.0]
delta = [1e-5]
methods = ["buckets", "rdp"]
[[figure]]
id = "eeps"
kind = "eeps-r"
delta = 1e-5
TOML
cd "$tmp/repo"
manifest=experiments/slurm-ci.toml
shards=4

# jobstate ID: the JobState of a job or array task (scontrol: no sacct).
jobstate() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }
# wait_state ID STATE...: waits up to 120 s for one of the states.
wait_state() {
	local id=$1 st
	shift
	for _ in $(seq 600); do
		st=$(jobstate "$id")
		for want in "$@"; do [ "$st" = "$want" ] && return 0; done
		sleep 0.2
	done
	fail "job $id is $st, not $*"
}

# 1. The documented submit command.
submitted=$(SHARDS=$shards OUT=results scripts/slurm/submit.sh "$manifest" 2>&1) || fail "submit.sh: $submitted"
echo "$submitted" >&2
grep -q "at most $(nproc) CPUs" <<<"$submitted" || [ "$(nproc)" -ge 4 ] || fail "submit.sh did not lower the CPUs of a task to the node's"
array=$(sed -n 's/^submitted: array job \([0-9]*\) .*/\1/p' <<<"$submitted")
finish=$(sed -n 's/.*finish job \([0-9]*\)$/\1/p' <<<"$submitted")
[ -n "$array" ] && [ -n "$finish" ] || fail "no job ids in: $submitted"

# 2. Task 1 is killed while it runs, task 3 cancelled (still waiting:
# the tasks get all the node's CPUs each, so they run one at a time).
wait_state "${array}_1" RUNNING
# The task's pbuckets (the batch script execs it): SIGKILL, as the kernel's
# OOM killer or a lost node would.
# (Only a process working in this cluster's folder: another test may run.)
pid=
for _ in $(seq 100); do
	for p in $(pgrep -f -- "--shard 1/$shards $manifest" || true); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$tmp/repo" ] && pid=$p
	done
	[ -n "$pid" ] && break
	sleep 0.1
done
[ -n "$pid" ] || fail "task 1 runs no pbuckets: $(scontrol -o show job "${array}_1")"
[ "$(jobstate "${array}_3")" = PENDING ] || log "note: task 3 is $(jobstate "${array}_3"), not PENDING"
kill -KILL $pid
scancel "${array}_3"
wait_state "${array}_1" FAILED CANCELLED
killed=$(jobstate "${array}_1")
wait_state "$finish" COMPLETED FAILED
for i in 2 4; do
	[ "$(jobstate "${array}_$i")" = COMPLETED ] || fail "task $i is $(jobstate "${array}_$i"): $(cat logs/pbuckets-shard-"${array}_$i".out)"
done
log "states without sacct (scontrol): task 1 $killed (SIGKILL), task 3 cancelled, tasks 2 and 4 COMPLETED, finish $(jobstate "$finish")"
[ "$(jobstate "$finish")" = FAILED ] || fail "the finish step passed with parts 1 and 3 lost"
flog=logs/pbuckets-finish-$finish.out
grep -q "NOT COMPLETE" "$flog" && grep -q "parts 1,3 must run again" "$flog" || fail "the finish log does not name parts 1 and 3: $(cat "$flog")"
rerun=$(sed -n 's/^  \(ARRAY=.*submit.sh .*\)$/\1/p' "$flog")
[ -n "$rerun" ] || fail "the finish log prints no rerun command: $(cat "$flog")"
case $rerun in "ARRAY=1,3 SHARDS=4 OUT=results "*) ;; *) fail "rerun command: $rerun" ;; esac
log "the finish step reports parts 1 and 3 and prints: $rerun"

# 3. The rerun the finish log prints repairs the set.
resubmitted=$(eval "$rerun" 2>&1) || fail "rerun: $resubmitted"
finish2=$(sed -n 's/.*finish job \([0-9]*\)$/\1/p' <<<"$resubmitted")
wait_state "$finish2" COMPLETED FAILED
flog=logs/pbuckets-finish-$finish2.out
[ "$(jobstate "$finish2")" = COMPLETED ] || fail "the finish step after the rerun is $(jobstate "$finish2"): $(cat "$flog")"
grep -q "complete: 4 parts" "$flog" || fail "finish log after the rerun: $(cat "$flog")"
grep -q "^wrote results/slurm-ci/eeps.png" "$flog" || fail "the finish log lists no figures: $(cat "$flog")"
log "after the rerun, the finish step finds 4 parts and lists $(grep -c '^wrote' "$flog") files"

# 4. The parts equal an unsharded run, bit for bit (full-precision CSV of
# the bound tables).
bin/pbuckets run --quiet --out whole "$manifest"
for table in delta epsilon; do
	bin/pbuckets show --format csv results/slurm-ci/shards-of-4/$table-part-{1,2,3,4}-of-4.parquet >"$tmp/parts.csv"
	bin/pbuckets show --format csv "whole/slurm-ci/$table.parquet" >"$tmp/whole.csv"
	cmp -s "$tmp/parts.csv" "$tmp/whole.csv" || fail "$table: the parts differ from the unsharded run: $(diff "$tmp/parts.csv" "$tmp/whole.csv" | head)"
	[ "$(wc -l <"$tmp/whole.csv")" -gt 1 ] || fail "$table: no rows"
done
log "ok: the 4 parts equal the unsharded run ($(($(wc -l <"$tmp/whole.csv") - 1)) epsilon rows)"
