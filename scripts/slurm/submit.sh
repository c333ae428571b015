#!/usr/bin/env bash
# Submits a pbuckets sweep to Slurm from the repository root: an array of
# SHARDS tasks (scripts/slurm/shard.sbatch, one shard each) and a finish
# step that runs when they have all ended (scripts/slurm/finish.sbatch).
#
#   SHARDS=16 OUT=results scripts/slurm/submit.sh experiments/fig-13.toml
#
# Settings (environment; see experiments/README.md, "Slurm"):
#   SHARDS          the number of shards N (default 16)
#   OUT             the results folder every task shares (default results)
#   ARRAY           the array tasks to submit (default 1-SHARDS): the finish
#                   step's log prints ARRAY=... with the parts to run again
#   CPUS            CPUs per task (default: shard.sbatch's, lowered to what
#                   the partition's nodes have, with a note)
#   SBATCH_OPTIONS  more sbatch options, e.g. "--partition=long --account=dp"
#   PBUCKETS        the pbuckets binary the tasks run (default bin/pbuckets:
#                   make build, or a static build for the cluster)
set -euo pipefail
die() {
	echo "submit.sh: $*" >&2
	exit 2
}
[ $# -ge 1 ] || die "usage: [SHARDS=N] [OUT=DIR] [ARRAY=LIST] [CPUS=N] [SBATCH_OPTIONS=...] [PBUCKETS=BINARY] scripts/slurm/submit.sh MANIFEST..."
export SHARDS=${SHARDS:-16} OUT=${OUT:-results}
case $SHARDS in '' | *[!0-9]* | 0) die "SHARDS must be a positive integer, got '$SHARDS'" ;; esac
array=${ARRAY:-1-$SHARDS}
[[ $array =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] || die "ARRAY must be a list of array indices like 1-16 or 3,7, got '$array'"
for item in ${array//,/ }; do
	for i in ${item%-*} ${item#*-}; do
		[ "$i" -ge 1 ] && [ "$i" -le "$SHARDS" ] || die "ARRAY index $i is not a shard in 1..$SHARDS"
	done
done
if [ -n "${PBUCKETS:-}" ]; then
	command -v "$PBUCKETS" >/dev/null || die "PBUCKETS=$PBUCKETS is not an executable"
	export PBUCKETS
else
	[ -x bin/pbuckets ] || die "bin/pbuckets is missing: run make build first, or set PBUCKETS to a pbuckets binary"
fi
[ -z "${CPUS:-}" ] || [[ $CPUS =~ ^[1-9][0-9]*$ ]] || die "CPUS must be a positive integer, got '$CPUS'"
# shellcheck disable=SC2206 # SBATCH_OPTIONS holds several options
opts=(${SBATCH_OPTIONS:-})

# The resources of a task: shard.sbatch's, unless CPUS or SBATCH_OPTIONS
# say otherwise, checked against the partition (a request larger than every
# node pends forever with Reason=PartitionConfig).
script_value() { sed -n "s/^#SBATCH --$1=//p" scripts/slurm/shard.sbatch; }
cpus=${CPUS:-$(script_value cpus-per-task)}
mem=$(script_value mem-per-cpu)
case $mem in *[0-9]G) mem_mb=$((${mem%G} * 1024)) ;; *[0-9]M) mem_mb=${mem%M} ;; *) mem_mb=0 ;; esac
resources=("--cpus-per-task=$cpus")
partition=
for ((k = 0; k < ${#opts[@]}; k++)); do
	case ${opts[k]} in
	--partition=*) partition=${opts[k]#--partition=} ;;
	--partition | -p) partition=${opts[k + 1]:-} ;;
	-p?*) partition=${opts[k]#-p} ;;
	--cpus-per-task* | -c*) resources=() ;; # the user's choice
	esac
done
if command -v sinfo >/dev/null && [ ${#resources[@]} -gt 0 ]; then
	[ -n "$partition" ] || partition=$(sinfo -h -o '%P' 2>/dev/null | sed -n 's/\*$//p' | head -n 1) || true
	if nodes=$(sinfo -h -N ${partition:+-p "$partition"} -o '%c %m' 2>&1); then
		max_cpus=$(awk '{print $1}' <<<"$nodes" | sort -n | tail -n 1)
		max_mb=$(awk '{print $2}' <<<"$nodes" | sort -n | tail -n 1)
		[ -n "$max_cpus" ] || die "partition '${partition:-default}' has no nodes (sinfo -N${partition:+ -p $partition})"
		if [ "$cpus" -gt "$max_cpus" ]; then
			echo "submit.sh: note: the nodes of partition $partition have at most $max_cpus CPUs and a task asks for $cpus (shard.sbatch, or CPUS); asking for $max_cpus instead (set CPUS=N, or edit shard.sbatch)" >&2
			cpus=$max_cpus
			resources=("--cpus-per-task=$cpus")
		fi
		if [ "$mem_mb" -gt 0 ] && [ -n "$max_mb" ] && [ "$max_mb" -gt 1 ] && [ $((cpus * mem_mb)) -gt "$max_mb" ]; then
			per=$((max_mb / cpus))
			echo "submit.sh: note: the nodes of partition $partition have at most $max_mb MB and a task asks for $cpus x $mem; asking for ${per}M per CPU instead (edit shard.sbatch's --mem-per-cpu)" >&2
			resources+=("--mem-per-cpu=${per}M")
		fi
	else
		echo "submit.sh: note: could not check the partition with sinfo: ${nodes%%$'\n'*}" >&2
	fi
fi
export SBATCH_OPTIONS=${SBATCH_OPTIONS:-} CPUS=${CPUS:-}
mkdir -p logs
job=$(sbatch --parsable "${opts[@]}" "${resources[@]}" --array="$array" --export=ALL scripts/slurm/shard.sbatch "$@")
job=${job%%;*}
finish=$(sbatch --parsable "${opts[@]}" --dependency="afterany:$job" --export=ALL scripts/slurm/finish.sbatch "$@")
finish=${finish%%;*}
echo "submitted: array job $job (tasks $array of $SHARDS shards, $cpus CPUs each), finish job $finish"
echo "watch:     squeue -j $job,$finish"
echo "states:    scontrol show job $job | grep -E 'JobId=|JobState=' (each task's JobState and ExitCode, for MinJobAge, 300 s by default, after it ends; sacct -j $job where accounting is on)"
echo "result:    cat logs/pbuckets-finish-$finish.out (the parts check, then the figures written, or the command that reruns what is missing); figures in $OUT/<name>/"
