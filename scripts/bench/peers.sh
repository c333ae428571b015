#!/bin/bash
# scripts/bench/peers.sh (make bench-peers): issue 24's in-process table,
# pbuckets' engine at fixed bucket counts (engine.Compose + the row's
# queries, a Go benchmark: engine/bench_peers_test.go) and the accuracy
# target's refinement as the one-liners run it (pipeline/methods'
# BenchmarkAccuracyTarget: bench_accuracy_test.go) beside dp_accounting's PLD (inproc.py of
# ../shared/peers: the accounting call only, after the imports), CPU
# seconds, medians of REPS interleaved repetitions (pb, dp, pb, dp, ...).
#
# Fresh machine:
#   1. dp_accounting's source, never copied into the project: a git copy of
#      google/differential-privacy (the `fetch` tool gives one under
#      /work/.mirror/google+differential-privacy/repo; or git clone --bare),
#      then   GDP_GIT=/path/to/that/git/dir make bench-peers
#      which extracts python/dp_accounting into $PEERS/gdp (git archive), as
#      ../shared/peers/README.md does. Measured: differential-privacy b5b0286.
#   2. Debian's python3-numpy, -scipy, -absl, -attr, -mpmath are installed
#      with apt-get when /usr/bin/python3 cannot import them (root or sudo).
#   3. the driver scripts: PEERS_DRIVERS (default ../shared/peers beside the
#      checkout's parent, i.e. /work/shared/peers).
# Environment: REPS (default 5), PEERS (default /tmp/peers), GDP_GIT, MATCHED
# (1: the targets at dp_accounting's errors, below).
# Output: one JSON line per run in $PEERS/bench-peers.log, then the table
# of medians (CPU seconds and the values of one run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export PEERS=${PEERS:-/tmp/peers}
DRV=${PEERS_DRIVERS:-$ROOT/../shared/peers}
[ -f "$DRV/inproc.py" ] || DRV=/work/shared/peers
[ -f "$DRV/inproc.py" ] || { echo "peers.sh: no inproc.py (set PEERS_DRIVERS to the shared/peers folder)" >&2; exit 2; }
REPS=${REPS:-5}
PY=/usr/bin/python3
mkdir -p "$PEERS"

# 1. dp_accounting's source
if [ ! -d "$PEERS/gdp/python/dp_accounting/dp_accounting" ]; then
	if [ -z "${GDP_GIT:-}" ]; then
		for g in /work/.mirror/google+differential-privacy/repo; do [ -d "$g" ] && GDP_GIT=$g; done
	fi
	[ -n "${GDP_GIT:-}" ] || { echo "peers.sh: set GDP_GIT to a git copy of google/differential-privacy (see the header)" >&2; exit 2; }
	mkdir -p "$PEERS/gdp"
	git --git-dir="$GDP_GIT" archive HEAD python/dp_accounting | tar -x -C "$PEERS/gdp"
	echo "dp_accounting: $(git --git-dir="$GDP_GIT" log -1 --format='%h %cs')"
fi
export PYTHONPATH=$PEERS/gdp/python/dp_accounting${PYTHONPATH:+:$PYTHONPATH}

# 2. Debian's Python packages
if ! $PY -c 'import numpy, scipy, absl, attr, mpmath' 2>/dev/null; then
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get install -y python3-numpy python3-scipy python3-absl python3-attr python3-mpmath >/dev/null ||
		{ $SUDO apt-get update >/dev/null && $SUDO apt-get install -y python3-numpy python3-scipy python3-absl python3-attr python3-mpmath >/dev/null; }
fi

# 3. pbuckets: the binary and the benchmark binaries
(cd "$ROOT" && go build -o bin/pbuckets ./cmd/pbuckets && go test -c -o "$PEERS/engine.test" ./engine &&
	go test -c -o "$PEERS/methods.test" ./pipeline/methods)

# 4. the cases: ROW BUCKETS (pbuckets) and inproc.py's arguments. BUCKETS:
# the chain at the paper's 100,000 buckets, then the one-liners' default
# (an accuracy target: BenchmarkAccuracyTarget) at 1e-4 and at 1e-5 (the
# table shows dp_accounting's errors at its intervals 1e-4 and 1e-5).
PB=(
	"sgd1 100000,t1e-4,t1e-5"
	"sgd4 100000,t1e-4,t1e-5"
	"sgd1k 100000,t1e-4,t1e-5"
	"gauss512 100000,t1e-4,t1e-5"
)
# MATCHED=1: the accuracy targets are dp_accounting's own errors at its
# intervals 1e-4 and 1e-5 on each row (issue 24's "matched accuracy": its
# relative error against pbuckets' brackets at 2^21 points, for eps, and at
# the worse of the two deltas for Gauss; measured with differential-privacy
# b5b0286), so that each pair of runs answers to the same accuracy.
if [ "${MATCHED:-}" = 1 ]; then
	PB=(
		"sgd1 t1.0e-5,t3.2e-6"
		"sgd4 t1.45e-4,t3.4e-6"
		"sgd1k t5.3e-4,t9.6e-6"
		"gauss512 t1.9e-3,t1.9e-5"
	)
fi
DP=(
	"gdp-sgd aor 1.1 0.01 10000 1e-4 1e-5|gdp-sgd aor 1.1 0.01 10000 1e-5 1e-5"
	"gdp-sgd aor 4 0.01 65536 1e-4 1e-5|gdp-sgd aor 4 0.01 65536 1e-5 1e-5"
	"gdp-sgd aor 1 0.001 250000 1e-4 1e-6|gdp-sgd aor 1 0.001 250000 1e-5 1e-6"
	"gdp-gauss 282.842712474619 512 1e-4 1.01 1.5|gdp-gauss 282.842712474619 512 1e-5 1.01 1.5"
)
LOG=$PEERS/bench-peers.log
: >"$LOG"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, REPS=$REPS" | tee -a "$LOG.load"
for rep in $(seq "$REPS"); do
	for i in "${!PB[@]}"; do
		read -r row counts <<<"${PB[$i]}"
		IFS='|' read -ra dps <<<"${DP[$i]}"
		j=0
		for n in ${counts//,/ }; do
			case $n in
			t*) # the accuracy target ${n#t}: the line's cmd names it
				(cd "$ROOT/pipeline/methods" && PB_JSON=1 PB_TARGET=${n#t} "$PEERS/methods.test" -test.run '^$' \
					-test.bench "^BenchmarkAccuracyTarget/$row\$" -test.benchtime 1x | grep '^{' |
					sed "s|BenchmarkAccuracyTarget/$row|BenchmarkAccuracyTarget/$row/${n#t}|" >>"$LOG") ;;
			*)
				(cd "$ROOT/engine" && PB_JSON=1 PB_BUCKETS=$n "$PEERS/engine.test" -test.run '^$' \
					-test.bench "^BenchmarkPeers/$row\$" -test.benchtime 1x | grep '^{' >>"$LOG") ;;
			esac
			if [ $j -lt ${#dps[@]} ]; then
				# shellcheck disable=SC2086
				$PY "$DRV/inproc.py" --reps 1 ${dps[$j]} >>"$LOG"
			fi
			j=$((j + 1))
		done
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$LOG.load"
$PY "$ROOT/scripts/bench/medians.py" "$LOG"
