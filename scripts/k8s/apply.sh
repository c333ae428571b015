#!/usr/bin/env bash
# Applies the sweep or finish Job with the settings of sweep.env (or the
# environment): SHARDS, MANIFEST and IMAGE replace ${SHARDS}, ${MANIFEST}
# and ${IMAGE} in the YAML, so that the number of shards is set once.
#
#   scripts/k8s/apply.sh sweep            kubectl apply -f - of sweep-job.yaml
#   scripts/k8s/apply.sh finish           the same for finish-job.yaml
#   scripts/k8s/apply.sh --print sweep    print the YAML instead
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
print=
if [ "${1:-}" = --print ]; then
	print=1
	shift
fi
case ${1:-} in
sweep | finish) file=$here/${1}-job.yaml ;;
*)
	echo "usage: scripts/k8s/apply.sh [--print] sweep|finish" >&2
	exit 2
	;;
esac
# sweep.env, unless the environment sets a value
while IFS='=' read -r key value; do
	case $key in '' | \#*) continue ;; esac
	[ -n "${!key:-}" ] || printf -v "$key" '%s' "$value"
done <"$here/sweep.env"
case $SHARDS in '' | *[!0-9]* | 0) echo "apply.sh: SHARDS must be a positive integer, got '$SHARDS'" >&2; exit 2 ;; esac
for v in MANIFEST IMAGE; do
	case ${!v} in *'|'* | *'"'* | '') echo "apply.sh: $v must be a non-empty value without | or \", got '${!v}'" >&2; exit 2 ;; esac
done
yaml=$(sed -e "s|\${SHARDS}|$SHARDS|g" -e "s|\${MANIFEST}|$MANIFEST|g" -e "s|\${IMAGE}|$IMAGE|g" "$file")
if [ -n "$print" ]; then
	printf '%s\n' "$yaml"
else
	printf '%s\n' "$yaml" | kubectl apply -f -
fi
