"""The statistics a report needs, in numpy only: geometric means and the Mann-Whitney U test.

`mann_whitney_greater(x, y)` is the one-sided p-value that samples `x` come from a
distribution stochastically greater than `y`'s (for kernel times: x slower than y).
It makes no normality assumption, which matters because GPU timings are skewed
and carry outliers.  Without ties and for up to 50 samples a side it is exact
(the null distribution of U is the coefficient list of a Gaussian binomial);
otherwise it uses the normal approximation with tie and continuity corrections.
"""
from __future__ import annotations

import math

import numpy as np

EXACT_MAX = 50       # samples per side up to which the exact distribution is cheap


def geomean(values) -> float | None:
    xs = [float(v) for v in values if v is not None and v > 0 and math.isfinite(v)]
    return float(np.exp(np.mean(np.log(xs)))) if xs else None


def median(values) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return float(np.median(xs)) if xs else None


def u_statistic(x, y) -> float:
    """U of x: the number of pairs (x_i, y_j) with x_i > y_j, ties counting one half."""
    x, y = np.asarray(x, float)[:, None], np.asarray(y, float)[None, :]
    return float((x > y).sum() + 0.5 * (x == y).sum())


def _u_counts(m: int, n: int) -> np.ndarray:
    """How many of the C(m+n, m) orderings give U = 0 .. m*n: the Gaussian binomial [m+n, m]_q.

    Built one factor at a time, [n+i, i]_q = [n+i-1, i-1]_q (1 - q^(n+i)) / (1 - q^i), so
    every intermediate is itself a Gaussian binomial and stays non-negative."""
    size = m * n + 1
    c = np.zeros(size)
    c[0] = 1.0
    for i in range(1, m + 1):
        s = n + i
        if s < size:
            c[s:] = c[s:] - c[:size - s].copy()
        # dividing by (1 - q^i) is a running sum within each residue class mod i
        pad = (-size) % i
        c = np.cumsum(np.concatenate([c, np.zeros(pad)]).reshape(-1, i), axis=0).ravel()[:size]
    return c


def mann_whitney_greater(x, y) -> float:
    """One-sided p-value of H1 'x tends to be larger than y'; 1.0 when either side is empty."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    m, n = len(x), len(y)
    if m == 0 or n == 0:
        return 1.0
    u = u_statistic(x, y)
    both = np.concatenate([x, y])
    ties = len(np.unique(both)) < len(both)
    if not ties and m <= EXACT_MAX and n <= EXACT_MAX:
        counts = _u_counts(m, n)
        return float(min(1.0, counts[int(round(u)):].sum() / counts.sum()))
    # normal approximation; the tie correction shrinks the variance by the tied groups
    _, t = np.unique(both, return_counts=True)
    big_n = m + n
    var = m * n / 12.0 * ((big_n + 1) - float((t ** 3 - t).sum()) / (big_n * (big_n - 1)))
    if var <= 0:
        return 1.0                          # every sample equal: no evidence either way
    z = (u - m * n / 2.0 - 0.5) / math.sqrt(var)
    return float(0.5 * math.erfc(z / math.sqrt(2.0)))
