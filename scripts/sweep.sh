#!/usr/bin/env bash
# The two steps of a sharded sweep on a cluster; the Slurm job scripts
# (scripts/slurm/) and the Kubernetes Jobs (scripts/k8s/) call it, and
# cmd/pbuckets/sweep_test.go runs it with the index variables a scheduler
# would set. See experiments/README.md, "Sweeps on Slurm and Kubernetes".
#
#   sweep.sh shard  MANIFEST...  runs this task's shard I of N of the manifests
#   sweep.sh finish MANIFEST...  checks that every dataset is complete (all N
#                                parts, one manifest version, no interrupted
#                                part), then draws the figures
#
# The shard I (1-based) comes from the scheduler:
#   Slurm array      SLURM_ARRAY_TASK_ID (array indices are the shards:
#                    --array=1-N, or a list such as --array=3,7 to rerun some)
#   Kubernetes       JOB_COMPLETION_INDEX + 1 (an Indexed Job counts from 0)
# Settings (environment):
#   SHARDS    the number of shards N (required: a rerun of some tasks is an
#             array of another size)
#   OUT       the results folder, shared by every task (default: results);
#             the state cache is OUT/.cache
#   JOBS      jobs per task (default: SLURM_CPUS_PER_TASK, else the CPUs)
#   PBUCKETS  the pbuckets command (default: bin/pbuckets if present, else
#             pbuckets on the PATH)
# Exit status: that of pbuckets (0 done, 1 a task failed or the dataset is
# not complete, 2 invalid input).
set -euo pipefail

die() {
	echo "sweep.sh: $*" >&2
	exit 2
}

# number NAME VALUE: VALUE must be a non-negative integer.
number() {
	case $2 in
	'' | *[!0-9]*) die "$1 must be a non-negative integer, got '$2'" ;;
	esac
}

step=${1:-}
[ $# -ge 2 ] || die "usage: sweep.sh shard|finish MANIFEST..."
shift

pbuckets=${PBUCKETS:-}
if [ -z "$pbuckets" ]; then
	if [ -x bin/pbuckets ]; then pbuckets=bin/pbuckets; else pbuckets=pbuckets; fi
fi
out=${OUT:-results}
shards=${SHARDS:-}
[ -n "$shards" ] || die "set SHARDS to the number of shards N"
number SHARDS "$shards"
[ "$shards" -ge 1 ] || die "SHARDS must be at least 1, got $shards"

# run prints a command on stderr, then replaces the shell with it.
run() {
	echo "+ $*" >&2
	exec "$@"
}

case $step in
shard)
	if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
		number SLURM_ARRAY_TASK_ID "$SLURM_ARRAY_TASK_ID"
		index=$SLURM_ARRAY_TASK_ID
	elif [ -n "${JOB_COMPLETION_INDEX:-}" ]; then
		number JOB_COMPLETION_INDEX "$JOB_COMPLETION_INDEX"
		index=$((JOB_COMPLETION_INDEX + 1))
	else
		die "no task index: run me as a Slurm array task (SLURM_ARRAY_TASK_ID) or in a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)"
	fi
	[ "$index" -ge 1 ] && [ "$index" -le "$shards" ] ||
		die "shard $index is not in 1..$shards: array indices are the shards, 1 to SHARDS (e.g. --array=1-$shards)"
	jobs=${JOBS:-${SLURM_CPUS_PER_TASK:-$(nproc)}}
	number JOBS "$jobs"
	[ "$jobs" -ge 1 ] || jobs=1
	run "$pbuckets" run --quiet --out "$out" --jobs "$jobs" --shard "$index/$shards" "$@"
	;;
finish)
	echo "+ $pbuckets parts --out $out --shards $shards $*" >&2
	"$pbuckets" parts --out "$out" --shards "$shards" "$@"
	run "$pbuckets" plot --quiet --out "$out" "$@"
	;;
*)
	die "unknown step '$step': want shard or finish"
	;;
esac
