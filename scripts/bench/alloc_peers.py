#!/usr/bin/python3
"""Random allocation: pbuckets' bracket beside Feldman and Shenfeld's PLD_accounting.

Driven by scripts/bench/alloc_peers.sh (which fetches the peer and sets
PYTHONPATH). This file only imports the peer (PLD_accounting, and
dp_accounting for its PLD queries) and runs the pbuckets binary; no code of
either peer is copied here.

For every case (sigma, t = steps per epoch, k = participations, epochs E,
delta) it prints one JSON line with:
  pb_lo, pb_up      pbuckets' bracket on eps(delta) (max over add and remove)
  pb_cpu            CPU seconds of the pbuckets process that computed the
                    case's (sigma, t, k) group, shared by its E and delta
  up, up_remove, up_add
                    the peer's upper (BoundType.DOMINATES) eps(delta):
                    max over both directions, and each direction
  lo                the peer's lower (BoundType.IS_DOMINATED) eps(delta), when
                    asked (LOWER=1: the geometric route, slow)
  up_cpu, lo_cpu    CPU seconds of the peer's calls (the PLD build and query)
  delta_at_pb_up    the peer's upper delta at eps = pb_up (<= delta when the
                    two agree)
Then a Markdown table of the same.

Environment: PB (the pbuckets binary), DISC (the peer's loss_discretization,
default 1e-3), TAIL (its tail_truncation, default 1e-7), STEP_GRID (its
max_grid_FFT is STEP_GRID * t, default 1e5 * t; the peer's own default 1e6
leaves 1e6/t points a step and is loose at t >= 100), METHOD (FFT or GEOM for the upper bound,
default FFT), LOWER (1: also the peer's lower bound with the GEOM route, the
only one it offers, at LOWER_DISC, default 1e-2: minutes a case), CASES (grid;
lower: sigma x t in {10, 100} x k = 1 and (1, 100, 2), one epoch; quick).
"""

import json
import os
import resource
import subprocess
import sys
import time
import warnings

from PLD_accounting.random_allocation_api import gaussian_allocation_PLD
from PLD_accounting.types import (
    AllocationSchemeConfig,
    BoundType,
    ConvolutionMethod,
    PrivacyParams,
)

PB = os.environ.get("PB", "bin/pbuckets")
DISC = float(os.environ.get("DISC", "1e-3"))
TAIL = float(os.environ.get("TAIL", "1e-7"))
METHOD = ConvolutionMethod[os.environ.get("METHOD", "FFT")]
LOWER = os.environ.get("LOWER", "0") == "1"
LOWER_DISC = float(os.environ.get("LOWER_DISC", "1e-2"))
STEP_GRID = int(float(os.environ.get("STEP_GRID", "1e5")))
CASES = os.environ.get("CASES", "grid")
DELTAS = [1e-5, 1e-6]
EPOCHS = [1] if CASES == "lower" else [1, 10, 50]


def groups():
    """The (sigma, t, k) groups of the grid; each is run for every E and delta."""
    if CASES == "quick":
        return [(1.0, 100, 1)]
    if CASES == "lower":
        return [(s, t, 1) for s in (0.8, 1.0, 2.0) for t in (10, 100)] + [(1.0, 100, 2)]
    g = [(s, t, 1) for s in (0.8, 1.0, 2.0) for t in (10, 100, 1000)]
    g += [(1.0, t, k) for t in (100, 1000) for k in (2, 4)]
    return g


