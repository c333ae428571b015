#!/usr/bin/env bash
# Submits a pbuckets sweep to Slurm from the repository root: an array of
# SHARDS tasks (scripts/slurm/shard.sbatch, one shard each) and a finish
# step that runs when they have all ended (scripts/slurm/finish.sbatch).
#
#   SHARDS=16 OUT=results scripts/slurm/submit.sh experiments/fig-13.toml
#
# Extra sbatch options (partition, account, ...) go in SBATCH_OPTIONS, e.g.
# SBATCH_OPTIONS="--partition=long --account=dp". Build the binary first
# (make build): every task runs bin/pbuckets.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: [SHARDS=N] [OUT=DIR] scripts/slurm/submit.sh MANIFEST..." >&2; exit 2; }
export SHARDS=${SHARDS:-16} OUT=${OUT:-results}
case $SHARDS in '' | *[!0-9]* | 0) echo "submit.sh: SHARDS must be a positive integer, got '$SHARDS'" >&2; exit 2 ;; esac
[ -x bin/pbuckets ] || { echo "submit.sh: bin/pbuckets is missing: run make build first" >&2; exit 2; }
mkdir -p logs
# shellcheck disable=SC2086 # SBATCH_OPTIONS holds several options
array=$(sbatch --parsable ${SBATCH_OPTIONS:-} --array="1-$SHARDS" --export=ALL scripts/slurm/shard.sbatch "$@")
array=${array%%;*}
# shellcheck disable=SC2086
finish=$(sbatch --parsable ${SBATCH_OPTIONS:-} --dependency="afterany:$array" --export=ALL scripts/slurm/finish.sbatch "$@")
finish=${finish%%;*}
echo "submitted: array job $array ($SHARDS shards), finish job $finish"
echo "watch:     squeue -j $array,$finish    (sacct -j $array for the tasks' exit codes)"
echo "result:    cat logs/pbuckets-finish-$finish.out; figures in $OUT/<name>/"
