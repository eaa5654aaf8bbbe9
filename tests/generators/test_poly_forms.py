"""The forms pass (poly/forms.py, issue #34): `lower.final_plan` returns the complete plan -- each
launch's form and its key fields, its threads per block and shared memory, the one-block loops'
facts, the merged runs, the names -- on kernels of both corpora.  Read from the plan, never from
the printed text; printing leaves the plan as it found it."""
from functools import lru_cache

import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends.c import read_c
from t2c.generators.poly import reduce, tensor
from t2c.generators.poly.cuda import Printer
from t2c.generators.poly.forms import Context
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.mapping import HostLoop
from t2c.generators.poly.options import DEFAULT
from t2c.runtime.target import SM90

POLYBENCH = ROOT / "corpora" / "polybench"
LOOPS = ROOT / "corpora" / "loops"
FORMS = ("reduction", "scan", "banded", "running_max", "row", "phases", "block_sum", "sweep", "tiles", "staged", "mma")


def _planned(path: str, options: dict | None = None):
    """(kernel, analysis, plan) at the defaults changed by `options` (dotted paths)."""
    return _planned_once(path, tuple(sorted((options or {}).items())))


@lru_cache(maxsize=None)
def _planned_once(path: str, options: tuple):
    k = read_c(path)
    an, plan = final_plan(analyze(k), DEFAULT.replace(dict(options)))
    return k, an, plan


def _plan(path, options: dict | None = None):
    return _planned(str(path), options)[2]


def _forms(launch) -> list[str]:
    return [f for f in FORMS if getattr(launch, f)]


def _host_loops(plan) -> list[HostLoop]:
    return [it for it in plan.items if isinstance(it, HostLoop)]


def test_gemm_is_a_staged_tile_over_a_rectangle_on_the_tensor_cores():
    _, an, plan = _planned(str(POLYBENCH / "linear-algebra/blas/gemm/gemm.c"))
    (launch,) = plan.launches
    assert launch.name == "gemm_update_C" and _forms(launch) == ["staged", "mma"]
    assert launch.rect and launch.tile == DEFAULT.tiles.staging.rect.tile and launch.block == DEFAULT.tiles.staging.rect.block
    assert launch.stages == DEFAULT.tiles.staging.rect.ring and launch.threads == 128
    (staged,) = launch.staged.values()
    tiles, depth = staged.ring
    assert tiles == DEFAULT.tiles.staging.rect.ring and set(staged.raws) == {op.name for op in staged.operands}
    # the launch's dynamic shared memory is its loop's ring, decided before anything prints
    assert launch.shared_bytes == tensor.ring(Context.of(an, plan, DEFAULT, SM90), launch, staged)[2] > 0


def test_trmm_moving_bounds_take_the_staged_tile_not_the_rectangle():
    (launch,) = _plan(POLYBENCH / "linear-algebra/blas/trmm/trmm.c").launches
    assert _forms(launch) == ["staged", "mma"] and not launch.rect
    assert launch.tile == DEFAULT.tiles.staging.tile and launch.block == DEFAULT.tiles.staging.block
    assert any(s.moving for s in launch.staged.values())


def test_trmm_without_copies_sweeps_its_rows_in_chunks_with_one_block_shape():
    """The sweep's block is one field: sweeps.rows.block for rows in chunks, whatever sweeps.block says
    (the kernel's __launch_bounds__ and its launch both read it)."""
    sweeps = [l for l in _plan(POLYBENCH / "linear-algebra/blas/trmm/trmm.c", {"loops.copy_inputs": False,
                                                                                  "sweeps.block": (4, 64)}).launches if l.sweep]
    assert len(sweeps) == 1 and sweeps[0].sweep.rows is not None and sweeps[0].sweep.staged
    assert sweeps[0].block == DEFAULT.sweeps.rows.block and sweeps[0].threads == 512


def test_durbin_runs_its_row_loop_in_one_block_with_a_block_sum():
    plan = _plan(POLYBENCH / "linear-algebra/solvers/durbin/durbin.c")
    (h,) = _host_loops(plan)
    assert plan.block_loops() == [h] and h.threads == 512 and not h.private
    assert h.thread_webs == {"alpha", "beta"}
    inside = [l for l in plan.launches if l.in_block]
    (block_sum,) = [l for l in inside if l.block_sum]
    assert block_sum.every_thread and not block_sum.grid and block_sum.own_scalars == h.thread_webs
    assert any(l.unsynced for l in inside) and not any(l.row or l.sweep or l.phases for l in inside)


