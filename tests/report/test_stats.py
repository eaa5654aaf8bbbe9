"""The Mann-Whitney U test and geomean: exact distribution, approximation, edge cases."""
import itertools
import math

import numpy as np
import pytest

from t2c.report.stats import _u_counts, geomean, mann_whitney_greater, u_statistic


def brute_counts(m, n):
    counts = np.zeros(m * n + 1)
    for pos in itertools.combinations(range(m + n), m):
        counts[sum(p - i for i, p in enumerate(pos))] += 1     # y's below each x
    return counts


@pytest.mark.parametrize("m,n", [(1, 1), (3, 4), (5, 5), (2, 7), (6, 3)])
def test_exact_distribution_matches_enumeration(m, n):
    assert np.array_equal(_u_counts(m, n), brute_counts(m, n))


def test_exact_distribution_sums_to_binomial_for_large_sizes():
    assert _u_counts(50, 50).sum() == pytest.approx(math.comb(100, 50), rel=1e-12)


def test_p_values():
    # complete separation, 5 vs 5: one ordering in C(10, 5) = 252
    assert mann_whitney_greater([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]) == pytest.approx(1 / 252)
    assert mann_whitney_greater([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(1.0)
    assert u_statistic([1, 2], [2, 3]) == 0.5
    assert mann_whitney_greater([], [1.0]) == 1.0
    assert mann_whitney_greater([1, 1, 1], [1, 1, 1]) == 1.0


def test_normal_approximation_with_ties_is_close_to_exact():
    rng = np.random.default_rng(1)
    x, y = rng.normal(1.02, 0.05, 30), rng.normal(1.0, 0.05, 30)
    exact = mann_whitney_greater(x, y)
    tied = mann_whitney_greater(np.round(x, 3), np.round(y, 3))   # rounding makes ties: normal path
    assert 0.01 < exact < 0.05 and tied == pytest.approx(exact, rel=0.1)


def test_false_positive_rate_is_near_alpha():
    rng = np.random.default_rng(2)
    hits = sum(mann_whitney_greater(rng.lognormal(0, .05, 20), rng.lognormal(0, .05, 20)) < 0.05
               for _ in range(400))
    assert 5 <= hits <= 35                   # about 5% of 400


def test_geomean_skips_missing():
    assert geomean([2, 8, None, 0]) == pytest.approx(4.0)
    assert geomean([None]) is None
