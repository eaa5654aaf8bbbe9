"""Coarsened launches (forms.coarsened, `grid.coarsen`): a plain launch whose threads run no loop
takes several x indices per thread, blockDim.x apart, on both C corpora and on specs; launches
with loops inside, another form or host loops around keep one index per thread.  Read from the plan; the
printed kernel's shape (restrict pointers, the unrolled in-domain path, the grid divided by the
factor) from the candidate text."""
import re

import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT


def _coarsen(path, options=DEFAULT) -> dict[str, int]:
    _, plan = final_plan(analyze(read_kernel(ROOT / path)), options)
    return {l.name: l.coarsen for l in plan.launches}


@pytest.mark.parametrize("path, launch", [
    ("corpora/text2cuda/relu.md", "relu_update_y"),
    ("corpora/loops/gpu/upsample_nearest.c", "upsample_nearest_update_out"),
    ("corpora/loops/livermore/hydro_fragment.c", "hydro_fragment_update_x"),
    ("corpora/loops/gpu/stencil27.c", "stencil27_update_b"),
])
def test_a_loop_free_launch_takes_several_x_indices_per_thread(path, launch):
    assert _coarsen(path)[launch] == DEFAULT.grid.coarsen == 4
    assert _coarsen(path, DEFAULT.replace({"grid.coarsen": None}))[launch] == 1


@pytest.mark.parametrize("path", [
    "corpora/polybench/linear-algebra/blas/gemm/gemm.c",      # a staged tile
    "corpora/text2cuda/conv2d.md",                             # loops inside each thread
    "corpora/text2cuda/gemv.md",                               # lanes per row
    "corpora/polybench/stencils/jacobi-2d/jacobi-2d.c",        # inside a host loop (time steps)
    "corpora/loops/rodinia/hotspot.c",                         # the same
    "corpora/loops/gpu/transpose.c",                           # tiles of a transposed read (transposed.py)
])
def test_launches_with_loops_or_another_form_keep_one_index_per_thread(path):
    assert set(_coarsen(path).values()) == {1}


def test_the_coarsened_kernel_runs_in_domain_indices_unrolled_over_restrict_pointers():
    text = generate(read_kernel(ROOT / "corpora/text2cuda/relu.md"))
    kernel = text[text.index("__global__"):text.index("extern \"C\"")]
    assert "const float *__restrict__ x, float *__restrict__ y" in kernel
    assert kernel.count("#pragma unroll") == 3 and "if (poly_full) {" in kernel and "continue;" in kernel
    assert re.search(r"dim3 grid\(poly_blocks\(extent_x, 1024\)\);", text)      # 256 threads x 4
    plain = generate(read_kernel(ROOT / "corpora/text2cuda/relu.md"), DEFAULT.replace({"grid.coarsen": None}))
    assert "__restrict__" not in plain and "poly_blocks(extent_x, 256)" in plain


def _preload(path, launch, options=DEFAULT) -> dict[str, tuple[str, ...]]:
    _, plan = final_plan(analyze(read_kernel(ROOT / path)), options)
    return dict(next(l.preload for l in plan.launches if l.name == launch))


@pytest.mark.parametrize("path, launch, reads", [
    ("corpora/text2cuda/sigmoid.md", "sigmoid_update_y", {"x[i]"}),
    ("corpora/text2cuda/axpy_fp16.md", "axpy_fp16_update_y", {"x[i]", "y[i]"}),          # y read, then written
    ("corpora/loops/vectorizer/gather.c", "gather_update_a", {"b[idx[i]]"}),
    ("corpora/loops/gpu/upsample_nearest.c", "upsample_nearest_update_out", None),
])
def test_a_coarsened_thread_loads_the_reads_of_all_its_indices_first(path, launch, reads):
    got = _preload(path, launch)
    assert got and all(users for users in got.values())
    assert not _preload(path, launch, DEFAULT.replace({"grid.preload": False}))
    if reads is not None:
        assert set(got) == reads


def test_reads_after_a_write_of_the_launch_or_under_a_condition_are_not_loaded_first(tmp_path):
    src = tmp_path / "k.c"
    src.write_text("""/* t2c: size n MINI=40 SMALL=4000
 * t2c: array a[n] in
 * t2c: array b[n] out
 * t2c: array c[n] out
 */
void k(int n, const double *a, double *b, double *c)
{
  for (int i = 0; i < n; i++) {
    b[i] = a[i] / 3.0;
    c[i] = b[i] + (i > 0 ? a[i - 1] : 0.0);
  }
}
""")
    assert _preload(src, "k_update_b_c") == {"a[i]": ("S0", "S1")}   # not b[i] (written first), not a[i - 1] (under ?:)
    text = generate(read_kernel(src))
    assert "poly_v0[poly_u] = a[i];" in text and "b[i] = poly_v0[poly_u] / 3.0;" in text
    assert "c[i] = b[i] + ((i > 0) ? (a[i - 1]) : (0.0));" in text


BYTES_C = """/* t2c: size n
 * t2c: array src[n] in
 * t2c: array dst[n] out */
void brighten(int n, const unsigned char *src, unsigned char *dst)
{
  for (int i = 0; i < n; i++)
    dst[i] = src[i] > 200 ? 255 : src[i] + 55;
}
"""


@pytest.mark.parametrize("path, launch, times", [
    ("corpora/text2cuda/gelu_bf16.md", "gelu_bf16_update_y", 2),      # 16-bit in and out
    ("corpora/text2cuda/axpy_fp16.md", "axpy_fp16_update_y", 2),
    ("corpora/text2cuda/quantize_u8.md", "quantize_u8_update_q", 4),  # float in, 8-bit out: the narrowest counts
    ("brighten.c", "brighten_update_dst", 4),
    ("corpora/text2cuda/relu.md", "relu_update_y", 1),
])
def test_narrow_elements_are_coarsened_by_the_bytes_of_a_float(path, launch, times, tmp_path):
    """`grid.narrow`: a thread keeps as many bytes of loads in flight as a float launch's threads."""
    if path == "brighten.c":
        (tmp_path / path).write_text(BYTES_C)
        path = tmp_path / path
    assert _coarsen(path)[launch] == DEFAULT.grid.coarsen * times
    assert _coarsen(path, DEFAULT.replace({"grid.narrow": False}))[launch] == DEFAULT.grid.coarsen
