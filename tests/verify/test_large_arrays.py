"""Arrays of a full rung's size (hundreds of millions of elements at LARGE): a comparison, a draw,
the perturbed inputs of a re-evaluation and the writing of an input go block by block, with no
temporary the size of the array, and give what one pass over the whole array gives (the same
seed draws the same bytes).  Memory is measured with tracemalloc, which sees numpy's buffers."""
import tracemalloc

import numpy as np
import pytest

from t2ctest import ROOT
from t2c.frontends.c import read_c
from t2c.verify.compare import BLOCK, compare_array, poison, rtol_for
from t2c.verify.inputs import synthesize
from t2c.verify.reference import write_array
from t2c.verify.synth import _perturbed

N = 48 * BLOCK + 123                  # many blocks and a partial one
REVERSE = read_c(ROOT / "corpora/loops/idioms/comma_reverse.c")          # float x[n] inout
STRIDED = read_c(ROOT / "corpora/loops/vectorizer/strided_store.c")      # double a[2n], b[n], c[n]


def _peak(f):
    """(f(), the most memory allocated at once while it ran, beyond what was held before)."""
    tracemalloc.start()
    try:
        held = tracemalloc.get_traced_memory()[0]
        result = f()
        return result, tracemalloc.get_traced_memory()[1] - held
    finally:
        tracemalloc.stop()


def _float_pair(seed: int, dtype=np.float32):
    rng = np.random.default_rng(seed)
    e = rng.uniform(-1, 1, N).astype(dtype)
    g = (e * (1 + np.finfo(dtype).eps * rng.uniform(-1, 1, N))).astype(dtype)
    return e, g


@pytest.mark.parametrize("dtype, np_type", [("float", np.float32), ("double", np.float64)])
def test_a_comparison_makes_no_copy_of_the_arrays(dtype, np_type):
    e, g = _float_pair(1, np_type)
    c, peak = _peak(lambda: compare_array("x", dtype, e, g, {"n": N}))
    assert c.ok
    assert peak < 8 * N / 4          # a quarter of one float64 copy: blocks only


def _model(e, g, sizes):
    """The tolerance model over the whole array at once (docs/verification.md)."""
    e64, g64 = e.astype(np.float64), g.astype(np.float64)
    fr = np.isfinite(e64)
    s = np.sqrt(np.mean(e64[fr] ** 2))
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(g64 - e64) / np.maximum(np.abs(e64), s)
    err[fr & ~np.isfinite(g64)] = np.inf
    same = (g64 == e64) | (np.isnan(g64) & np.isnan(e64))
    err[~fr] = np.where(same[~fr], 0.0, np.inf)
    return err, err > rtol_for("float", sizes)


def test_a_blocked_comparison_finds_what_the_whole_array_model_finds():
    e, g = _float_pair(2)
    g[[5 * BLOCK + 7, 30 * BLOCK]] *= 1.01                               # two wrong values
    g[[9 * BLOCK + 1, 9 * BLOCK + 2]] = poison("float", (2,))           # unwritten
    g[20 * BLOCK + 3] = np.inf                                           # non-finite
    e[40 * BLOCK], g[40 * BLOCK] = np.inf, np.inf                        # the same non-finite value
    sizes = {"n": 1}                                                     # a bound of a few float ulps
    err, bad = _model(e, g, sizes)
    c = compare_array("x", "float", e, g, sizes)
    assert not c.ok and c.bad == int(bad.sum()) == 5
    assert c.first_bad == (5 * BLOCK + 7,)
    assert c.max_error == err.max() == np.inf
    assert (c.unwritten, c.nonfinite) == (2, 1)
    g[[9 * BLOCK + 1, 9 * BLOCK + 2, 20 * BLOCK + 3]] = e[[9 * BLOCK + 1, 9 * BLOCK + 2, 20 * BLOCK + 3]]
    err, bad = _model(e, g, sizes)
    c = compare_array("x", "float", e, g, sizes)
    assert c.bad == 2 and np.isclose(c.max_error, err.max(), rtol=1e-12)
    fin = np.isfinite(e)
    l2 = np.linalg.norm(g[fin] - e[fin].astype(np.float64)) / np.linalg.norm(e[fin].astype(np.float64))
    assert np.isclose(c.rel_l2, l2, rtol=1e-12)


def test_a_uniform_draw_is_the_whole_array_draw_without_its_float64_copy():
    drawn, peak = _peak(lambda: synthesize(REVERSE, {"n": N}, 11))
    whole = np.random.default_rng(11).uniform(-1.0, 1.0, size=N).astype(np.float32)
    assert drawn["x"].dtype == np.float32 and drawn["x"].tobytes() == whole.tobytes()
    assert peak < 4 * N + 8 * N / 4          # the float32 input and blocks


def test_several_inputs_draw_from_one_stream_as_whole_arrays_do():
    n = 20 * BLOCK + 5
    drawn = synthesize(STRIDED, {"n": n}, 12)
    rng = np.random.default_rng(12)
    for name, size in (("a", 2 * n), ("b", n), ("c", n)):
        assert drawn[name].tobytes() == rng.uniform(-1.0, 1.0, size=size).tobytes(), name


def test_perturbed_inputs_are_the_whole_array_formula_without_its_temporaries():
    x = np.random.default_rng(3).uniform(-1, 1, N).astype(np.float32)
    moved, peak = _peak(lambda: _perturbed(REVERSE, {"x": x}, 13))
    eps = np.finfo(np.float32).eps
    whole = (x * (1 + 4 * eps * np.random.default_rng(13).uniform(-1, 1, size=N))).astype(np.float32)
    assert moved["x"].tobytes() == whole.tobytes()
    assert peak < 4 * N + 8 * N / 4


def test_writing_an_input_makes_no_bytes_copy(tmp_path):
    x = np.random.default_rng(4).uniform(-1, 1, N)
    _, peak = _peak(lambda: write_array(tmp_path / "x.bin", x))
    assert (tmp_path / "x.bin").read_bytes() == x.tobytes()
    assert peak < x.nbytes / 4
