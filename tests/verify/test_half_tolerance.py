"""16-bit floating outputs: numpy conversions, the host reference's rounding, and the tolerance.

The tolerance of a float16/bfloat16 output is float's (the compute type) plus one ulp of the
type for the final rounding: two float values that agree to float's bound may round one ulp
apart, and that passes; two ulps apart does not."""
from __future__ import annotations

import numpy as np
import pytest

from t2c.frontends.prose import read_spec
from t2c.verify.compare import compare_array, is_poison, poison, rtol_for
from t2c.verify.halfs import bfloat16_bits, bfloat16_values, stored, ulp, values
from t2c.verify.reference import run_reference
from t2ctest import bfloat16_nearest

SIZES = {"n": 100}
HALVES = ("__half", "__nv_bfloat16")


def _floats(seed=0, n=20000) -> np.ndarray:
    """Random magnitudes over both types' ranges, ties between bfloat16 and float16
    neighbours, and the special values."""
    rng = np.random.default_rng(seed)
    magnitudes = np.ldexp(rng.uniform(1, 2, n), rng.integers(-30, 18, n)) * rng.choice([-1, 1], n)
    b_ties = ((rng.integers(0, 0x7F7F, n).astype(np.uint32) << 16) | 0x8000).view(np.float32)
    h = rng.integers(0, 0x7BFE, n).astype(np.uint16)
    h_ties = (h.view(np.float16).astype(np.float32) + (h + 1).view(np.float16).astype(np.float32)) / 2
    special = np.array([0.0, -0.0, np.inf, -np.inf, 65504, 65519.99, 65520, 2.0**-24, 2.0**-25,
                        1.5 * 2.0**-25, 3.4e38, np.finfo(np.float32).max, 1e-45])
    return np.concatenate([magnitudes, b_ties, h_ties, special]).astype(np.float32)


def test_bfloat16_conversions_round_to_nearest_even():
    f = _floats()
    finite = np.isfinite(f)
    assert np.array_equal(bfloat16_bits(f[finite]), bfloat16_nearest(f[finite]))
    assert list(bfloat16_bits(np.float32([np.inf, -np.inf]))) == [0x7F80, 0xFF80]
    assert bfloat16_bits(np.float32(np.nan)) == 0x7FFF
    every = np.arange(65536, dtype=np.uint16)
    finite = np.isfinite(bfloat16_values(every)) | np.isinf(bfloat16_values(every))
    assert np.array_equal(bfloat16_bits(bfloat16_values(every))[finite], every[finite])
    with np.errstate(over="ignore"):
        assert np.array_equal(stored(f, "__half"), f.astype(np.float16))
    assert np.array_equal(values(bfloat16_bits(f), "__nv_bfloat16"), bfloat16_values(bfloat16_bits(f)))


def test_ulp_is_the_types_spacing():
    assert ulp(1.0, "__half") == 2.0**-10 and ulp(1.0, "__nv_bfloat16") == 2.0**-7
    assert ulp(0.0, "__half") == 2.0**-24 and ulp(1e-41, "__nv_bfloat16") == 2.0**-133
    assert ulp(3.0, "__half") == 2.0**-9 and ulp(65504.0, "__half") == 32.0
    assert ulp(2.0**-14, "__half") == ulp(2.0**-15, "__half") == 2.0**-24


@pytest.mark.parametrize("dtype", HALVES)
def test_one_ulp_from_the_final_rounding_passes_two_fail(dtype):
    rng = np.random.default_rng(2)
    # magnitudes of one binade: an ulp is the same share of every element and of the array's scale
    ref = stored(rng.uniform(1.5, 1.9, 100) * rng.choice([-1, 1], 100), dtype)
    step = lambda a, k: (a.view(np.uint16) + np.uint16(k)).view(a.dtype)   # k ulps away from zero
    one, two = step(ref, 1), step(ref, 2)
    c = compare_array("y", dtype, ref, one, SIZES)
    assert c.ok and c.bound == rtol_for("float", SIZES) == rtol_for(dtype, SIZES)
    bad = compare_array("y", dtype, ref, two, SIZES)
    assert not bad.ok and bad.bad == 100
    assert bad.expected == float(values(ref, dtype)[0])              # values, not bit patterns
    zeros = stored(np.zeros(100), dtype)
    assert not compare_array("y", dtype, ref, zeros, SIZES).ok


@pytest.mark.parametrize("dtype", HALVES)
def test_poison_is_a_nan_of_the_type_and_is_recognised(dtype):
    p = poison(dtype, (4,))
    assert np.all(np.isnan(values(p, dtype))) and is_poison(p, dtype).all()
    got = p.copy()
    got[1:] = stored(np.ones(3), dtype)
    c = compare_array("y", dtype, stored(np.ones(4), dtype), got, SIZES)
    assert not c.ok and c.unwritten == 1


def test_the_host_reference_rounds_as_numpy_and_the_gpu(tmp_path):
    """float -> float16 (gcc's _Float16) and -> bfloat16 (the reference's helper) on ties,
    subnormals and overflow, through a spec's stores and its casts."""
    spec = tmp_path / "narrow.md"
    spec.write_text("---\nname: narrow\nsizes: {n: {MINI: 4}}\narrays:\n  x: float[n] in\n"
                    "  h: float16[n] out\n  b: bfloat16[n] out\n  c: float[n] out\n---\n"
                    "```t2c\nh[i] = x[i]\nb[i] = x[i]\nc[i] = float16(x[i]) + bfloat16(x[i])\n```\n")
    k = read_spec(spec)
    f = _floats(n=3000)
    f = f[np.isfinite(f)]
    out = run_reference(k, {"n": len(f)}, {"x": f}).outputs
    with np.errstate(over="ignore"):
        want_h = f.astype(np.float16)
    assert np.array_equal(out["h"].view(np.uint16), want_h.view(np.uint16))
    assert np.array_equal(out["b"], bfloat16_nearest(f))
    want_c = want_h.astype(np.float32) + bfloat16_values(bfloat16_nearest(f))
    assert np.array_equal(out["c"], want_c)
