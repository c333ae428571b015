#!/usr/bin/env python3
"""Reference values (mpmath, 50 digits) of ln delta(eps) for the pairs of
refpairs_test.go: the subsampled Gaussian and Laplace pairs and the
truncated Gauss and Laplace pairs, one step (r = 1) in each direction, and
two steps (r = 2) of the Gaussian and Laplace remove pairs by quadrature.
Checked by TestPairReferencesAgainstMpmath (the log-space float64
references) and TestGridBracketAgainstMpmath (the small-r bracket).

Every input is a float64 written with repr(); the reference is computed
from those exact binary values.  Regenerate with
    python3 engine/testdata/pair_refs.py > engine/testdata/pair_refs.txt
Lines: kind direction(ab|ba) parameters... eps lndelta   (lndelta -inf for 0)
kinds: remove q a | antipodal q a | symmetric q a | lapremove q a |
lapsymmetric q a | gausstrunc mu tau | laptrunc mu tau | remove2 q a |
lapremove2 q a
"""
import random
import mpmath as mp

mp.mp.dps = 50
rng = random.Random(20261201)
INF = mp.inf


def Q(x):
    return mp.erfc(x / mp.sqrt(2)) / 2


def nmass(t1, t2, s=0):
    """N(s, 1) mass of (t1, t2)."""
    x1, x2 = mp.mpf(t1) - s, mp.mpf(t2) - s
    if x1 >= 0:
        return Q(x1) - Q(x2)
    if x2 <= 0:
        return Q(-x2) - Q(-x1)
    return 1 - Q(x2) - Q(-x1)


def lsf(x):  # P(Lap > x)
    return mp.e ** (-x) / 2 if x >= 0 else 1 - mp.e ** x / 2


def lmass(t1, t2, s=0):
    x1, x2 = mp.mpf(t1) - s, mp.mpf(t2) - s
    if x2 <= x1:
        return mp.mpf(0)
    return lsf(x1) - lsf(x2)


def logmix(q, x):
    return mp.log(1 - q + q * mp.e ** x)


def lnv(d):
    if d <= 0:
        return "-inf"
    return mp.nstr(mp.log(d), 30)


def f(v):
    return repr(float(v))


# ----------------------------------------------------------------- pairs
# A pair is a list of pieces: ("atom", A, B, loss) or ("cont", t1, t2,
# massA(t1, t2), massB(t1, t2), loss(t), increasing).  delta1(pair, e) =
# sum over pieces of (A(E) - e^e B(E))^+, E = {loss > e}, for any real e.


def swap(pair):
    out = []
    for p in pair:
        if p[0] == "atom":
            out.append(("atom", p[2], p[1], -p[3]))
        else:
            _, t1, t2, ma, mb, L, inc = p
            out.append(("cont", t1, t2, mb, ma, (lambda L: lambda t: -L(t))(L), not inc))
    return out


def root(L, e, t1, t2, inc):
    lo, hi = t1, t2
    if lo == -INF:
        lo = mp.mpf(-1)
        while (L(lo) > e) == inc:
            lo *= 2
    if hi == INF:
        hi = mp.mpf(1)
        while (L(hi) > e) != inc:
            hi *= 2
    for _ in range(400):
        m = (lo + hi) / 2
        if (L(m) > e) == inc:
            hi = m
        else:
            lo = m
    return (lo + hi) / 2


def delta1(pair, e):
    e = mp.mpf(e)
    s = mp.mpf(0)
    for p in pair:
        if p[0] == "atom":
            _, a, b, l = p
            s += max(mp.mpf(0), a - mp.e ** e * b)
            continue
        _, t1, t2, ma, mb, L, inc = p
        l1 = L(t1) if t1 != -INF else (L(mp.mpf(-1e6)) if True else None)
        l2 = L(t2) if t2 != INF else L(mp.mpf(1e6))
        lo, hi = min(l1, l2), max(l1, l2)
        if e >= hi:
            continue
        if e < lo:
            r1, r2 = t1, t2
        else:
            ts = root(L, e, t1, t2, inc)
            r1, r2 = (ts, t2) if inc else (t1, ts)
        s += max(mp.mpf(0), ma(r1, r2) - mp.e ** e * mb(r1, r2))
    return s


