#!/bin/bash
# scripts/bench/alloc_peers.sh: random allocation (kind random_allocation),
# pbuckets' bracket on eps(delta) beside Feldman and Shenfeld's
# PLD_accounting (github moshenfeld/PLD_accounting), for the grid of
# docs/allocation-peers.md: sigma in {0.8, 1, 2}, t in {10, 100, 1000},
# epochs in {1, 10, 50}, k = 1 (and k = 2, 4 at sigma 1, t 100 and 1000),
# delta 1e-5 and 1e-6. The driver, alloc_peers.py, only imports the peer
# and runs bin/pbuckets; no peer code is copied into the project.
#
# Fresh machine:
#   1. PLD_accounting's source: a git copy of moshenfeld/PLD_accounting (the
#      `fetch` tool gives one under /work/.mirror/moshenfeld+PLD_accounting/repo;
#      or git clone --bare), then   PLD_GIT=/path/to/that/git/dir alloc_peers.sh
#      which extracts it into $PEERS/pld (git archive). Measured: 952e91a
#      (2026-04-13, version 0.3.0).
#   2. dp_accounting's source (PLD_accounting builds dp_accounting PLDs): a
#      git copy of google/differential-privacy, GDP_GIT as in peers.sh,
#      extracted into $PEERS/gdp. Measured: b5b0286.
#   3. Debian's python3-numpy, -scipy, -absl, -attr, -mpmath, -numba and
#      -typing-extensions are installed with apt-get when /usr/bin/python3
#      cannot import them (root or sudo). PLD_accounting's pyproject also
#      lists random_allocation (not in Debian); the code paths used here do
#      not import it. Debian's numba is 0.56 (pyproject asks >= 0.58): it runs.
# Environment: PEERS (default /tmp/peers), PLD_GIT, GDP_GIT, and the
# driver's: DISC (peer's loss_discretization of the upper bound, default
# 1e-3), TAIL (its tail_truncation, default 1e-7), STEP_GRID (its
# max_grid_FFT is STEP_GRID * t, default 1e5 * t; the peer's own default,
# 1e6 whatever t, is loose at t >= 100),
# METHOD (FFT, default, or GEOM for the upper bound), LOWER=1 (also the
# peer's lower bound, GEOM route, LOWER_DISC default 1e-2: minutes a case),
# CASES (grid; lower: the one-epoch cases with t <= 100, meant with LOWER=1;
# quick).   Full doc table: alloc_peers.sh; CASES=lower LOWER=1 alloc_peers.sh
# Output: JSON lines then a Markdown table on stdout (tee'd to
# $PEERS/alloc-peers-$CASES.log).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export PEERS=${PEERS:-/tmp/peers}
PY=/usr/bin/python3
mkdir -p "$PEERS"

# 1. PLD_accounting's source
if [ ! -f "$PEERS/pld/PLD_accounting/random_allocation_api.py" ]; then
	if [ -z "${PLD_GIT:-}" ]; then
		for g in /work/.mirror/moshenfeld+PLD_accounting/repo; do [ -d "$g" ] && PLD_GIT=$g; done
	fi
	[ -n "${PLD_GIT:-}" ] || { echo "alloc_peers.sh: set PLD_GIT to a git copy of moshenfeld/PLD_accounting (see the header)" >&2; exit 2; }
	mkdir -p "$PEERS/pld"
	git --git-dir="$PLD_GIT" archive HEAD | tar -x -C "$PEERS/pld"
	echo "PLD_accounting: $(git --git-dir="$PLD_GIT" log -1 --format='%h %cs')"
fi

# 2. dp_accounting's source
if [ ! -d "$PEERS/gdp/python/dp_accounting/dp_accounting" ]; then
	if [ -z "${GDP_GIT:-}" ]; then
		for g in /work/.mirror/google+differential-privacy/repo; do [ -d "$g" ] && GDP_GIT=$g; done
	fi
	[ -n "${GDP_GIT:-}" ] || { echo "alloc_peers.sh: set GDP_GIT to a git copy of google/differential-privacy (see peers.sh)" >&2; exit 2; }
	mkdir -p "$PEERS/gdp"
	git --git-dir="$GDP_GIT" archive HEAD python/dp_accounting | tar -x -C "$PEERS/gdp"
	echo "dp_accounting: $(git --git-dir="$GDP_GIT" log -1 --format='%h %cs')"
fi
export PYTHONPATH=$PEERS/pld:$PEERS/gdp/python/dp_accounting${PYTHONPATH:+:$PYTHONPATH}

# 3. Debian's Python packages
PKGS="python3-numpy python3-scipy python3-absl python3-attr python3-mpmath python3-numba python3-typing-extensions"
if ! $PY -c 'import numpy, scipy, absl, attr, mpmath, numba, typing_extensions' 2>/dev/null; then
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	# shellcheck disable=SC2086
	$SUDO apt-get install -y $PKGS >/dev/null ||
		{ $SUDO apt-get update >/dev/null && $SUDO apt-get install -y $PKGS >/dev/null; }
fi

# 4. pbuckets, then the table
(cd "$ROOT" && go build -o bin/pbuckets ./cmd/pbuckets)
export PB=$ROOT/bin/pbuckets TAIL=${TAIL:-1e-7}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores" >&2
nice $PY "$ROOT/scripts/bench/alloc_peers.py" | tee "$PEERS/alloc-peers-${CASES:-grid}.log"
