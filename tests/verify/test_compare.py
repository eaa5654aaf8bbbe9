"""The tolerance model: FMA-level differences pass, real errors and cheats fail."""
import numpy as np

from t2c.ir import Array, Kernel
from t2c.verify.compare import compare, compare_array, poison, rtol_for

SIZES = {"n": 100}


def test_fma_level_differences_pass_even_after_cancellation():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-1, 1, (2, 100, 100))
    exact = a @ b
    # reorder each dot product: what a tree reduction or an FMA does to the last bits
    reordered = np.array([[np.sum((a[i] * b[:, j])[::-1]) for j in range(100)] for i in range(100)])
    c = compare_array("C", "double", exact, reordered, SIZES)
    assert c.ok and c.max_error < c.bound
    cancel = exact.copy()
    cancel[0, 0] = 1e-17                      # an element that cancelled to almost nothing
    moved = cancel.copy()
    moved[0, 0] = -3e-16                      # a few ulps of the array's scale away
    assert compare_array("C", "double", cancel, moved, SIZES).ok


def test_real_errors_fail_and_are_located():
    rng = np.random.default_rng(1)
    ref = rng.uniform(-1, 1, (10, 10))
    bad = ref.copy()
    bad[3, 4] += 1e-6
    c = compare_array("C", "double", ref, bad, SIZES)
    assert not c.ok and c.first_bad == (3, 4) and c.bad == 1 and c.rel_l2 > 0
    assert "C[3,4]" in c.describe()
    as_float = ref.astype(np.float32).astype(np.float64)
    assert not compare_array("C", "double", ref, as_float, SIZES).ok     # precision downgrade


def test_nan_inf_zeros_and_unwritten_fail():
    ref = np.linspace(-1, 1, 50)
    assert not compare_array("x", "double", ref, np.full(50, np.nan), SIZES).ok
    assert not compare_array("x", "double", ref, np.full(50, np.inf), SIZES).ok
    assert not compare_array("x", "double", ref, np.zeros(50), SIZES).ok
    got = ref.copy()
    got[7:] = poison("double", (43,))
    c = compare_array("x", "double", ref, got, SIZES)
    assert not c.ok and c.unwritten == 43 and c.first_bad == (7,)


def test_nonfinite_reference_values_need_the_same_value_at_the_same_place():
    """NaN equals NaN at the same position; inf equals inf of the same sign; any other
    value there (a finite one, the other infinity, NaN for inf) fails."""
    for dtype, np_type in (("float", np.float32), ("double", np.float64)):
        ref = np.linspace(-1, 1, 8).astype(np_type)
        ref[[1, 4, 6]] = (np.nan, np.inf, -np.inf)
        assert compare_array("x", dtype, ref, ref.copy(), SIZES).ok
        for where, value in ((1, 0.5), (4, -np.inf), (6, np.inf), (4, np.nan), (6, -1e38)):
            got = ref.copy()
            got[where] = value
            c = compare_array("x", dtype, ref, got, SIZES)
            assert not c.ok and c.first_bad == (where,), (dtype, where, value)
        moved = ref.copy()
        moved[[0, 1]] = moved[[1, 0]]                 # the NaN one place off
        assert not compare_array("x", dtype, ref, moved, SIZES).ok


def test_integers_are_exact():
    ref = np.arange(12, dtype=np.int32)
    got = ref.copy()
    got[5] += 1
    assert compare_array("p", "int", ref, ref.copy(), SIZES).ok
    c = compare_array("p", "int", ref, got, SIZES)
    assert not c.ok and c.bound == 0 and c.first_bad == (5,)


def test_bound_grows_with_reduction_length_and_type():
    assert rtol_for("int", SIZES) == 0
    assert rtol_for("double", {"n": 10}) < rtol_for("double", {"n": 1000}) < rtol_for("float", {"n": 10})


def test_missing_and_misshaped_outputs_fail():
    k = Kernel("f", ("n", "x"), (), (), (Array("x", "double", ("n",), "out"),), "void f(){}")
    exp = {"x": np.zeros(3)}
    assert compare(k, exp, {}, {"n": 3}).reason == "output missing"
    assert not compare(k, exp, {"x": np.zeros(4)}, {"n": 3}).ok


def test_a_failing_comparison_measures_its_error_against_the_bound():
    """Issue #38, 5: what a rejected candidate's report shows is the error the ladder measured
    (zeros for y: max error 1.0, so 1.0 / bound), never 0; inf when no bound measures it."""
    from t2c.verify.compare import Comparison
    ref = np.linspace(1, 2, 100).astype(np.float32)
    zeros = compare_array("y", "float", ref, np.zeros(100, dtype=np.float32), SIZES)
    c = Comparison(False, (zeros,))
    assert zeros.max_error == 1.0 and c.failure_ratio == 1.0 / zeros.bound > 1
    ints = compare_array("h", "int", np.arange(5, dtype=np.int32), np.zeros(5, dtype=np.int32), SIZES)
    assert Comparison(False, (ints,)).failure_ratio == float("inf")
