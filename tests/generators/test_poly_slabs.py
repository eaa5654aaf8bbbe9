"""Rows in shared memory (slabs.py, `grid.rows`): a plain launch over one grid index whose threads
read their own row of an array in a loop (`pts[p][k]`), or most of a short row's columns (an array
of structures), copies the block's rows into shared memory first, coalesced, and reads them from
there.  The class on the loops corpus (k-means, Livermore 9), on PolyBench (deriche's row pass), on
a spec (with no sweep to take it) and on C kernels written here;
refusals; the kernels on the emu, with rows that fit and rows that do not (global reads)."""
import numpy as np
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.lower import final_plan
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

HORNER = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=1000000 EXTRALARGE=4000000 */
/* t2c: size m MINI=5 SMALL=9 MEDIUM=12 LARGE=12 EXTRALARGE=12 */
void horner(int n, int m, const double x[n], const float coef[n][m], const double d2[n][m], double y[n])
{
  for (int p = 0; p < n; p++) {
    double acc = 0.0;
    for (int k = 0; k < m - 1; k++)
      acc = acc * x[p] + coef[p][k + 1] - coef[p][k] + d2[p][k];
    y[p] = acc;
  }
}
"""

SPEC = """---
name: nearest_dist
sizes:
  n: {MINI: 40, SMALL: 2000, MEDIUM: 100000, LARGE: 1000000, EXTRALARGE: 4000000}
  c: {MINI: 4, SMALL: 8, MEDIUM: 16, LARGE: 16, EXTRALARGE: 32}
  d: {MINI: 3, SMALL: 8, MEDIUM: 16, LARGE: 16, EXTRALARGE: 16}
arrays:
  P: float[n, d] in
  C: float[c, d] in
  best: float[n] out
---
# Distance to the nearest centre

```t2c
best[p] = min(q: sum(k: (P[p, k] - C[q, k]) * (P[p, k] - C[q, k])))
```
"""

WRITTEN = """/* t2c: size n MINI=30 SMALL=300 MEDIUM=3000 LARGE=30000 EXTRALARGE=60000 */
/* t2c: size m MINI=5 SMALL=9 MEDIUM=12 LARGE=12 EXTRALARGE=12 */
void scale(int n, int m, const double x[n], double a[n][m])
{
  for (int p = 0; p < n; p++)
    for (int k = 1; k < m; k++)
      a[p][k] = a[p][k - 1] * x[p];
}
"""

COLUMN = """/* t2c: size n MINI=30 SMALL=300 MEDIUM=3000 LARGE=30000 EXTRALARGE=60000 */
/* t2c: size m MINI=5 SMALL=9 MEDIUM=12 LARGE=12 EXTRALARGE=12 */
void column(int n, int m, const double a[m][n], double y[n])
{
  for (int p = 0; p < n; p++) {
    double acc = 0.0;
    for (int k = 0; k < m; k++)
      acc = acc * 0.5 + a[k][p];              /* consecutive threads, consecutive elements already */
    y[p] = acc;
  }
}
"""

AOS = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=1000000 EXTRALARGE=4000000 */
void aos(int n, float a[n][4], float b[n])
{
  for (int p = 0; p < n; p++) {
    b[p] = a[p][1] * a[p][2] - a[p][3];
    a[p][0] = a[p][1] + a[p][2] + a[p][3];
  }
}
"""

