"""Rows whose bounds are read from arrays the nest never writes (reduce.data_row_of): CSR
`for (k = row_ptr[i]; k < row_ptr[i + 1]; k++) s += val[k] * x[col[k]];`, a graph's in-edges,
a row's maximum over its nonzeros.  The analysis keeps such a loop whole (one opaque statement
per row); the plan gives the launch the lanes-per-row form anyway (`options.reductions.rows.
data_lanes` lanes striding the row's range, a shuffle tree, lane 0 finishing the row), where a
thread per row read addresses a row apart.  Read from the plan, accepted by the emu ladder."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT

ROW_MAX = """/* t2c: size n MINI=12 SMALL=500
 * t2c: size nnz MINI=60 SMALL=4000
 * t2c: array row_ptr[n + 1] in
 * t2c: array val[nnz] in
 * t2c: array top[n] out
 * t2c: domain row_ptr offsets(0, nnz)
 */
void row_max(int n, int nnz, const int *row_ptr, const double *val, double *top)
{
  for (int i = 0; i < n; i++) {
    double m = -1.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++)
      m = fmax(m, val[k]);
    top[i] = 2.0 * m;
  }
}
"""

FIRST_NEGATIVE = """/* t2c: size n MINI=12 SMALL=500
 * t2c: size nnz MINI=60 SMALL=4000
 * t2c: array row_ptr[n + 1] in
 * t2c: array val[nnz] in
 * t2c: array out[n] out
 * t2c: domain row_ptr offsets(0, nnz)
 */
void first_negative(int n, int nnz, const int *row_ptr, const double *val, double *out)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
      if (val[k] < 0.0)
        break;
      s += val[k];
    }
    out[i] = s;
  }
}
"""


def _kernel(source, tmp_path):
    return read_kernel(ROOT / source) if source.endswith(".c") else \
        c_kernel(tmp_path, source, source.split("void ")[1].split("(")[0])


@pytest.mark.parametrize("source, op", [("corpora/loops/gpu/spmv_csr.c", "+="),
                                        ("corpora/loops/rodinia/pagerank_pull.c", "+="), (ROW_MAX, "max")],
                         ids=["spmv_csr", "pagerank_pull", "row_max"])
def test_a_row_read_from_arrays_is_reduced_by_lanes(source, op, tmp_path):
    k = _kernel(source, tmp_path)
    _, plan = final_plan(analyze(k), DEFAULT)
    (launch,) = plan.launches
    row = launch.row
    assert row is not None and row.data and not row.column and row.op == op
    assert row.lanes == DEFAULT.reductions.rows.data_lanes and len(row.pre) == 1 and len(row.post) == 1
    text = generate(k)
    assert f"{row.loop.var} += {row.lanes})" in text        # the lanes stride the row's range
    accepted_on_emu(k, text)


def test_the_lanes_per_data_row_follow_the_option(tmp_path):
    k = read_kernel(ROOT / "corpora/loops/gpu/spmv_csr.c")
    opt = DEFAULT.replace({"reductions.rows.data_lanes": 32})
    _, plan = final_plan(analyze(k), opt)
    assert plan.launches[0].row.lanes == 32
    accepted_on_emu(k, generate(k, opt))


@pytest.mark.parametrize("source", ["corpora/loops/gpu/embedding_bag.c", FIRST_NEGATIVE],
                         ids=["embedding_bag", "break"])
def test_other_data_rows_keep_a_thread_per_row(source, tmp_path):
    """embedding_bag's (b, d) grid reads table[idx[j] * dim + d], coalesced across d already; a
    row that may stop early (a data-dependent break) is no fold of the whole range."""
    k = _kernel(source, tmp_path)
    _, plan = final_plan(analyze(k), DEFAULT)
    assert not any(l.row for l in plan.launches)
