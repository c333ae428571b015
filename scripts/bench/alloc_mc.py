#!/usr/bin/python3
"""Monte Carlo of delta(eps) for E epochs of Gaussian random allocation.

A check of composed brackets independent of both accountants (pbuckets and
PLD_accounting): plain sampling from each direction's first distribution,
with a normal 99.9% confidence interval. Only numpy.

One epoch of t steps, noise N(0, sigma^2) per step, sensitivity 1:
  Q: y_i ~ N(0, sigma^2) for all i (the record absent);
  P: k distinct steps, uniform among the C(t, k) sets, get the record,
     y_j ~ N(1, sigma^2) there.
  With a_i = (2 y_i - 1) / (2 sigma^2), L(y) = log(P/Q)(y) is
  log((1/t) sum_i exp(a_i)) for k = 1 and
  log(((sum_i e^a_i)^2 - sum_i e^(2 a_i)) / (t (t - 1))) for k = 2.
The E-epoch loss is the sum of E independent one-epoch losses, and
  remove: delta(eps) = E_P[(1 - exp(eps - L))^+]   (y ~ P),
  add:    delta(eps) = E_Q[(1 - exp(eps + L))^+]   (y ~ Q).

Usage: alloc_mc.py SIGMA T EPOCHS EPS[,EPS...] [N] [SEED] [K (1 or 2)]
Prints one JSON line per eps and direction: mean, standard error, the
99.9% interval and the number of non-zero terms.
"""

import json
import sys

import numpy as np

Z = 3.2905  # two-sided 99.9%


def epoch_losses(rng, sigma, t, n, with_record, k=1):
    """n one-epoch losses L(y), y ~ P (with_record) or y ~ Q, k = 1 or 2."""
    y = rng.normal(0.0, sigma, size=(n, t))
    if with_record:
        rows = np.arange(n)
        first = rng.integers(0, t, size=n)
        y[rows, first] += 1.0
        if k == 2:  # a second step, uniform among the other t - 1
            second = (first + rng.integers(1, t, size=n)) % t
            y[rows, second] += 1.0
    a = (2.0 * y - 1.0) / (2.0 * sigma * sigma)
    m = a.max(axis=1)
    s1 = np.exp(a - m[:, None]).sum(axis=1)
    if k == 1:
        return m + np.log(s1) - np.log(t)
    s2 = np.exp(2.0 * (a - m[:, None])).sum(axis=1)
    return 2.0 * m + np.log(s1 * s1 - s2) - np.log(t * (t - 1.0))


def main():
    sigma, t, epochs = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    epss = [float(e) for e in sys.argv[4].split(",")]
    n = int(float(sys.argv[5])) if len(sys.argv) > 5 else 100000
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    k = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    if k not in (1, 2):
        sys.exit("alloc_mc.py: K must be 1 or 2")
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n, 2_000_000 // t))
    for direction, with_record, sign in (("remove", True, 1.0), ("add", False, -1.0)):
        s1 = np.zeros(len(epss))
        s2 = np.zeros(len(epss))
        hits = np.zeros(len(epss), dtype=np.int64)
        done = 0
        while done < n:
            m = min(chunk, n - done)
            total = np.zeros(m)
            for _ in range(epochs):
                total += epoch_losses(rng, sigma, t, m, with_record, k)
            loss = sign * total
            for i, eps in enumerate(epss):
                v = np.maximum(0.0, -np.expm1(eps - loss))
                s1[i] += v.sum()
                s2[i] += (v * v).sum()
                hits[i] += int((v > 0).sum())
            done += m
        for i, eps in enumerate(epss):
            mean = s1[i] / n
            se = np.sqrt(max(0.0, s2[i] / n - mean * mean) / n)
            print(json.dumps(dict(sigma=sigma, t=t, k=k, epochs=epochs, eps=eps, direction=direction,
                                  n=n, seed=seed, delta=mean, se=se, lo999=mean - Z * se,
                                  up999=mean + Z * se, hits=int(hits[i]))), flush=True)


if __name__ == "__main__":
    main()
