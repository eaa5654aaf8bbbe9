"""Dot-product nests written with a scalar accumulator (`double s = 0; for p: s += A[i][p] *
B[p][j]; C[i][j] = s;`, the form users write and the form specs lower `sum(p: ...)` to, float
products summed in double) take the staged tile like gemm.c's `C[i][j] += ...`: each staged
operand's shared array has the operand's own type (float stays float, summed in double as the
reference does), and only operands in double go to the tensor cores."""
import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT


def _launch(path, name):
    _, plan = final_plan(analyze(read_kernel(ROOT / path)), DEFAULT)
    return next(l for l in plan.launches if l.name == name)


@pytest.mark.parametrize("path, name, batched", [
    ("corpora/text2cuda/gemm.md", "gemm_update_C", False),
    ("corpora/text2cuda/linear_relu.md", "linear_relu_update_Y", False),       # W[j, p]: read transposed
    ("corpora/text2cuda/batched_gemm.md", "batched_gemm_update_C", True),      # a tile per batch on z
    ("corpora/loops/gpu/mixed_matmul.c", "mixed_matmul_update_c", False),
])
def test_float_products_summed_in_a_double_scalar_are_a_staged_float_tile(path, name, batched):
    launch = _launch(path, name)
    assert launch.staged and launch.tile and not launch.mma        # float stays float: no tensor cores
    assert launch.rect and len(launch.grid) == (3 if batched else 2)
    (staged,) = launch.staged.values()
    assert staged.dtype == "double" and {op.kind for op in staged.operands} == {"row", "col"}
    assert all(op.dtype == "float" for op in staged.operands)


def test_a_double_scalar_accumulator_of_doubles_keeps_the_tensor_cores():
    launch = _launch("corpora/loops/gpu/batched_gemm.c", "batched_gemm_update_c")
    assert launch.staged and launch.mma
    assert all(op.dtype == "double" for s in launch.staged.values() for op in s.operands)


@pytest.mark.parametrize("path, name", [
    ("corpora/text2cuda/gemm.md", "gemm_update_C"),
    ("corpora/text2cuda/attention.md", "attention_update_O"),
    ("corpora/loops/gpu/mixed_matmul.c", "mixed_matmul_update_c"),
])
def test_float_terms_of_a_double_sum_into_float_outputs_add_up_in_float_per_tile(path, name):
    (staged,) = _launch(path, name).staged.values()
    assert staged.partial == "float"
    off = final_plan(analyze(read_kernel(ROOT / path)), DEFAULT.replace({"tiles.staging.float_partials": False}))[1]
    assert all(s.partial is None for l in off.launches for s in (l.staged or {}).values())


def test_a_double_output_or_double_terms_keep_the_sum_in_double(tmp_path):
    """A float partial's error is within a float output's bound, not a double one's: a double
    output (or double terms, gemm.c's) keeps every term's addition in double."""
    src = tmp_path / "mixed_out.c"
    src.write_text((ROOT / "corpora/loops/gpu/mixed_matmul.c").read_text()
                   .replace("float c[m][n]", "double c[m][n]").replace("(float)s", "s"))
    (staged,) = _launch(src, "mixed_matmul_update_c").staged.values()
    assert staged.dtype == "double" and staged.partial is None
    (staged,) = _launch("corpora/polybench/linear-algebra/blas/gemm/gemm.c", "gemm_update_C").staged.values()
    assert staged.partial is None


def test_a_spec_gemm_in_float_partials_passes_the_ladder_in_every_tile_shape():
    """The partial sums per tile, in the rectangle's tile, an odd tile with a loop length its depth
    does not divide, and the prefetching form (whole tiles unrolled, then the rest)."""
    from t2c.generators.poly import generate
    from t2c.verify.ladder import ladder
    k = read_kernel(ROOT / "corpora/text2cuda/gemm.md")
    for options in (DEFAULT, DEFAULT.replace({"tiles.staging.rect": None, "tiles.staging.tile": (3, 1),
                                              "tiles.staging.depth": 24, "tiles.staging.prefetch": True})):
        source = generate(k, options)
        assert "poly_part[tm][tn] +=" in source
        card = ladder(k, source, backend="emu", dataset="SMALL", seed=9)
        assert card.accepted and 0 < card.max_error < 0.125, card.summary()