def remove(q, a):
    q, a = mp.mpf(q), mp.mpf(a)
    return [("cont", -INF, INF,
             lambda t1, t2: (1 - q) * nmass(t1, t2) + q * nmass(t1, t2, a),
             lambda t1, t2: nmass(t1, t2),
             lambda t: logmix(q, a * t - a * a / 2), True)]


def antipodal(q, a):
    q, a = mp.mpf(q), mp.mpf(a)
    return [("cont", -INF, INF,
             lambda t1, t2: (1 - q) * nmass(t1, t2) + q * nmass(t1, t2, -a),
             lambda t1, t2: (1 - q) * nmass(t1, t2) + q * nmass(t1, t2, a),
             lambda t: logmix(q, -a * t - a * a / 2) - logmix(q, a * t - a * a / 2), False)]


def lapremove(q, a):
    q, a = mp.mpf(q), mp.mpf(a)
    ea = mp.e ** (-a)
    return [("atom", (1 - q) / 2 + q * ea / 2, mp.mpf(1) / 2, logmix(q, -a)),
            ("cont", mp.mpf(0), a,
             lambda t1, t2: (1 - q) * lmass(t1, t2) + q * lmass(t1, t2, a),
             lambda t1, t2: lmass(t1, t2),
             lambda t: logmix(q, 2 * t - a), True),
            ("atom", (1 - q) * ea / 2 + q / 2, ea / 2, logmix(q, a))]


def symmetrise(r, q, a, lap):
    """S of a remove pair, built from its definition: the events of loss
    >= 0 (t >= a/2), their mirror image, and the atom 1 - R_A(t >= a/2) -
    R_B(t >= a/2) computed from the pieces' masses."""
    t0 = mp.mpf(a) / 2
    out = []
    ra = rb = mp.mpf(0)
    for p in r:
        if p[0] == "atom":
            if p[3] > 0:
                out.append(p)
                ra += p[1]
                rb += p[2]
            continue
        _, t1, t2, ma, mb, L, inc = p
        out.append(("cont", t0, t2, ma, mb, L, inc))
        ra += ma(t0, t2)
        rb += mb(t0, t2)
    out = out + swap(out)
    z = 1 - ra - rb
    out.append(("atom", z, z, mp.mpf(0)))
    return out


def gausstrunc(mu, tau):
    mu, tau = mp.mpf(mu), mp.mpf(tau)
    z = 1 - 2 * Q(tau)
    return [("atom", nmass(-tau, mu - tau) / z, mp.mpf(0), INF),
            ("atom", mp.mpf(0), nmass(tau, mu + tau, mu) / z, -INF),
            ("cont", mu - tau, tau,
             lambda t1, t2: nmass(t1, t2) / z, lambda t1, t2: nmass(t1, t2, mu) / z,
             lambda t: mu * mu / 2 - mu * t, False)]


def laptrunc(mu, tau):
    mu, tau = mp.mpf(mu), mp.mpf(tau)
    z = 1 - mp.e ** (-tau)
    return [("atom", lmass(-tau, mu - tau) / z, mp.mpf(0), INF),
            ("atom", mp.mpf(0), lmass(tau, mu + tau, mu) / z, -INF),
            ("atom", lmass(mu - tau, 0) / z, lmass(mu - tau, 0, mu) / z, mu),
            ("atom", lmass(mu, tau) / z, lmass(mu, tau, mu) / z, -mu),
            ("cont", mp.mpf(0), mu,
             lambda t1, t2: lmass(t1, t2) / z, lambda t1, t2: lmass(t1, t2, mu) / z,
             lambda t: mu - 2 * t, False)]


