"""Which grid loop takes threadIdx.x (mapping.grid_axes): the one that leaves the fewest references
strided across a warp, then the one most used in last subscripts.  A small array indexed by
another grid loop (`mean[ch]`, a broadcast under p) must not pull x away from the loop that
streams the big arrays contiguously; read from the plan on specs and both C corpora."""
import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT


def _x(path, launch) -> str:
    _, plan = final_plan(analyze(read_kernel(ROOT / path)), DEFAULT)
    axes, = [l.axes for l in plan.launches if l.name == launch]
    return next(v for v, ax in axes.items() if ax == "x")


@pytest.mark.parametrize("path, launch, x", [
    # Y[b, ch, p] = (X[b, ch, p] - mean[ch]) / ... : four per-channel reads, two streams along p
    ("corpora/text2cuda/batchnorm_inference.md", "batchnorm_inference_update_Y", "p"),
    # out[b][d] += table[idx[...]][d]: the rows gathered, each read along d
    ("corpora/loops/gpu/embedding_bag.c", "embedding_bag_update_out", "d"),
    ("corpora/polybench/linear-algebra/blas/gemm/gemm.c", "gemm_update_C", "j"),
    ("corpora/polybench/stencils/jacobi-2d/jacobi-2d.c", "jacobi_2d_update_B", "j"),
])
def test_x_goes_to_the_loop_that_leaves_no_reference_strided(path, launch, x):
    assert _x(path, launch) == x
