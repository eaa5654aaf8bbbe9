"""A maximum of running sums (Kadane) as an ordered reduction of tuples (issue #35; poly/kadane.py).

max_running_sum ran on one GPU thread; it becomes blocks that fold their ranges into (sum, best
prefix, best suffix, best) tuples and one block that combines them in order.  A block walks its
range in tiles: E's values loaded coalesced into shared memory, each thread folding its
consecutive run, warps joining adjacent runs by shuffles, the warps' tuples in order.  Read from
the plan (`running_max_of`), checked in the printed part kernel, accepted by the emu ladder at
MINI, SMALL and MEDIUM, on several blocks and several tiles a block with a tail, in a mirror form
and over float, and refused where the form does not hold: those stay one thread and correct."""
import numpy as np
import pytest

from t2ctest import ROOT, accepted_on_emu as _accepted, c_kernel as _kernel, plan_records
from t2c.frontends import read_kernel
from t2c.frontends.c import read_c
from t2c.ir.csyntax import cprint
from t2c.generators.poly import generate
from t2c.generators.poly.kadane import running_max_of
from t2c.generators.poly.options import DEFAULT
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.ladder import ladder
from t2c.verify.reference import run_reference
from t2c.runtime.target import SM90

ONE_THREAD = "nothing here is parallel"
KADANE = "a maximum of running sums (Kadane)"


def _records(k, shape=DEFAULT.scans.running_tile):
    return plan_records(k, lambda an, storage, launch: running_max_of(an, storage, launch, shape, SM90.shared_static))


def _part(text: str) -> str:
    """The part kernel's source in a candidate."""
    return text[text.index("_part("):text.index("_final(")]


def _accepted_at(k, text: str, dataset: str) -> None:
    card = ladder(k, text, backend="emu", dataset=dataset, seed=5)
    assert card.accepted, card.summary()


def _record(rm):
    return (rm.run, rm.best, rm.loop.var, cprint(rm.value), rm.dtype, len(rm.inits), len(rm.fins))


def test_max_running_sum_is_a_running_max():
    k = read_c(ROOT / "corpora" / "loops" / "vectorizer" / "max_running_sum.c")
    assert [_record(r) if r else None for r in _records(k)] == [("run", "m", "i", "a[i]", "double", 2, 1)]
    text = generate(k)
    assert ONE_THREAD not in text and KADANE in text
    assert "_part<<<poly_parts, 256>>>" in text and "_final<<<1, 256>>>" in text
    _accepted(k, text)


def _source(step: str, keep: str, extra: str = "", mini: int = 3000) -> str:
    return f"""/* class: affine
 * t2c: size n MINI={mini} SMALL=4000
 * t2c: array a[n] in
 * t2c: array w[n] in
 * t2c: array out[2] out
 * t2c: domain a uniform(-1, 1)
 * t2c: domain w uniform(0.5, 1.5)
 */
void k(int n, const double *a, const double *w, double *out)
{{
  double run = 0.0, m = a[0] * w[0];
  for (int i = 1; i < n; i++) {{
    {step}
    {keep}{extra}
  }}
  out[0] = m;
  out[1] = run;
}}
"""


@pytest.mark.parametrize("step, keep", [
    ("run = a[i] * w[i] >= run + a[i] * w[i] ? a[i] * w[i] : run + a[i] * w[i];", "if (m < run) m = run;"),
    ("run = fmax(a[i] * w[i], a[i] * w[i] + run);", "m = fmax(m, run);"),
])
def test_several_blocks_and_mirror_forms(tmp_path, step, keep):
    """MINI = 3000: 12 blocks; the loop's final run is read too (out[1])."""
    k = _kernel(tmp_path, _source(step, keep))
    assert [_record(r) if r else None for r in _records(k)] == [("run", "m", "i", "a[i] * w[i]", "double", 2, 2)]
    text = generate(k)
    assert ONE_THREAD not in text and KADANE in text
    _accepted(k, text)


def test_an_empty_loop_still_runs_the_statements_around_it(tmp_path):
    k = _kernel(tmp_path, _source("run = run + a[i] > a[i] ? run + a[i] : a[i];", "if (run > m) m = run;", mini=1))
    text = generate(k)
    assert KADANE in text
    _accepted(k, text)


