"""Tables in shared memory (slabs.Table, `grid.tables`): an array a plain grid launch never writes,
read only in the threads' loops at cells that name no grid index (every thread of a block reads the
same cells), is copied whole into the launch's dynamic shared memory once per block, after the
staged rows, before the guard, and read there where rows and tables fit (`poly_tables`, decided
at run time). The plan records on k-means' centres and on C kernels written here (a polynomial's
points, projection bases, a 1-d filter's weights with no rows at all); refusals; the emitted shape;
the kernels on the emu and their outputs bit for bit where the tables fit and where they do not."""
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

from test_poly_slab_registers import KMEANS, POLYVAL, PROJECT

#: a 1-d filter: its weights are the only table and nothing is staged by rows
FILTER = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=1000000 EXTRALARGE=4000000 */
/* t2c: size m MINI=5 SMALL=9 MEDIUM=12 LARGE=12 EXTRALARGE=12 */
void filter(int n, int m, const float x[n + m], const float w[m], float y[n])
{
  for (int p = 0; p < n; p++) {
    float acc = 0.0f;
    for (int j = 0; j < m; j++)
      acc = acc * 0.5f + w[j] * x[p + j];
    y[p] = acc;
  }
}
"""

#: t's row 0 is read by every thread in its loop, but the launch writes row 1 (each thread its own cell)
WRITTEN = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=100000 EXTRALARGE=100000 */
void written(int n, double t[2][n], double y[n])
{
  for (int p = 0; p < n; p++) {
    double acc = 0.0;
    for (int j = 0; j < n; j++)
      acc = acc * 0.5 + t[0][j];
    y[p] = acc;
    t[1][p] = acc;
  }
}
"""

#: x is read at x[j] in the loop and at the thread's own x[p]
OWN_CELL = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=100000 EXTRALARGE=100000 */
void own_cell(int n, const double x[n], double y[n])
{
  for (int p = 0; p < n; p++) {
    double acc = 0.0;
    for (int j = 0; j < n; j++)
      acc = acc * 0.5 + x[j] * x[p];
    y[p] = acc;
  }
}
"""

#: t also read outside the loops (once per thread): not a table; the staged rows stay
OUTSIDE = POLYVAL.replace("y[p] = acc;", "y[p] = acc * t[0];")

TEXTS = {"polyval": POLYVAL, "project": PROJECT, "filter": FILTER, "written": WRITTEN, "own_cell": OWN_CELL,
         "outside": OUTSIDE}


def _kernel(which, tmp_path):
    return c_kernel(tmp_path, TEXTS[which], which) if which in TEXTS else read_kernel(ROOT / which)


def _slabs(k, options=DEFAULT) -> list:
    _, plan = final_plan(analyze(k), options)
    return [l.slab for l in plan.launches if l.slab]


def _kernel_text(text: str) -> str:
    return text[text.index("__global__"):text.index('extern "C"')]


@pytest.mark.parametrize("which, rows, tables", [
    (KMEANS, ["pts"], [("ctr", "double", ("nc", "d"), "nc * d", "poly_table0")]),
    ("polyval", ["coef"], [("t", "double", ("m",), "m", "poly_table0")]),
    ("project", ["coef"], [("basis", "float", ("m", "d"), "m * d", "poly_table0")]),
    ("filter", [], [("w", "float", ("m",), "m", "poly_table0")]),        # a slab of tables only
])
def test_an_array_every_thread_reads_in_its_loops_is_a_table(which, rows, tables, tmp_path):
    slab, = _slabs(_kernel(which, tmp_path))
    assert [r.array for r in slab.rows] == rows
    assert [(t.array, t.dtype, t.shape, t.extent, t.buffer) for t in slab.tables] == tables


@pytest.mark.parametrize("which", ["written", "own_cell"])
def test_a_written_array_or_one_read_at_the_grid_index_is_no_table(which, tmp_path):
    assert _slabs(_kernel(which, tmp_path)) == []
    assert "poly_table" not in generate(_kernel(which, tmp_path), DEFAULT)


def test_an_array_also_read_outside_the_loops_is_no_table(tmp_path):
    slab, = _slabs(_kernel("outside", tmp_path))
    assert [r.array for r in slab.rows] == ["coef"] and slab.tables == ()


def test_off_no_table_and_the_rows_as_before():
    k = read_kernel(ROOT / KMEANS)
    off = DEFAULT.replace({"grid.tables": False})
    slab, = _slabs(k, off)
    assert slab.tables == () and [r.array for r in slab.rows] == ["pts"]
    text = generate(k, off)
    assert "poly_table" not in text and "int poly_staged)" in text and "__syncthreads();\n  }\n  if (!(" in text


def test_the_table_is_copied_before_the_guard_and_read_from_shared_memory():
    text = generate(read_kernel(ROOT / KMEANS), DEFAULT)
    body = _kernel_text(text)
    assert "int *label, int poly_staged, int poly_tables)" in body
    # after the rows where they are staged, 8-byte aligned
    assert "double *const poly_table0 = (double *)((char *)poly_slab + (poly_staged ? ((size_t)blockDim.x * " \
           "(d | 1) * sizeof(double) + 7) / 8 * 8 : 0));" in body
    copy = body.index("for (int poly_e = (int)threadIdx.x; poly_e < nc * d; poly_e += (int)blockDim.x)\n"
                      "      poly_table0[poly_e] = ctr[poly_e];")
    # one barrier for the rows and the tables, met by every thread before the guard
    assert body.count("__syncthreads();") == 1
    assert body.index("if (poly_staged) {") < copy < body.index("if (poly_staged || poly_tables)\n    __syncthreads();") \
        < body.index("return;")
    # every read of ctr after the guard reads the copy where it was made
    shared = "((poly_tables) ? (poly_table0[(c * d) + k]) : (ctr[(c * d) + k]))"
    after = body[body.index("return;"):]
    assert after.count(shared) == 4 and after.count("ctr[") == 4
    # the host: the tables' bytes after the rows', within the rows' limit
    assert "const size_t poly_table = ((size_t)(nc) * (size_t)(d) * sizeof(double) + 7) / 8 * 8;" in text
    assert "const int poly_tables = (size_t)(nc) * (size_t)(d) >= 16 && (poly_staged ? poly_slab : 0) + poly_table <= 49152;" in text
    assert "<<<grid, block, (poly_staged ? poly_slab : 0) + (poly_tables ? poly_table : 0)>>>" \
           "(np, nc, d, pts, ctr, label, poly_staged, poly_tables);" in text


def test_a_launch_of_tables_only_has_one_flag(tmp_path):
    text = generate(_kernel("filter", tmp_path), DEFAULT)
    body = _kernel_text(text)
    assert "float *y, int poly_tables)" in body and "poly_staged" not in text
    assert "float *const poly_table0 = (float *)((char *)poly_slab + 0);" in body
    assert body.index("poly_table0[poly_e] = w[poly_e];") < body.index("if (poly_tables)\n    __syncthreads();") \
        < body.index("return;")
    assert "((poly_tables) ? (poly_table0[j]) : (w[j]))" in body
    assert "const int poly_tables = (size_t)(m) >= 16 && poly_table <= 49152;" in text
    assert "<<<grid, block, poly_tables ? poly_table : 0>>>" in text


def test_a_register_accumulators_loop_reads_the_table(tmp_path):
    """project's y[p] stays in a register across its k loop, with and without the row's registers."""
    for options in (DEFAULT, DEFAULT.replace({"grid.row_registers": None})):
        body = _kernel_text(generate(_kernel("project", tmp_path), options))
        assert "/* the cell stays in a register */" in body
        assert "((poly_tables) ? (poly_table0[(j * d) + k]) : (basis[(j * d) + k]))" in body
        after = body[body.index("return;"):]
        assert "basis[" not in after.replace("(basis[(j * d) + k])", "")


def test_the_kernel_is_accepted_on_emu(tmp_path):
    """The tables-only filter here; kmeans, polyval and project (tables beside their rows) run the
    same candidates in test_poly_slab_registers.py's emu test."""
    for which in (KMEANS, "polyval", "project"):
        assert "poly_table0" in generate(_kernel(which, tmp_path), DEFAULT)
    k = _kernel("filter", tmp_path)
    accepted_on_emu(k, generate(k, DEFAULT))


