#!/usr/bin/env bash
# The two steps of a sharded sweep on a cluster; the Slurm job scripts
# (scripts/slurm/) and the Kubernetes Jobs (scripts/k8s/) call it, and
# cmd/pbuckets/sweep_test.go runs it with the index variables a scheduler
# would set. See experiments/README.md, "Sweeps on Slurm and Kubernetes".
#
#   sweep.sh shard  MANIFEST...  runs this task's shard I of N of the manifests
#   sweep.sh finish MANIFEST...  checks that every dataset is complete (all N
#                                parts, one manifest version, no interrupted
#                                part, no failed task), then draws the figures
#                                and lists them; when not complete, prints
#                                the parts to run again and the command
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
	status=0
	"$pbuckets" parts --out "$out" --shards "$shards" "$@" || status=$?
	if [ "$status" != 0 ]; then
		[ "$status" = 1 ] || exit "$status" # invalid input: nothing to rerun
		rerun=$("$pbuckets" parts --rerun-list --out "$out" --shards "$shards" "$@" || true)
		if [ -n "$rerun" ]; then
			echo "sweep.sh: parts $rerun must run again (they reuse the cached states), then this step:" >&2
			if [ -n "${SLURM_JOB_ID:-}" ]; then
				# The exact command, with the settings of this sweep.
				cmd="ARRAY=$rerun SHARDS=$shards OUT=$(printf %q "$out")"
				[ -z "${SBATCH_OPTIONS:-}" ] || cmd+=" SBATCH_OPTIONS=$(printf %q "$SBATCH_OPTIONS")"
				[ -z "${PBUCKETS:-}" ] || cmd+=" PBUCKETS=$(printf %q "$PBUCKETS")"
				[ -z "${CPUS:-}" ] || cmd+=" CPUS=$(printf %q "$CPUS")"
				args=$(printf ' %q' "$@")
				echo "  $cmd scripts/slurm/submit.sh${args}" >&2
			elif [ -n "${KUBERNETES_SERVICE_HOST:-}" ]; then
				# An Indexed Job reruns as a whole; finished tasks come
				# from the cache.
				echo "  kubectl delete job pbuckets-sweep pbuckets-finish && SHARDS=$shards scripts/k8s/apply.sh sweep" >&2
				echo "  (then, once it completes: SHARDS=$shards scripts/k8s/apply.sh finish)" >&2
			else
				args=$(printf ' %q' "$@")
				for i in ${rerun//,/ }; do
					echo "  $pbuckets run --out $(printf %q "$out") --shard $i/$shards${args}" >&2
				done
			fi
		fi
		exit 1
	fi
	echo "+ $pbuckets plot --out $out $*" >&2
	# plot lists the figures it writes
	exec "$pbuckets" plot --out "$out" "$@"
	;;
*)
	die "unknown step '$step': want shard or finish"
	;;
esac
