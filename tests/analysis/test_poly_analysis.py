"""The polyhedral model and dependences of known kernels (t2c.analysis)."""
import pytest

from t2ctest import POLYBENCH
from t2c.analysis import NotAffine, analyze, build_program, facts
from t2c.frontends.c import read_c
from t2c.ir import Count, Facts

PATHS = {
    "gemm": "linear-algebra/blas/gemm/gemm.c",
    "jacobi-2d": "stencils/jacobi-2d/jacobi-2d.c",
    "seidel-2d": "stencils/seidel-2d/seidel-2d.c",
    "lu": "linear-algebra/solvers/lu/lu.c",
    "trisolv": "linear-algebra/solvers/trisolv/trisolv.c",
    "symm": "linear-algebra/blas/symm/symm.c",
    "durbin": "linear-algebra/solvers/durbin/durbin.c",
    "ludcmp": "linear-algebra/solvers/ludcmp/ludcmp.c",
}


@pytest.fixture(scope="module")
def analyses():
    return {name: analyze(read_c(POLYBENCH / path)) for name, path in PATHS.items()}


def loops(an):
    """(var, depth, kind) per loop in source order; kind: par | red | seq."""
    return [(l.var, l.depth, "par" if l.parallel else "red" if l.reduction else "seq") for l in an.loops]


def dep_pairs(an, kind):
    return {(a, b) for a, b, _ in an.model.deps_of(an.deps[kind])}


def test_gemm(analyses):
    an = analyses["gemm"]
    # for i { for j S0: C *= beta;  for k for j S1: C += ... }
    assert loops(an) == [("i", 0, "par"), ("j", 1, "par"), ("k", 1, "red"), ("j", 2, "par")]
    assert dep_pairs(an, "flow") == {("S0", "S1"), ("S1", "S1")}
    assert ("S1", "S0") not in dep_pairs(an, "anti")


def test_jacobi_2d(analyses):
    an = analyses["jacobi-2d"]
    assert loops(an) == [("t", 0, "seq"), ("i", 1, "par"), ("j", 2, "par"),
                         ("i", 1, "par"), ("j", 2, "par")]
    # B flows from S0 to S1 in one time step; A flows back from S1 to S0 in the next.
    assert {("S0", "S1"), ("S1", "S0")} <= dep_pairs(an, "flow")
    assert ("S0", "S0") in dep_pairs(an, "output")


def test_seidel_2d(analyses):
    an = analyses["seidel-2d"]
    assert [(v, d, k != "par") for v, d, k in loops(an)] == [("t", 0, True), ("i", 1, True), ("j", 2, True)]
    assert not any(l.reduction for l in an.loops)      # it reads neighbours: not a reduction
    assert dep_pairs(an, "flow") == {("S0", "S0")}


def test_lu(analyses):
    an = analyses["lu"]
    # i: pivots; the L part (j < i) is a recurrence along j; the U part (j >= i) is parallel.
    assert loops(an) == [("i", 0, "seq"), ("j", 1, "seq"), ("k", 2, "red"), ("j", 1, "par"), ("k", 2, "red")]


def test_trisolv(analyses):
    an = analyses["trisolv"]
    assert loops(an) == [("i", 0, "seq"), ("j", 1, "red")]
    assert ("S2", "S1") in dep_pairs(an, "flow")       # x[j] of an earlier row feeds the sum


def test_scalar_webs(analyses):
    symm = analyses["symm"].webs
    assert symm["temp2"].private == ("i", "j")          # privatized per (i, j): j runs in parallel
    durbin = analyses["durbin"].webs
    assert durbin["alpha"].private == () and durbin["beta"].private == ()   # carried across k
    assert durbin["sum"].private == ("k",)
    ludcmp = analyses["ludcmp"].webs
    assert sorted(ludcmp) == ["w", "w_2", "w_3", "w_4"]  # one live range per loop nest
    assert ludcmp["w_2"].private == ("i", "j")


def write(tmp_path, body):
    p = tmp_path / "k.c"
    p.write_text(body)
    return read_c(p)


def test_not_affine(tmp_path):
    k = write(tmp_path, "void k(int n, double A[n], int idx[n]) {\n  int i;\n"
                        "  for (i = 0; i < n; i++)\n    A[i] = A[idx[i]] + 1.0;\n}\n")
    with pytest.raises(NotAffine, match="subscript of 'A'"):
        build_program(k)
    assert facts(k, "MINI") == Facts(affine=False)
    k = write(tmp_path, "void k(int n, double A[n]) {\n  int i = 0;\n"
                        "  while (i < n) { i++; A[i - 1] = 0.0; }\n}\n")   # stepped first: not a counted loop
    with pytest.raises(NotAffine, match="while"):
        build_program(k)


def test_facts_and_counts(analyses):
    from t2c.analysis.cost import counts
    k = read_c(POLYBENCH / PATHS["gemm"])
    f = facts(k, "SMALL")
    assert f.affine and "i@0" in f.parallel_loops and "k@1" not in f.parallel_loops
    assert f.counts == tuple(Count(d, *counts(analyses["gemm"], k.dataset_sizes(d))) for d in ("MINI", "SMALL"))
    flops, nbytes, bounded = counts(analyses["gemm"], {"ni": 2, "nj": 3, "nk": 4})
    assert flops == 2 * 3 * 1 + 2 * 3 * 4 * 3               # C *= beta; C += alpha * A * B
    assert nbytes > 0 and not bounded


def test_band_bounds_and_input_reads(analyses, tmp_path):
    """Model.band_bounds: symm's update `C[k][j] += ...` (i, j, k with k < i) in the order (k, j, i)
    runs k from 0 to m - 2 and i from k + 1 (isl's projection); a bound that would need a max or
    a coefficient other than 1 gives None.  Model.input_reads: trmm's B[k][j] (k > i) reads only
    values the call passed, its accumulation B[i][j] does not."""
    an = analyses["symm"]
    assert an.model.band_bounds(["S1"], (), ("k", "j", "i")) == [("0", "m - 2"), ("0", "n - 1"), ("k + 1", "m - 1")]
    assert an.model.band_bounds(["S1"], ("i",), ("k", "j")) == [("0", "i - 1"), ("0", "n - 1")]
    assert an.model.band_bounds(["S0", "S1"], (), ("j", "i")) is None      # S0 runs for i = 0 too
    p = tmp_path / "k.c"
    p.write_text("void k(int n, double A[n][n]) {\n  int i, j;\n  for (j = 0; j < n; j++)\n"
                 "    for (i = 2 * j; i < n; i++)\n      A[i][j] += 1.0;\n}\n")
    skew = analyze(read_c(p))
    assert skew.model.band_bounds(["S0"], (), ("i", "j")) is None          # 2 j <= i: coefficient 2
    assert skew.model.band_bounds(["S0"], (), ("j", "i")) is None          # 2 j <= n - 1 as well
    trmm = analyze(read_c(POLYBENCH / "linear-algebra/blas/trmm/trmm.c"))
    schedule = trmm.schedule(trmm.program.body)
    s0 = trmm.program.statements[0]
    reads = [(s0.name, "B", ("k", "j")), (s0.name, "B", ("i", "j"))]
    assert trmm.model.input_reads(reads, schedule) == {reads[0]}
