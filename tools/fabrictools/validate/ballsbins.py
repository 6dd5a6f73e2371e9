"""Exact statistics of n balls thrown independently and uniformly into m bins.

The distribution of the maximum load is computed exactly, by dynamic programming over the bins
with exact integers (no Monte-Carlo): the number of sequences of n labelled balls in which every
one of m bins holds at most k balls is

    W_k(m, n) = sum over occupancies c_1..c_m <= k, sum c = n, of n! / (c_1! ... c_m!)

built bin by bin: ways[b+1][s + j] += ways[b][s] * C(s + j, j) for j = 0..k. Then
P(max <= k) = W_k / m^n exactly (a Fraction), and every statistic below follows from it.
"""

from fractions import Fraction
from functools import lru_cache
from math import comb, factorial


def _count_max_at_most(n: int, m: int, k: int) -> int:
    ways = [0] * (n + 1)
    ways[0] = 1
    for _ in range(m):
        nxt = [0] * (n + 1)
        for s, w in enumerate(ways):
            if not w:
                continue
            for j in range(0, min(k, n - s) + 1):
                nxt[s + j] += w * comb(s + j, j)
        ways = nxt
    return ways[n]


@lru_cache(maxsize=None)
def max_load_cdf(n: int, m: int):
    """[P(max <= k) for k = 0..n] as exact Fractions."""
    if n < 0 or m < 1:
        raise ValueError("need n >= 0 balls and m >= 1 bins")
    total = m ** n
    cdf = []
    for k in range(0, n + 1):
        if k * m < n:
            cdf.append(Fraction(0))
            continue
        if cdf and cdf[-1] == 1:
            cdf.append(Fraction(1))
            continue
        cdf.append(Fraction(_count_max_at_most(n, m, k), total))
    return tuple(cdf)


def max_load_pmf(n: int, m: int):
    cdf = max_load_cdf(n, m)
    return [cdf[0]] + [cdf[k] - cdf[k - 1] for k in range(1, len(cdf))]


def expected_max(n: int, m: int) -> Fraction:
    return sum((k * p for k, p in enumerate(max_load_pmf(n, m))), Fraction(0))


def var_max(n: int, m: int) -> Fraction:
    e = expected_max(n, m)
    return sum((k * k * p for k, p in enumerate(max_load_pmf(n, m))), Fraction(0)) - e * e


def quantile_max(n: int, m: int, q: float) -> int:
    """Smallest k with P(max <= k) >= q."""
    for k, c in enumerate(max_load_cdf(n, m)):
        if c >= Fraction(q).limit_denominator(10 ** 12):
            return k
    return n


def p_no_collision(n: int, m: int) -> Fraction:
    """P(every bin holds at most one ball) = m!/(m-n)!/m^n (0 when n > m)."""
    if n > m:
        return Fraction(0)
    return Fraction(factorial(m) // factorial(m - n), m ** n)


def expected_occupied(n: int, m: int) -> Fraction:
    """E[number of non-empty bins] = m (1 - (1 - 1/m)^n)."""
    return m * (1 - Fraction(m - 1, m) ** n)


def var_occupied(n: int, m: int) -> Fraction:
    a = Fraction(m - 1, m) ** n
    b = Fraction(m - 2, m) ** n if m >= 2 else Fraction(0)
    e = m * (1 - a)
    # E[X^2] = m P(bin non-empty) + m(m-1) P(two given bins both non-empty)
    p1 = 1 - a
    p2 = 1 - 2 * a + b
    return m * p1 + m * (m - 1) * p2 - e * e


def expected_inverse_max(n: int, m: int) -> Fraction:
    """E[1 / max load] (n >= 1): a synchronous collective's rate relative to one flow per link."""
    return sum((p / k for k, p in enumerate(max_load_pmf(n, m)) if k > 0), Fraction(0))


def var_inverse_max(n: int, m: int) -> Fraction:
    e = expected_inverse_max(n, m)
    return sum((p / (k * k) for k, p in enumerate(max_load_pmf(n, m)) if k > 0),
               Fraction(0)) - e * e