@pytest.mark.parametrize("which, out, sizes", [
    (KMEANS, "label", {"np": 1000, "nc": 6, "d": 3}),     # rows in registers, not staged; the table staged
    (KMEANS, "label", {"np": 1000, "nc": 5, "d": 21}),    # rows and table staged: 43008 + 840 bytes
    (KMEANS, "label", {"np": 1000, "nc": 40, "d": 21}),   # rows staged, the table past the rest: 43008 + 6720
    (KMEANS, "label", {"np": 1000, "nc": 5, "d": 51}),    # rows past the limit, the table alone staged
    (KMEANS, "label", {"np": 1000, "nc": 200, "d": 40}),  # neither: 83968 and 64000 bytes
    ("filter", "y", {"n": 1000, "m": 40}),                # the table staged
    ("filter", "y", {"n": 1000, "m": 9}),                 # fewer than TABLE_MIN elements: read from global memory
    ("filter", "y", {"n": 1000, "m": 12300}),             # the table past the limit: 49200 bytes
], ids=["kmeans table", "kmeans rows and table", "kmeans rows, table global", "kmeans table, rows global",
        "kmeans all global", "filter table", "filter table too small", "filter table global"])
def test_outputs_are_the_references_bits_where_the_tables_fit_and_where_they_do_not(which, out, sizes, tmp_path):
    """1000 points: the last block holds 232; the same values read, so the same bits."""
    k = _kernel(which, tmp_path)
    ref = run_reference(k, sizes, synthesize(k, sizes, 5))
    run = run_candidate(k, build_candidate(k, generate(k, DEFAULT), "emu"), sizes, ref.inputs, mode="device",
                        timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert np.array_equal(run.outputs[out], ref.outputs[out])