@pytest.mark.parametrize("step, keep, extra", [
    ("run = run + a[i] > a[i] * run ? run + a[i] : a[i] * run;", "if (run > m) m = run;", ""),   # E reads run
    ("run = run + a[i] > a[i] ? run + a[i] : a[i];", "if (run > m) m = run;", "\n    out[0] = m;"),
    ("run = run + a[i] > a[i] ? run + a[i] : w[i];", "if (run > m) m = run;", ""),   # not max(run + E, E)
])
def test_other_forms_stay_one_thread(tmp_path, step, keep, extra):
    k = _kernel(tmp_path, _source(step, keep, extra, mini=40))
    assert not any(_records(k))
    text = generate(k)
    assert KADANE not in text
    _accepted(k, text)


MAX_RUNNING_SUM = ROOT / "corpora" / "loops" / "vectorizer" / "max_running_sum.c"


def test_the_part_kernel_folds_coalesced_tiles_in_order():
    """The block's range in tiles of 256 x 8: each load instruction reads consecutive i across the
    threads into a padded shared tile; each thread then folds its 8 consecutive slots; the warp's
    lanes join only adjacent runs, left then right; two barriers a tile; no thread walks global
    memory by itself (the chunk per thread of before)."""
    k = read_c(MAX_RUNNING_SUM)
    (rm,) = _records(k)
    assert (rm.threads, rm.items) == (256, 8)
    part = _part(generate(k))
    assert "__launch_bounds__(256)" in generate(k).split("_part(")[0].splitlines()[-1]
    assert "__shared__ double poly_v[2176];" in part                    # 2048 + a slot per 16
    assert part.count("const int poly_j = poly_k * 256 + (int)threadIdx.x, poly_o = poly_t0 + poly_j;") == 2
    load = part.index("poly_r[poly_k] = (double)(a[i]);")               # all of a thread's loads, then
    store = part.index("poly_v[poly_j + (poly_j >> 4)] = poly_r[poly_k];")   # its stores into the tile
    fold = part.index("const int poly_j = (int)threadIdx.x * 8 + poly_k, poly_o = poly_t0 + poly_j;")
    shuffle = part.index("__shfl_down_sync(0xffffffffu, poly_ts, poly_d)")
    assert load < store < fold < shuffle
    assert part.count("a[i]") == 1 and "poly_chunk" not in part           # global memory: the tile loads only
    assert "if (!(poly_o < poly_end && (i < n)))" in part                 # past the end: not folded
    assert "if ((poly_lane & (2 * poly_d - 1)) == 0)" in part
    assert "poly_s = poly_ts + poly_us, poly_p = fmax(poly_tp, poly_ts + poly_up);" in part   # lane l, then l + d
    assert "poly_s = poly_sum + poly_sums[poly_w], poly_p = fmax(poly_pre, poly_sum + poly_pres[poly_w]);" in part
    assert part.count("__syncthreads();") == 2


@pytest.mark.parametrize("dataset", ["SMALL", "MEDIUM"])
def test_max_running_sum_on_emu_at(dataset):
    """MINI is test_max_running_sum_is_a_running_max; MEDIUM: 1024 blocks of 391 elements."""
    k = read_c(MAX_RUNNING_SUM)
    _accepted_at(k, generate(k), dataset)


_FLOAT = """/* class: affine
 * t2c: size n MINI=5003 SMALL=9001
 * t2c: constraint n >= 3
 * t2c: array a[n] in
 * t2c: array w[n] in
 * t2c: array out[2] out
 * t2c: domain a uniform(-1, 1)
 * t2c: domain w uniform(0.5, 1.5)
 */
void k(int n, const float *a, const float *w, float *out)
{
  float run = a[2] * w[2], m = run;
  for (int i = 3; i <= n - 2; i++) {
    run = fmaxf(run + a[i] * w[i], a[i] * w[i]);
    m = fmaxf(m, run);
  }
  out[0] = m;
  out[1] = run;
}
"""