def test_jacobi_1d_and_a_private_array_per_iteration():
    (h,) = _host_loops(_plan(POLYBENCH / "stencils/jacobi-1d/jacobi-1d.c"))     # time tiles (timetiles.py)
    assert h.time_tile and not h.one_block
    (h,) = _host_loops(_plan(POLYBENCH / "stencils/jacobi-1d/jacobi-1d.c", {"launches.time_tiles": None}))
    assert h.one_block and h.threads == 1024 and not h.thread_webs
    (h,) = _host_loops(_plan(POLYBENCH / "linear-algebra/kernels/doitgen/doitgen.c", {"loops.expand_private": False}))
    assert h.one_block and h.private == ["sum"]


def test_jacobi_2d_keeps_plain_grids_under_its_host_loop():
    plan = _plan(POLYBENCH / "stencils/jacobi-2d/jacobi-2d.c")
    assert [l.name for l in plan.launches] == ["jacobi_2d_update_B", "jacobi_2d_update_A"]
    assert all(not _forms(l) and l.block == DEFAULT.grid.block_2d and not l.in_block for l in plan.launches)
    assert not plan.block_loops() and not plan.merged


def test_atax_reduces_along_rows_and_down_columns():
    plan = _plan(POLYBENCH / "linear-algebra/kernels/atax/atax.c")
    rows = {l.name: l for l in plan.launches if l.row}
    assert set(rows) == {"atax_update_tmp", "atax_update_y_2"}
    assert not rows["atax_update_tmp"].row.column and rows["atax_update_tmp"].block == (reduce.ROW_BLOCK,)
    assert rows["atax_update_y_2"].row.column and rows["atax_update_y_2"].block == DEFAULT.reductions.rows.column_block


def test_bicg_merges_its_initializations_and_its_reductions():
    plan = _plan(POLYBENCH / "linear-algebra/kernels/bicg/bicg.c")
    assert [[l.name for l in run] for run in plan.merged] == [
        ["bicg_update_s_1", "bicg_update_q_1"], ["bicg_update_s_2", "bicg_update_q_2"]]
    plain, rows = plan.merged
    assert {l.merged_threads for l in plain} == {256}
    assert {l.merged_threads for l in rows} == {DEFAULT.reductions.rows.column_block[0] * DEFAULT.reductions.rows.column_block[1]}
    assert not _plan(POLYBENCH / "linear-algebra/kernels/bicg/bicg.c", {"launches.merge": None}).merged


@pytest.mark.parametrize("path, form", [
    ("livermore/prefix_sum.c", "scan"),
    ("livermore/inner_product.c", "reduction"),
    ("vectorizer/first_index.c", "reduction"),
    ("vectorizer/max_running_sum.c", "running_max"),
    ("livermore/banded_solve.c", "banded"),
    ("gpu/softmax.c", "phases"),
])
def test_loops_kernels_take_their_form(path, form):
    (launch,) = _plan(LOOPS / path).launches
    assert _forms(launch) == [form]
    # the forms whose modules shape their own launches have no block of the plan's
    assert (launch.block is None) == (form != "phases")


def test_a_search_is_a_reduction_for_the_least_index():
    (launch,) = _plan(LOOPS / "vectorizer/first_index.c").launches
    assert reduce.search_order(launch.reduction) == "least" and launch.name.startswith("first_index_reduce_")


@pytest.mark.parametrize("path, options", [
    ("linear-algebra/blas/gemm/gemm.c", {}),
    ("linear-algebra/solvers/durbin/durbin.c", {}),
    ("linear-algebra/blas/trmm/trmm.c", {"loops.copy_inputs": False}),
])
def test_printing_leaves_the_plan_as_it_found_it(path, options):
    k, an, plan = _planned(str(POLYBENCH / path), options)
    facts = lambda: [(l.name, _forms(l), l.block, l.shared_bytes, l.in_block, l.unsynced, l.merged_threads,
                      l.sweep and l.sweep.staged) for l in plan.launches]
    before = facts()
    Printer(k, an, plan, DEFAULT.replace(options)).candidate()
    assert facts() == before