ONE_FIELD = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=1000000 EXTRALARGE=4000000 */
void field(int n, const float a[n][4], float b[n])
{
  for (int p = 0; p < n; p++)
    b[p] = 2.0f * a[p][1];
}
"""

#: rows of 40 doubles: 256 x 41 x 8 bytes, past the 48 KiB a block's rows may take
LONG_ROWS = HORNER.replace("MINI=5 SMALL=9", "MINI=40 SMALL=41")


def _kernel(which, tmp_path):
    if which == "spec":
        path = tmp_path / "nearest_dist.md"
        path.write_text(SPEC)
        return read_kernel(path)
    if which == "aos":
        return c_kernel(tmp_path, AOS, "aos")
    if which in ("horner", "long rows"):
        return c_kernel(tmp_path, HORNER if which == "horner" else LONG_ROWS, "horner")
    return read_kernel(ROOT / which)


NO_SWEEPS = DEFAULT.replace({"sweeps": None})


def _slabs(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    return {l.name: l.slab for l in plan.launches if l.slab}


@pytest.mark.parametrize("which, options, arrays, reads", [
    ("corpora/loops/rodinia/kmeans_assign.c", DEFAULT, ["pts"], {"pts[p][k]"}),
    # deriche's row pass writes its rows too: strips (test_poly_strips.py), unless they are off
    ("corpora/polybench/medley/deriche/deriche.c", DEFAULT.replace({"grid.strips": None}), ["imgIn"], {"imgIn[i][j]"}),
    ("spec", NO_SWEEPS, ["P"], {"P[p][k]"}),
    ("horner", DEFAULT, ["d2", "coef"], {"coef[p][k + 1]", "coef[p][k]", "d2[p][k]"}),   # doubles first
    # loop-free: most of a short row's columns (an array of structures); a written column is not staged
    ("corpora/loops/livermore/integrate_predictors.c", DEFAULT, ["px"], {f"px[i][{c}]" for c in (2, *range(4, 13))}),
    ("aos", DEFAULT, ["a"], {"a[p][1]", "a[p][2]", "a[p][3]"}),
])
def test_a_threads_own_row_read_in_its_loop_goes_through_shared_memory(which, options, arrays, reads, tmp_path):
    slabs = _slabs(_kernel(which, tmp_path), options)
    slab, = slabs.values()
    assert [r.array for r in slab.rows] == arrays
    assert slab.reads == reads
    assert [r.buffer for r in slab.rows] == [f"poly_rows{i}" for i in range(len(arrays))]


@pytest.mark.parametrize("text", [WRITTEN, COLUMN, ONE_FIELD], ids=["written in the launch", "a column", "one field of four"])
def test_reads_outside_the_class_stay_global(text, tmp_path):
    assert _slabs(c_kernel(tmp_path, text)) == {}


def test_a_constant_column_read_in_a_loop_stays_global():
    """nbody's own position `p[i][0]` inside its loop over j: read once and kept in a register (its
    masses `m[j]` are a table: test_poly_slab_tables.py)."""
    assert all(not s.rows for s in _slabs(read_kernel(ROOT / "corpora/loops/rodinia/nbody.c")).values())


def test_a_staged_launch_takes_one_index_per_thread():
    k = read_kernel(ROOT / "corpora/loops/livermore/integrate_predictors.c")
    _, plan = final_plan(analyze(k), DEFAULT)
    launch, = plan.launches
    assert launch.slab is not None and launch.coarsen == 1
    _, plan = final_plan(analyze(k), DEFAULT.replace({"grid.rows": False}))
    assert plan.launches[0].coarsen == DEFAULT.grid.coarsen


def test_off_no_launch_has_rows_in_shared_memory():
    k = read_kernel(ROOT / "corpora/loops/rodinia/kmeans_assign.c")
    assert all(not s.rows for s in _slabs(k, DEFAULT.replace({"grid.rows": False})).values())
    assert _slabs(k, DEFAULT.replace({"grid.rows": False, "grid.tables": False})) == {}
    assert "poly_staged" not in generate(k, DEFAULT.replace({"grid.rows": False}))


def test_the_rows_are_copied_before_the_guard_and_the_barrier_is_met_by_every_thread(tmp_path):
    text = generate(_kernel("horner", tmp_path), DEFAULT)
    body = text[text.index("__global__"):text.index('extern "C"')]
    assert body.index("__syncthreads();") < body.index("return;")
    assert "poly_staged ? poly_slab : 0" in text and "poly_slab <= 49152" in text


@pytest.mark.parametrize("which", ["corpora/loops/rodinia/kmeans_assign.c", "horner", "long rows", "aos",
                                   "corpora/loops/livermore/integrate_predictors.c"])
def test_the_kernel_is_accepted_on_emu(which, tmp_path):
    k = _kernel(which, tmp_path)
    accepted_on_emu(k, generate(k, DEFAULT))


def test_the_spec_without_sweeps_is_accepted_on_emu(tmp_path):
    k = _kernel("spec", tmp_path)
    accepted_on_emu(k, generate(k, NO_SWEEPS))


@pytest.mark.parametrize("rows", [9, 41], ids=["rows in shared memory", "rows past the slab: global reads"])
def test_outputs_are_the_references_bits_past_a_partial_last_block(rows, tmp_path):
    """n = 1000: the last block holds 232 points; the same operations in the same order."""
    k = _kernel("horner", tmp_path)
    sizes = {"n": 1000, "m": rows}
    ref = run_reference(k, sizes, synthesize(k, sizes, 5))
    run = run_candidate(k, build_candidate(k, generate(k, DEFAULT), "emu"), sizes, ref.inputs, mode="device",
                        timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert np.array_equal(run.outputs["y"], ref.outputs["y"])