def pbuckets(sigma, t, k):
    """Runs pbuckets for one group; returns {(E, delta): (lo, up)} and CPU seconds."""
    cmd = [PB, "eps", "--kind", "random_allocation", "--sigma", repr(sigma),
           "--steps-per-epoch", str(t), "--participations", str(k),
           "--epochs", ",".join(map(str, EPOCHS)),
           "--delta", ",".join(map(repr, DELTAS)), "--json", "--no-cache"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    res = {}
    for row in json.loads(out):
        res[(int(row["epochs"]), float(row["delta"]))] = (row["eps_lower"], row["eps_upper"])
    return res, cpu


def peer_pld(sigma, t, k, epochs, bound, disc, method):
    """Builds the peer's PLD; returns it and the CPU seconds it took."""
    params = PrivacyParams(sigma=sigma, num_steps=t, num_selected=k, num_epochs=epochs)
    cfg = AllocationSchemeConfig(loss_discretization=disc, tail_truncation=TAIL,
                                 max_grid_FFT=STEP_GRID * t, convolution_method=method)
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pld = gaussian_allocation_PLD(params=params, config=cfg, bound_type=bound)
    return pld, time.process_time() - t0


def where(pb_lo, pb_up, lo, up):
    """Where the peer's bracket [lo, up] (lo may be None: [0, up]) lies against ours:
    "disjoint-below" or "disjoint-above" when a sound bound of one contradicts
    the other's, else "overlap"; "overlap" with the peer's upper above ours is
    written "overlap (up above)"."""
    if up < pb_lo:
        return "disjoint-below"
    if lo is not None and lo > pb_up:
        return "disjoint-above"
    return "overlap (up above)" if up > pb_up else "overlap"


def main():
    rows = []
    for sigma, t, k in groups():
        pb, pb_cpu = pbuckets(sigma, t, k)
        for e in EPOCHS:
            up_pld, up_cpu = peer_pld(sigma, t, k, e, BoundType.DOMINATES, DISC, METHOD)
            lo_pld, lo_cpu = None, None
            if LOWER:
                lo_pld, lo_cpu = peer_pld(sigma, t, k, e, BoundType.IS_DOMINATED,
                                          LOWER_DISC, ConvolutionMethod.GEOM)
            for d in DELTAS:
                pb_lo, pb_up = pb[(e, d)]
                q0 = time.process_time()
                up = float(up_pld.get_epsilon_for_delta(d))
                up_cpu_q = time.process_time() - q0
                row = dict(sigma=sigma, t=t, k=k, epochs=e, delta=d,
                           pb_lo=pb_lo, pb_up=pb_up, pb_cpu=round(pb_cpu, 3),
                           up=up,
                           up_remove=float(up_pld._pmf_remove.get_epsilon_for_delta(d)),
                           up_add=float(up_pld._pmf_add.get_epsilon_for_delta(d)),
                           up_cpu=round(up_cpu + up_cpu_q, 3),
                           delta_at_pb_up=float(up_pld.get_delta_for_epsilon(pb_up)),
                           lo=None, lo_cpu=None, disc=DISC, tail=TAIL, max_grid_fft=STEP_GRID * t,
                           method=METHOD.name)
                if lo_pld is not None:
                    row["lo"] = float(lo_pld.get_epsilon_for_delta(d))
                    row["lo_cpu"] = round(lo_cpu, 3)
                    row["lo_disc"] = LOWER_DISC
                row["where"] = where(pb_lo, pb_up, row["lo"], up)
                row["rel_up"] = (up - pb_up) / pb_up
                print(json.dumps(row), flush=True)
                rows.append(row)
    table(rows)


def table(rows):
    """Prints the Markdown table of the rows."""
    print("\n| sigma | t | k | E | delta | pbuckets [lo, up] | peer lo | peer up (remove, add) "
          "| where | (peer up - pb up)/pb up | pb CPU s | peer CPU s (up; lo) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        lo = "-" if r["lo"] is None else f"{r['lo']:.5f}"
        lcpu = "" if r["lo_cpu"] is None else f"; {r['lo_cpu']:.1f}"
        print(f"| {r['sigma']:g} | {r['t']} | {r['k']} | {r['epochs']} | {r['delta']:g} "
              f"| [{r['pb_lo']:.5f}, {r['pb_up']:.5f}] | {lo} "
              f"| {r['up']:.5f} ({r['up_remove']:.5f}, {r['up_add']:.5f}) | {r['where']} "
              f"| {r['rel_up']:+.2e} | {r['pb_cpu']:.2f} | {r['up_cpu']:.2f}{lcpu} |")


if __name__ == "__main__":
    sys.exit(main())