@pytest.mark.parametrize("changes", [
    {},                                                            # a block per 256 i, part of one tile
    {"scans.running_tile": (64, 4), "scans.parts": 3},             # 7 tiles of 256 a block, the last short
    {"scans.running_tile": (96, 3), "scans.parts": 5},             # 3 warps of 3 each: 288, 4 tiles and a tail
])
def test_float_products_from_3_in_tiles_with_a_tail(tmp_path, changes):
    """E = a[i] * w[i] over float (fmaxf), i from 3 to n - 2: a count (n - 4) no tile divides."""
    k = _kernel(tmp_path, _FLOAT)
    shape = changes.get("scans.running_tile", (256, 8))
    assert [_record(r) if r else None for r in _records(k, shape)] == [("run", "m", "i", "a[i] * w[i]", "float", 2, 2)]
    text = generate(k, DEFAULT.replace(changes))
    part = _part(text)
    threads, items = shape
    assert f"__shared__ float poly_v[{threads * items + (threads * items >> 5)}];" in part
    assert "poly_r[poly_k] = (float)(a[i] * w[i]);" in part and "poly_v[poly_j + (poly_j >> 5)] = poly_r[poly_k];" in part
    assert "fmaxf(" in part and "fmax(" not in part
    assert "const int i = 3 + poly_o;" in part and "(i <= (n - 2))" in part
    for dataset in ("MINI", "SMALL"):
        _accepted_at(k, text, dataset)


@pytest.mark.parametrize("shape", [(100, 4), (16, 4), (1024, 8), (256, 0)])
def test_a_tile_that_is_not_whole_warps_or_does_not_fit_is_refused(shape):
    """(1024, 8) doubles: 8192 values, 69 KB of shared memory past a block's static 48 KB."""
    assert _records(read_c(MAX_RUNNING_SUM), shape) == [None]


# -- integers (issue: max_subarray ran on one thread) -----------------------------------------
# Integer tuples carry a flag for the empty segment instead of -INFINITY (no integer sentinel is
# safe: INT64_MIN could be data, and overflows when added); their sums are exact, so outputs must
# be the reference's bits.

MAX_SUBARRAY = ROOT / "corpora" / "text2cuda" / "max_subarray.md"
SMALL_TILES = [{"scans.running_tile": (64, 4), "scans.parts": 3},    # 3 blocks of 1000: 4 tiles, the last short
               {"scans.running_tile": (96, 3), "scans.parts": 5}]    # 5 blocks of 600: 3 warps, 3 tiles


def _long_long(e: str = "a[i]", run: str = "long long") -> str:
    """Kadane over E with `run` locals (long long as written); out[1] reads the loop's final run."""
    return f"""/* class: affine
 * t2c: size n MINI=3001 SMALL=9001
 * t2c: array a[n] in
 * t2c: array b[n] in
 * t2c: array c[n] in
 * t2c: array u[n] in
 * t2c: array out[2] out
 * t2c: domain a integers(-1000000000, 1000000000)
 * t2c: domain b integers(-500000000, 500000000)
 * t2c: domain c integers(-500000000, 500000000)
 * t2c: domain u integers(0, 1000)
 */
void k(int n, const long *a, const int *b, const int *c, const unsigned *u, long *out)
{{
  {run} run = {e.replace("[i]", "[0]")}, m = run;
  for (int i = 1; i < n; i++) {{
    run = run + ({e}) > ({e}) ? run + ({e}) : ({e});
    if (run > m) m = run;
  }}
  out[0] = m;
  out[1] = run;
}}
"""


def test_max_subarray_is_a_running_max_of_long_tuples():
    k = read_kernel(MAX_SUBARRAY)
    (rm,) = _records(k)
    assert _record(rm) == ("run", "m", "i", "x[i]", "long", 2, 1) and rm.flagged
    text = generate(k)
    assert ONE_THREAD not in text and KADANE in text and "-INFINITY" not in text
    assert "__device__ int max_subarray_reduce_best_parts_n[1024];" in text
    part = _part(text)
    assert "__shared__ long poly_v[2176];" in part and "__shared__ int poly_ns[8];" in part
    assert "long poly_ts = 0, poly_tp = 0, poly_tf = 0, poly_tb = 0; int poly_tn = 0;" in part
    assert "if (poly_k == 0) {" in part and "poly_ts = poly_tp = poly_tf = poly_tb = poly_x;" in part
    assert "poly_tp = max(poly_tp, poly_ts);" in part and "fmax" not in text
    assert "const int poly_un = __shfl_down_sync(0xffffffffu, poly_tn, poly_d);" in part
    assert "if (poly_un) {" in part and "if (poly_ns[poly_w]) {" in part    # a join with an empty side keeps the other
    assert "if (poly_ns[0]) {" in text[text.index("_final("):]               # an empty loop: m and run as they were


