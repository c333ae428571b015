"""medians.py LOG [DIGITS]: the table of scripts/bench/peers.sh and sweep.sh.

LOG holds one JSON line per timed run ("cmd", "cpu", "wall", "values", and
optionally "relw"); prints one Markdown row per cmd with the median CPU and
wall seconds (DIGITS decimals, default 3), the number of runs and the values
of the last run."""
import json
import statistics
import sys

runs = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    runs.setdefault(d["cmd"], []).append(d)
digits = int(sys.argv[2]) if len(sys.argv) > 2 else 3
print("| run | CPU s (median) | wall s (median) | n | values (last run) |")
print("| --- | --- | --- | --- | --- |")
for cmd, ds in runs.items():
    cpu = statistics.median(d["cpu"] for d in ds)
    wall = statistics.median(d["wall"] for d in ds)
    vals = "; ".join(ds[-1]["values"])
    if "relw" in ds[-1]:
        vals += f"; relw {ds[-1]['relw']:.2g}"
    print(f"| {cmd} | {cpu:.{digits}f} | {wall:.{digits}f} | {len(ds)} | {vals} |")
