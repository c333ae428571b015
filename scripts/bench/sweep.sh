#!/bin/bash
# scripts/bench/sweep.sh (make bench-sweep): issue 24's 30-query DP-SGD sweep
# (sigma {0.6,0.8,1.0,1.2,1.5} x q {0.001,0.004,0.016} x r {1e4,1e5}, eps at
# delta 1e-5; scripts/bench/sweep30.toml) as one `pbuckets run` process
# (fresh --out, no cache) beside dp_accounting's one-process loop over the
# same 30 cases (inproc.py gdp-sweep of ../shared/peers: the accounting calls
# only, after the imports), interleaved, REPS times. Prints the median CPU
# seconds of each, and pbuckets' largest relative bracket width
# (eps_upper - eps_lower)/eps_upper. Setup of dp_accounting and the Python
# packages: scripts/bench/peers.sh's header (it is reused here).
# Environment: REPS (default 3), PEERS (default /tmp/peers), IV (dp_accounting's
# value_discretization_interval, default 1e-4), DIRS (default "aor remove").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export PEERS=${PEERS:-/tmp/peers}
DRV=${PEERS_DRIVERS:-$ROOT/../shared/peers}
[ -f "$DRV/inproc.py" ] || DRV=/work/shared/peers
[ -f "$DRV/inproc.py" ] || { echo "sweep.sh: no inproc.py (set PEERS_DRIVERS to the shared/peers folder)" >&2; exit 2; }
[ -d "$PEERS/gdp/python/dp_accounting/dp_accounting" ] || { echo "sweep.sh: run scripts/bench/peers.sh once first (it extracts dp_accounting into \$PEERS/gdp)" >&2; exit 2; }
export PYTHONPATH=$PEERS/gdp/python/dp_accounting${PYTHONPATH:+:$PYTHONPATH}
REPS=${REPS:-3}
IV=${IV:-1e-4}
DIRS=${DIRS:-aor remove}
PY=/usr/bin/python3
(cd "$ROOT" && go build -o bin/pbuckets ./cmd/pbuckets)
LOG=$PEERS/bench-sweep.log
: >"$LOG"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, REPS=$REPS"
for rep in $(seq "$REPS"); do
	out=$(mktemp -d)
	/usr/bin/time -f '{"cmd": "pbuckets run sweep30", "cpu": %U, "sys": %S, "wall": %e, "maxrss_kb": %M}' \
		-o "$out/time.json" "$ROOT/bin/pbuckets" run --quiet --no-cache --out "$out" "$ROOT/scripts/bench/sweep30.toml"
	"$ROOT/bin/pbuckets" show --format csv "$out/sweep30/epsilon.parquet" >"$out/eps.csv"
	$PY - "$out/time.json" "$out/eps.csv" >>"$LOG" <<'PYEOF'
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
w = [(float(r["eps_upper"]) - float(r["eps_lower"])) / float(r["eps_upper"]) for r in rows]
d["cpu"] += d.pop("sys")
d["values"] = [f"{len(w)} brackets, max relative width {max(w):.3g}, {sum(x > 1e-4 for x in w)} above 1e-4"]
print(json.dumps(d))
PYEOF
	rm -rf "$out"
	for dir in $DIRS; do
		$PY "$DRV/inproc.py" --reps 1 gdp-sweep "$dir" "$IV" | $PY -c 'import json,sys
for l in sys.stdin:
    d = json.loads(l); d["values"] = [str(len(d["values"])) + " values"]; print(json.dumps(d))' >>"$LOG"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
$PY "$ROOT/scripts/bench/medians.py" "$LOG" 2