@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_max_subarray_on_emu_at(dataset):
    k = read_kernel(MAX_SUBARRAY)
    text = generate(k)
    assert KADANE in text
    _accepted_at(k, text, dataset)


@pytest.mark.parametrize("e, run, dtype", [
    ("a[i]", "long long", "long long"),                    # int64 values into int64 runs
    ("b[i] - c[i]", "long long int", "long long int"),     # int values, widened: sums past 32 bits
    ("a[i]", "long", "long"),
    ("b[i]", "int", "int"),
    ("u[i]", "unsigned", "unsigned"),                      # unsigned values and runs: exact too
    ("u[i]", "long long", "long long"),                    # long long + unsigned is long long
])
def test_integer_runs_are_running_maxima(tmp_path, e, run, dtype):
    k = _kernel(tmp_path, _long_long(e, run))
    (rm,) = _records(k)
    assert _record(rm) == ("run", "m", "i", e, dtype, 2, 2) and rm.flagged


@pytest.mark.parametrize("e, run", [
    ("u[i]", "int"),             # int + unsigned is unsigned: `run + E > E` compares wrapped values
    ("a[i] * 0.5", "long"),      # a double E: each step truncates
    ("b[i]", "short"),           # the reference adds in int, then narrows
])
def test_integer_runs_whose_arithmetic_is_not_their_type_stay_one_thread(tmp_path, e, run):
    k = _kernel(tmp_path, _long_long(e, run))
    assert _records(k) == [None]
    assert KADANE not in generate(k)


@pytest.mark.parametrize("e, run", [("b[i] - c[i]", "long long"), ("u[i]", "unsigned")])
def test_integer_kernels_on_emu(tmp_path, e, run):
    """An int E widened into long long runs, and unsigned runs, in small tiles (5 blocks, 3 tiles)."""
    k = _kernel(tmp_path, _long_long(e, run))
    text = generate(k, DEFAULT.replace(SMALL_TILES[1]))
    assert KADANE in text and f"{run} poly_ts = 0" in text and f"__device__ {run} k_" in text
    for dataset in ("MINI", "SMALL"):
        _accepted_at(k, text, dataset)


def _kadane(x) -> tuple[int, int]:
    """(best, final run) in Python's unbounded integers: the answer, independent of any C."""
    run = best = int(x[0])
    for v in x[1:]:
        run = max(run + int(v), int(v))
        best = max(best, run)
    return best, run


@pytest.mark.parametrize("changes", SMALL_TILES)
@pytest.mark.parametrize("which", ["spec", "long long"])
def test_exact_outputs_past_32_bits_and_all_negative(tmp_path, which, changes):
    """Several blocks of several tiles on emu; outputs equal to the bit to Kadane in Python and to
    the reference: values near 1e9 mostly positive (the best sum ~1e12, past 2^32), and values all
    negative (the best is the largest single value; no -inf or INT64_MIN stands in for it)."""
    k = read_kernel(MAX_SUBARRAY) if which == "spec" else _kernel(tmp_path, _long_long())
    name, out = ("x", "best") if which == "spec" else ("a", "out")
    text = generate(k, DEFAULT.replace(changes))
    assert KADANE in text
    build = build_candidate(k, text, "emu")
    rng, n = np.random.default_rng(7), 3001
    cases = {"past 32 bits": rng.integers(-300_000_000, 1_000_000_001, n),
             "all negative": rng.integers(-1_000_000_000, 0, n)}
    for case, x in cases.items():
        sizes = {"n": n}
        inputs = {**synthesize(k, sizes, 1), name: x.astype(np.int64)}
        best, run = _kadane(x)
        assert best > 2 ** 32 if case == "past 32 bits" else best == x.max()
        ref = run_reference(k, sizes, inputs)
        got = run_candidate(k, build, sizes, ref.inputs, mode="device", timeout=120)
        assert got.process.ok, got.process.stderr[-2000:]
        want = [best] if which == "spec" else [best, run]
        assert np.ravel(ref.outputs[out]).tolist() == want, case
        assert np.ravel(got.outputs[out]).tolist() == want, case
