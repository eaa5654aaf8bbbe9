"""Counts of kernels that read through data (analysis.cost): a gather, a loop kept whole because
its bounds come from data (CSR rows, bags).  Their arrays count at most their whole extents, the
body flops of a loop kept whole are left out, and `bounded` says the counts are bounds; affine
kernels keep their exact counts with the flag clear."""
import pytest

from t2c.analysis import analyze, facts
from t2c.analysis.cost import counts
from t2c.frontends import read_kernel
from t2c.frontends.c import read_c
from t2c.ir import from_yaml, to_yaml
from t2c.verify import rungs
from t2c.verify.evidence import rates
from t2ctest import POLYBENCH, ROOT

LOOPS = ROOT / "corpora" / "loops"


def _mini(path):
    k = read_c(path)
    return counts(analyze(k), k.dataset_sizes("MINI"))


@pytest.mark.parametrize("path, flops, nbytes", [
    # n=20, nnz=100: row_ptr 21 ints, col 100 ints, val 100 doubles, x 20 doubles (whole
    # extents: read through col), y 20 doubles; s += val[k] * x[col[k]] runs an unknown count
    ("gpu/spmv_csr.c", 0, 21 * 4 + 100 * 4 + 100 * 8 + 20 * 8 + 20 * 8),
    # nb=6, ni=30, rows=10, dim=4: offsets 7, idx 30, table 10 x 4, out 6 x 4 floats
    ("gpu/embedding_bag.c", 0, (7 + 30 + 40 + 24) * 4),
    # nv=20, ne=80: start 21 and src 80 ints, deg 20 ints, rank 20 and next 20 doubles; the
    # flops of next[v] = (1 - d) / nv + d * s alone
    ("rodinia/pagerank_pull.c", 4 * 20, (21 + 80 + 20) * 4 + (20 + 20) * 8),
])
def test_reads_through_a_loop_kept_whole_count_whole_extents(path, flops, nbytes):
    assert _mini(LOOPS / path) == (flops, nbytes, True)


def test_a_gather_counts_at_most_one_element_per_instance(tmp_path):
    """y[i] = t[idx[i]]: at most n elements of t (n < m), at most its extent m (n > m)."""
    path = tmp_path / "g.c"
    path.write_text("""\
/* t2c: size n MINI=8 SMALL=100
 * t2c: size m MINI=50 SMALL=30
 * t2c: array t[m] in
 * t2c: array idx[n] in
 * t2c: array y[n] out
 * t2c: domain idx integers(0, m - 1)
 */
void g(int n, int m, const double *t, const int *idx, double *y)
{
  for (int i = 0; i < n; i++)
    y[i] = t[idx[i]];
}
""")
    k = read_c(path)
    an = analyze(k)
    assert counts(an, k.dataset_sizes("MINI")) == (0, 8 * 8 + 8 * 4 + 8 * 8, True)
    assert counts(an, k.dataset_sizes("SMALL")) == (0, 30 * 8 + 100 * 4 + 100 * 8, True)


def test_a_spec_gathering_rows_counts_one_element_per_instance():
    """out[i, k] = table[ids[i], k], t=7, v=10, d=4: 7 x 4 instances read at most 28 of the 40
    table elements; ids 7 ints, out 28 floats."""
    k = read_kernel(ROOT / "corpora" / "text2cuda" / "embedding_gather.md")
    assert counts(analyze(k), k.dataset_sizes("MINI")) == (0, (28 + 7 + 28) * 4, True)


def test_a_gather_from_an_array_read_whole_anyway_is_exact():
    """cross_entropy reads every x[i][j] affinely; x[i][label[i]] adds no element."""
    k = read_c(LOOPS / "gpu" / "cross_entropy.c")
    flops, nbytes, bounded = counts(analyze(k), k.dataset_sizes("MINI"))
    assert not bounded and nbytes == 736


@pytest.mark.parametrize("path, exact", [
    ("linear-algebra/blas/gemm/gemm.c", (45500, 18800)),
    ("linear-algebra/kernels/atax/atax.c", (6384, 14384)),
    ("stencils/jacobi-2d/jacobi-2d.c", (282240, 26880)),
])
def test_affine_kernels_keep_their_exact_counts(path, exact):
    assert _mini(POLYBENCH / path) == (*exact, False)


def test_the_flag_reaches_the_facts_and_the_bench_figures(monkeypatch):
    k = read_c(LOOPS / "gpu" / "spmv_csr.c")
    mini = k.dataset_sizes("MINI")
    f = facts(k, "MINI")
    assert f.counts[0].bounded and from_yaml(to_yaml(k.replace(facts=f))).facts == f
    monkeypatch.setattr(rungs, "_LAST_COUNTS", {})
    assert rungs._counts(k, mini) == {"flops": 0, "bytes": 1604, "counts_bounded": True}
    assert rungs._counts(k.replace(facts=f), mini) == rungs._counts(k, mini)
    timing = {"kernel_ms": {"median": 1.0}, "flops": 0, "bytes": 1604}
    assert "counts_bounded" not in rates(timing)
    assert rates(timing | {"counts_bounded": True})["counts_bounded"]