def delta2(pair, e):
    """Two steps: sum over the events x of one step of P_A(x) delta1(e -
    L(x)); the continuous pieces by mp.quad, split where e - L(t) crosses
    the loss of an atom or the end of a piece's loss range."""
    e = mp.mpf(e)
    s = mp.mpf(0)
    levels = []
    for p in pair:
        if p[0] == "atom":
            levels.append(p[3])
        else:
            _, t1, t2, ma, mb, L, inc = p
            for t in (t1, t2):
                v = L(t) if abs(t) != INF else L(mp.mpf(1e6) if t > 0 else mp.mpf(-1e6))
                if abs(v) < 1e5:
                    levels.append(v)
    for p in pair:
        if p[0] == "atom":
            if p[1] > 0:
                s += p[1] * delta1(pair, e - p[3])
            continue
        _, t1, t2, ma, mb, L, inc = p
        lo = t1 if t1 != -INF else mp.mpf(-60)
        hi = t2 if t2 != INF else mp.mpf(60)
        cuts = [lo, hi]
        for l in levels:
            if abs(l) == INF:
                continue
            target = e - l
            la, lb = L(lo), L(hi)
            if (target - la) * (target - lb) < 0:
                cuts.append(root(L, target, lo, hi, inc))
        cuts.sort()
        dens = lambda t: (ma(t - mp.mpf("1e-20"), t + mp.mpf("1e-20")) / mp.mpf("2e-20"))
        s += mp.quad(lambda t: dens(t) * delta1(pair, e - L(t)), cuts)
    return s


out = []


def emit(kind, params, pair, eps_list, steps=1):
    for d, pr in (("ab", pair), ("ba", swap(pair))):
        for e in eps_list:
            v = delta1(pr, e) if steps == 1 else delta2(pr, e)
            out.append(f"{kind} {d} " + " ".join(f(x) for x in params) + f" {f(e)} {lnv(v)}")


def randq():
    k = rng.randrange(4)
    if k == 0:
        return 10 ** rng.uniform(-8, -1)
    if k == 1:
        return 1 - 10 ** rng.uniform(-8, -1)
    if k == 2:
        return 1.0
    return rng.uniform(0.05, 0.95)


def epss(n, top):
    return [0.0] + [10 ** rng.uniform(-3, top) for _ in range(n)]


for _ in range(14):
    q, a = randq(), 10 ** rng.uniform(-2, 1)
    emit("remove", (q, a), remove(q, a), epss(4, 1.5))
for _ in range(10):
    q, a = randq(), 10 ** rng.uniform(-2, 1)
    emit("antipodal", (q, a), antipodal(q, a), epss(4, 1.5))
for _ in range(6):
    q, a = randq(), 10 ** rng.uniform(-2, 1)
    emit("symmetric", (q, a), symmetrise(remove(q, a), q, a, False), epss(3, 1.2))
for _ in range(10):
    q, a = randq(), 10 ** rng.uniform(-2, 1.3)
    emit("lapremove", (q, a), lapremove(q, a), epss(4, 1.3))
for _ in range(6):
    q, a = randq(), 10 ** rng.uniform(-2, 1.3)
    emit("lapsymmetric", (q, a), symmetrise(lapremove(q, a), q, a, True), epss(3, 1.3))
for _ in range(8):
    mu = 10 ** rng.uniform(-2, 1)
    tau = mu / 2 * (1 + 10 ** rng.uniform(-3, 1.5))
    emit("gausstrunc", (mu, tau), gausstrunc(mu, tau), epss(4, 1.5) + [1e4])
for _ in range(8):
    mu = 10 ** rng.uniform(-2, 1)
    tau = mu * (1 + 10 ** rng.uniform(-3, 1.5)) if rng.random() < 0.8 else mu
    emit("laptrunc", (mu, tau), laptrunc(mu, tau), epss(4, 1.3) + [1e4])
# r = 2 (slow: a few)
for q, a in ((0.1, 1.0), (0.01, 2.0), (1.0, 0.5), (0.5, 0.3)):
    emit("remove2", (q, a), remove(q, a), [0.0, 0.3, 2.0], steps=2)
for q, a in ((0.2, 1.5), (1.0, 0.7)):
    emit("lapremove2", (q, a), lapremove(q, a), [0.0, 0.4, 1.5], steps=2)
print("\n".join(out))
