#!/usr/bin/env python3
"""Reference values (mpmath, 60 digits) for the accuracy tests of
normal.go, subsampled_laplace.go and logmix.go and for the privacy-loss
functions of the subsampled pairs (subsampled_ref_test.go).

Every input is a float64 written with repr(); the reference is computed
from those exact binary values.  Regenerate with
    python3 engine/testdata/gen_subsampled_ref.py > engine/testdata/subsampled_ref.txt
Lines: kind inputs... reference
"""
import random
import mpmath as mp

mp.mp.dps = 60
rng = random.Random(20261123)


def Q(x):
    return mp.erfc(x / mp.sqrt(2)) / 2


def normmass(t1, t2, m):
    s1, s2 = mp.mpf(t1) - m, mp.mpf(t2) - m
    if s1 >= 0:
        return Q(s1) - Q(s2)
    if s2 <= 0:
        return Q(-s2) - Q(-s1)
    return 1 - Q(s2) - Q(-s1)


def lapcdf_upper(s):  # P(X > s)
    return mp.e ** (-s) / 2 if s >= 0 else 1 - mp.e ** s / 2


def lapmass(t1, t2, m):
    s1, s2 = mp.mpf(t1) - m, mp.mpf(t2) - m
    if s2 <= 0:
        return mp.e ** s2 * (1 - mp.e ** (s1 - s2)) / 2
    if s1 >= 0:
        return mp.e ** (-s1) * (1 - mp.e ** (s1 - s2)) / 2
    return (1 - mp.e ** s1) / 2 + (1 - mp.e ** (-s2)) / 2


def logmix(q, x):
    q, x = mp.mpf(q), mp.mpf(x)
    return mp.log(1 - q + q * mp.e ** x)


def f(v):
    return repr(float(v))


def randq():
    k = rng.randrange(5)
    if k == 0:
        return 10 ** rng.uniform(-12, -1)
    if k == 1:
        return 1 - 10 ** rng.uniform(-15, -1)
    if k == 2:
        return 1.0
    return rng.uniform(0, 1)


out = []
# normQ
for _ in range(400):
    t = rng.uniform(-9, 37.5) if rng.random() < 0.9 else rng.uniform(-1, 1) * 10 ** rng.uniform(-8, 0)
    out.append(f"normq {f(t)} {mp.nstr(Q(mp.mpf(t)), 30)}")
# normMassShift: narrow and wide intervals, shifts of any size
for _ in range(1500):
    m = 0.0 if rng.random() < 0.1 else rng.choice([1, -1]) * 10 ** rng.uniform(-6, 1.3)
    c = m + rng.uniform(-37, 37)
    w = 10 ** rng.uniform(-9, 1.5)
    t1 = c
    t2 = c + w
    v = normmass(t1, t2, m)
    if v < 1e-290:
        continue
    out.append(f"normshift {f(t1)} {f(t2)} {f(m)} {mp.nstr(v, 30)}")
for _ in range(100):  # half-infinite intervals
    m = rng.uniform(-5, 5)
    t = rng.uniform(-30, 30)
    out.append(f"normshift -inf {f(t)} {f(m)} {mp.nstr(Q(m - mp.mpf(t)), 30)}")
    out.append(f"normshift {f(t)} inf {f(m)} {mp.nstr(Q(mp.mpf(t) - m), 30)}")
# lapMassShift
for _ in range(1000):
    m = 0.0 if rng.random() < 0.1 else rng.choice([1, -1]) * 10 ** rng.uniform(-6, 2)
    c = m + rng.uniform(-600, 600)
    w = 10 ** rng.uniform(-9, 1.5)
    v = lapmass(c, c + w, m)
    if v < 1e-290:
        continue
    out.append(f"lapshift {f(c)} {f(c + w)} {f(m)} {mp.nstr(v, 30)}")
# logMix
for _ in range(1500):
    q = randq()
    k = rng.randrange(4)
    if k == 0:
        x = rng.uniform(-50, 50)
    elif k == 1:
        x = rng.choice([1, -1]) * 10 ** rng.uniform(-12, 0)
    elif k == 2:
        x = rng.uniform(-800, 800)
    else:
        x = rng.uniform(-1000, -30)
    out.append(f"logmix {f(q)} {f(x)} {mp.nstr(logmix(q, x), 30)}")
# privacy losses of the pairs: gauss remove / antipodal, laplace remove
for _ in range(1500):
    q = randq()
    a = 10 ** rng.uniform(-4, 1.3)
    t = rng.uniform(-40, 40) if rng.random() < 0.8 else rng.uniform(-1, 1) * 10 ** rng.uniform(-6, 3)
    qq, aa, tt = mp.mpf(q), mp.mpf(a), mp.mpf(t)
    phi = lambda s: mp.e ** (-s * s / 2)
    rem = mp.log(((1 - qq) * phi(tt) + qq * phi(tt - aa)) / phi(tt))
    anti = mp.log(((1 - qq) * phi(tt) + qq * phi(tt + aa)) / ((1 - qq) * phi(tt) + qq * phi(tt - aa)))
    out.append(f"gaussremove {f(q)} {f(a)} {f(t)} {mp.nstr(rem, 30)}")
    out.append(f"gaussantipodal {f(q)} {f(a)} {f(t)} {mp.nstr(anti, 30)}")
    tl = rng.uniform(0, a)
    lp = lambda s: mp.e ** (-abs(s))
    tl_ = mp.mpf(tl)
    lrem = mp.log(((1 - qq) * lp(tl_) + qq * lp(tl_ - aa)) / lp(tl_))
    out.append(f"lapremove {f(q)} {f(a)} {f(tl)} {mp.nstr(lrem, 30)}")
print("\n".join(out))
