"""The host reference driver: inputs in, outputs out, failures contained."""
import numpy as np
import pytest

from t2ctest import POLYBENCH
from t2c.errors import UserError
from t2c.frontends.c import read_c
from t2c.verify.inputs import synthesize
from t2c.verify.reference import ReferenceFailed, eval_extent, run_reference

GEMM = POLYBENCH / "linear-algebra/blas/gemm/gemm.c"


def test_gemm_reference_matches_numpy_on_random_inputs():
    k = read_c(GEMM)
    sizes = {"ni": 7, "nj": 5, "nk": 3}
    inputs = synthesize(k, sizes, seed=42)
    run = run_reference(k, sizes, inputs)
    expected = inputs["alpha"] * inputs["A"] @ inputs["B"] + inputs["beta"] * inputs["C"]
    np.testing.assert_allclose(run.outputs["C"], expected, rtol=1e-12)
    assert run.seconds >= 0


def test_original_init_is_used_without_inputs():
    k = read_c(GEMM)
    run = run_reference(k, k.dataset_sizes("MINI"))
    assert run.inputs["alpha"] == 1.5 and run.inputs["beta"] == 1.2
    assert run.inputs["A"].shape == (20, 30)


def test_synthesis_is_seeded():
    k = read_c(GEMM)
    sizes = {"ni": 4, "nj": 4, "nk": 4}
    a, b, c = (synthesize(k, sizes, s) for s in (1, 1, 2))
    assert all(np.array_equal(a[n], b[n]) for n in a)
    assert not np.array_equal(a["A"], c["A"])


def test_constraints_are_checked():
    k = read_c(GEMM)
    with pytest.raises(UserError, match="constraint 'ni >= 1'"):
        run_reference(k, {"ni": 0, "nj": 2, "nk": 2}, synthesize(k, {"ni": 1, "nj": 2, "nk": 2}, 0))


def test_a_crashing_reference_is_contained(tmp_path):
    src = tmp_path / "bad.c"
    src.write_text("void boom(int n, double x[n])\n{\n  for (int i = 0; i < n; i++)\n"
                   "    x[i] = 1.0;\n}\n")
    # The frontend refuses a write outside x's extent; a reference changed after it (a mutant,
    # a hand-edited IS) still only costs its own process.
    k = read_c(src)
    k = k.replace(reference=k.reference.replace("x[i]", "x[i * 100000000]"))
    with pytest.raises(ReferenceFailed, match="signal"):
        run_reference(k, {"n": 5}, {"x": np.zeros(5)})


def test_extent_expressions():
    assert eval_extent("n * n + 1", {"n": 4}) == 17
    assert eval_extent("(n - 1) / 2", {"n": 8}) == 3
    with pytest.raises(UserError):
        eval_extent("__import__('os')", {"n": 1})


def test_a_local_array_past_the_default_stack_runs(tmp_path):
    """A variable-length local of 18 MB (a spec temporary at LARGE, a C function's VLA): with the
    default 8 MiB stack the reference crashed and the candidate was blamed."""
    from t2ctest import c_kernel
    k = c_kernel(tmp_path, """
/* t2c: size n MINI=4
 * t2c: array x[n][n] in
 * t2c: array y[n][n] out */
void bigstack(int n, const double x[n][n], double y[n][n])
{
  double t[n][n];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      t[i][j] = 2.0 * x[i][j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      y[i][j] = t[j][i];
}
""", "bigstack")
    ins = synthesize(k, {"n": 1500}, 1)
    run = run_reference(k, {"n": 1500}, ins)
    np.testing.assert_array_equal(run.outputs["y"], 2.0 * ins["x"].T)
