"""Launches whose grid.y or grid.z could pass CUDA's limit of 65535 blocks on that axis.

Sizes are runtime values, so the printer cannot know how many blocks an axis gets: index_add at
LARGE put n = 1 048 576 rows on grid.y, 131 072 blocks of 8, and failed on the H200 ("invalid
configuration argument").  The plan caps each y and z axis of a grid-of-threads launch
(`Launch.grid_cap`, forms.capped); the launch asks for at most the cap there and each block
strides over the axis's other block indices (cuda.Printer.strided).  The class: every plain or
tiled launch (staged, on the tensor cores, batched on z) with a loop on y or z."""
import re

import numpy as np
import pytest

from t2ctest import ROOT, c_kernel
from t2c.analysis import analyze
from t2c.frontends.c import read_c
from t2c.frontends.prose import read_spec
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.lower import final_plan
from t2c.runtime.target import SM90, Target
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

POLYBENCH = ROOT / "corpora" / "polybench"
SPECS = ROOT / "corpora" / "text2cuda"
LOOPS = ROOT / "corpora" / "loops"
KERNELS = {
    "index_add": SPECS / "index_add.md",
    "gemm": POLYBENCH / "linear-algebra" / "blas" / "gemm" / "gemm.c",
    "symm": POLYBENCH / "linear-algebra" / "blas" / "symm" / "symm.c",
    "syrk": POLYBENCH / "linear-algebra" / "blas" / "syrk" / "syrk.c",
    "doitgen": POLYBENCH / "linear-algebra" / "kernels" / "doitgen" / "doitgen.c",
    "heat-3d": POLYBENCH / "stencils" / "heat-3d" / "heat-3d.c",
    "seidel-2d": POLYBENCH / "stencils" / "seidel-2d" / "seidel-2d.c",
    "stencil27": LOOPS / "gpu" / "stencil27.c",
}


def _kernel(name):
    path = KERNELS[name]
    return read_spec(path) if path.suffix == ".md" else read_c(path)


def _caps(k, target=SM90) -> dict[str, dict]:
    _, plan = final_plan(analyze(k), DEFAULT, target)
    return {l.name: l.grid_cap for l in plan.launches}


@pytest.mark.parametrize("name, caps", [
    ("index_add", {"index_add_update_out_1": {"y": 65535}, "index_add_update_out_2": {"y": 65535}}),
    ("gemm", {"gemm_update_C": {"y": 65535}}),                      # a staged tile on the tensor cores
    ("heat-3d", {"heat_3d_update_B": {"y": 65535, "z": 65535}, "heat_3d_update_A": {"y": 65535, "z": 65535}}),
    ("stencil27", {"stencil27_update_b": {"y": 65535, "z": 65535}}),
])
def test_each_y_and_z_axis_of_a_grid_launch_is_capped_in_the_plan(name, caps):
    assert _caps(_kernel(name)) == caps


def test_doitgen_batch_on_z_and_tile_rows_on_y_are_capped():
    caps = _caps(_kernel("doitgen"))
    assert {"y": 65535, "z": 65535} in caps.values(), caps
    assert all(set(c) <= {"y", "z"} for c in caps.values())


def test_launches_with_blocks_on_x_only_are_not_capped():
    """One-dimensional launches, one-block loops, reductions along rows and down columns: their
    blocks are on x."""
    for path in (POLYBENCH / "stencils" / "jacobi-1d" / "jacobi-1d.c", POLYBENCH / "linear-algebra" / "kernels" /
                 "atax" / "atax.c", POLYBENCH / "linear-algebra" / "blas" / "gesummv" / "gesummv.c"):
        k = read_c(path)
        assert not any(_caps(k).values()), (path.name, _caps(k))


CONSTANT_ROWS = r"""
void k(int n, double A[restrict 40][n], double B[restrict 40][n])
{
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < n; j++)
      B[i][j] = 2.0 * A[i][j];
}
"""


def test_an_axis_whose_literal_extent_fits_the_limit_is_not_capped(tmp_path):
    """40 rows are 5 blocks of 8 on y: within a limit of 5, past one of 4."""
    k = c_kernel(tmp_path, "/* t2c: size n MINI=64 */\n" + CONSTANT_ROWS)
    assert list(_caps(k, Target(max_grid_yz=5)).values()) == [{}]
    assert list(_caps(k, Target(max_grid_yz=4)).values()) == [{"y": 4}]
    text = generate(k)
    assert "blockIdx.y" in text and "poly_cap" not in text


# Sizes giving each capped axis more blocks than a cap of 2, so that some blocks take two
# indices of the axis and others one.
SMALL_CAP = [
    ("index_add", {"n": 45, "m": 5, "d": 3}),
    ("gemm", {"ni": 150, "nj": 20, "nk": 20}),
    ("symm", {"m": 150, "n": 40}),
    ("syrk", {"n": 150, "m": 20}),
    ("doitgen", {"nr": 5, "nq": 150, "np": 12}),
    ("heat-3d", {"tsteps": 2, "n": 20}),
    ("seidel-2d", {"tsteps": 2, "n": 40}),
    ("stencil27", None),
]


@pytest.mark.parametrize("name, sizes", SMALL_CAP, ids=[n for n, _ in SMALL_CAP])
def test_blocks_striding_past_a_small_cap_compute_the_reference_on_emu(name, sizes):
    """With a cap of 2 blocks on y and z every form's strided loop runs (uneven: a block takes
    one or two indices) on a small problem; the outputs are the reference's."""
    k = _kernel(name)
    text = generate(k, DEFAULT, Target(max_grid_yz=2))
    assert re.search(r"poly_cap\(poly_blocks(_y|_z|1), 2\)", text)     # poly_blocks1: skewed tiles' y
    sizes = {**k.dataset_sizes("MINI"), **(sizes or {})}
    _assert_reference_outputs(k, text, sizes)


def _assert_reference_outputs(k, text, sizes):
    ref = run_reference(k, sizes, synthesize(k, sizes, 5))
    run = run_candidate(k, build_candidate(k, text, "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    for array, want in ref.outputs.items():
        got = run.outputs[array].astype(np.float64)
        scale = max(float(np.abs(want).max()), 1e-300)
        tol = 1e-4 if want.dtype == np.float32 else 1e-9
        assert float(np.abs(got - want.astype(np.float64)).max()) / scale <= tol, array


def test_index_add_past_65535_blocks_on_y_runs_on_emu():
    """530 000 rows of one column: 66 250 blocks of 8 rows on y, past CUDA's limit, which the emu
    enforces as a GPU does (the launch failed before the cap)."""
    k = _kernel("index_add")
    text = generate(k)
    _assert_reference_outputs(k, text, {"n": 530000, "m": 7, "d": 1})
    assert re.search(r"dim3 grid\(poly_blocks\(extent_x, 128\), poly_cap\(poly_blocks_y, 65535\)\);", text)
