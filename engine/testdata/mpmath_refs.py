#!/usr/bin/env python3
"""Reference values of ln delta(eps) in 60-digit arithmetic (mpmath), for
TestReferencesAgainstMpmath: they check the test references of
reference_test.go (log-space float64 formulas), which in turn check the
engine. Run: python3 engine/testdata/mpmath_refs.py > engine/testdata/mpmath_refs.txt
Each line: kind, parameters..., eps, ln delta (or -inf)."""
from mpmath import mp, mpf, erfc, exp, log, sqrt, binomial, quad, inf, expm1

mp.dps = 60


def Q(x):
    return erfc(x / sqrt(2)) / 2


def gauss(mu, eps):
    mu, eps = mpf(mu), mpf(eps)
    d = Q(eps / mu - mu / 2) - exp(eps) * Q(eps / mu + mu / 2)
    return d


def rr(p, r, eps):
    p = mpf(p)
    q = 1 - p
    eps = mpf(eps)
    s = mpf(0)
    for k in range(r + 1):
        a = binomial(r, k) * p**k * q**(r - k)
        b = binomial(r, k) * q**k * p**(r - k)
        t = a - exp(eps) * b
        if t > 0:
            s += t
    return s


def epsdelta(eps0, d, r, eps):
    eps0, d = mpf(eps0), mpf(d)
    p = exp(eps0) / (1 + exp(eps0))
    one = (1 - d)**r
    if eps == 'inf':
        return 1 - one
    return 1 - one + one * rr(p, r, eps)


def laplace1(mu, eps):
    mu, eps = mpf(mu), mpf(eps)
    if eps >= mu:
        return mpf(0)
    return 1 - exp((eps - mu) / 2)


def laplace2(mu, eps):
    # r = 2 by the loss distribution of one observation: atoms mu (1/2),
    # -mu (e^-mu/2), density e^((y-mu)/2)/4 on (-mu, mu); integrated with
    # mpmath.quad, the kink y1 + y2 = eps handled by the inner limits.
    mu, eps = mpf(mu), mpf(eps)
    atoms = [(mu, mpf(1) / 2), (-mu, exp(-mu) / 2)]
    dens = lambda y: exp((y - mu) / 2) / 4
    f = lambda L: (1 - exp(eps - L)) if L > eps else mpf(0)
    s = mpf(0)
    for l1, w1 in atoms:
        for l2, w2 in atoms:
            s += w1 * w2 * f(l1 + l2)
    # one atom, one continuous (twice)
    for l1, w1 in atoms:
        lo = max(-mu, eps - l1)
        if lo < mu:
            s += 2 * w1 * quad(lambda y: dens(y) * (1 - exp(eps - l1 - y)), [lo, mu])
    # both continuous
    def inner(y1):
        lo = max(-mu, eps - y1)
        if lo >= mu:
            return mpf(0)
        return quad(lambda y2: dens(y2) * (1 - exp(eps - y1 - y2)), [lo, mu])
    ylo = max(-mu, eps - mu)
    if ylo < mu:
        s += quad(lambda y1: dens(y1) * inner(y1), [ylo, mu])
    return s


def out(kind, params, eps, d):
    ld = '-inf' if d <= 0 else mp.nstr(log(d), 20)
    print(kind, ' '.join(repr(float(x)) for x in params), repr(float(eps)), ld)


for mu, eps in [(1, 0), (1, 1), (1, 5), (0.5, 3), (10, 1), (10, 50), (10, 300), (100, 1000),
                (100, 5000), (100, 10000), (1000, 1e4), (1e4, 5e7), (2.5, 40), (0.01, 0.001),
                (0.1, 0.5), (60, 2000), (30, 800)]:
    out('gauss', [mu], eps, gauss(mu, eps))
for p, r, eps in [(0.6, 10, 0.5), (0.6, 100, 2), (0.9, 3, 1), (0.999999, 50, 100), (0.99, 1000, 1500),
                  (0.51, 2000, 0.3), (1 - 1e-12, 40, 800), (1 - 1e-12, 40, 1100), (0.75, 500, 200)]:
    out('rr', [p, r], eps, rr(p, r, eps))
for e0, d, r, eps in [(1, 1e-3, 10, 2), (800, 1e-6, 3, 1000), (800, 0, 3, 2000), (0.5, 0.1, 20, 1),
                      (3, 1e-9, 100, 30)]:
    out('epsdelta', [e0, d, r], eps, epsdelta(e0, d, r, eps))
for mu, eps in [(1, 0), (1, 0.5), (3, 1), (40, 10)]:
    out('laplace1', [mu], eps, laplace1(mu, eps))
for mu, eps in [(1, 0), (1, 0.5), (2, 3), (0.3, 0.1), (20, 25), (20, 39)]:
    out('laplace2', [mu], eps, laplace2(mu, eps))
