"""The text2cuda specs issue #35 found only as C in corpora/loops (a maximum of running sums, a
blur whose taps are offset by `kk / 2`, a 3-d max pool whose extents are `(d - 5) / 2 + 1`):
written as specs, poly maps each to a parallel form, read from the plan, seen in the printed
kernel, and accepted by the emu ladder.  Divisions of sizes by constants are parameters of the
affine model (the specs' class is affine, as corpora/loops' own blur and pool are)."""
import pytest

from t2ctest import ROOT, accepted_on_emu, plan_records
from t2c.analysis import analyze
from t2c.frontends.prose import load_spec, read_spec
from t2c.generators.poly import generate
from t2c.generators.poly.kadane import running_max_of
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2c.ir.csyntax import cprint
from t2c.runtime.target import SM90

SPECS = ROOT / "corpora" / "text2cuda"


def _launches(k):
    """(name, grid variables, axes, host loops, running max?) of each launch of the final plan."""
    _, plan = final_plan(analyze(k), DEFAULT)
    return [(l.name, [g.var for g in l.grid], l.axes, [h.var for h in l.host_loops], l.running_max is not None)
            for l in plan.launches]


def test_max_running_sum_is_an_ordered_reduction_of_tuples():
    """Kadane's scan written with double temporaries in a sequential `for`: the running max
    form (poly/kadane.py) finds run and best, the loop over i, and keeps the temporaries' type."""
    k = read_spec(SPECS / "max_running_sum.md")
    assert load_spec(SPECS / "max_running_sum.md").nest_class == "affine"
    found = plan_records(k, lambda an, storage, launch: running_max_of(an, storage, launch,
                                                                       DEFAULT.scans.running_tile, SM90.shared_static))
    assert [(r.run, r.best, r.loop.var, cprint(r.value), r.dtype) for r in found] == [("run", "m", "i", "x[i]", "double")]
    assert _launches(k) == [("max_running_sum_reduce_best", [], {}, [], True)]
    text = generate(k)
    assert "a maximum of running sums (Kadane)" in text and "one GPU thread" not in text
    assert "_part<<<poly_parts, 256>>>" in text and "_final<<<1, 256>>>" in text
    accepted_on_emu(k, text)


def test_a_blur_offset_by_half_the_window_is_a_thread_per_pixel():
    """`img[min(max(i + di - kk / 2, 0), h - 1), ...]`: a clamped read of an input, offset by a
    size divided by 2; the pixel loops are the grid, the taps run in each thread."""
    k = read_spec(SPECS / "gaussian_blur.md")
    assert _launches(k) == [("gaussian_blur_update_out", ["i", "j"], {"i": "y", "j": "x"}, [], False)]
    text = generate(k)
    assert "one thread per (i, j): i -> y, j -> x; loops di, dj run in order inside each thread" in text
    assert "(kk / 2)" in text
    accepted_on_emu(k, text)


def test_a_3d_pool_with_quotient_extents_is_a_grid():
    """Extents `(d - 5) / 2 + 1` bound the output loops: three of the four are the grid (the
    grid has three axes: the inner three, so that x, the contiguous one, stays on it,
    mapping.contiguous_on_grid), the guard compares with the quotient, and each thread runs the
    channels and the window."""
    k = read_spec(SPECS / "maxpool3d.md")
    assert _launches(k) == [("maxpool3d_update_out", ["z", "y", "x"], {"z": "z", "y": "y", "x": "x"}, [], False)]
    text = generate(k)
    assert "one thread per (z, y, x)" in text
    assert "z < (((d - 5) / 2) + 1) && y >= 0 && y < (((h - 5) / 2) + 1)" in text
    accepted_on_emu(k, text)


@pytest.mark.full
@pytest.mark.parametrize("name", ["max_running_sum", "gaussian_blur", "maxpool3d"])
def test_accepted_at_small(name):
    from t2c.verify.ladder import ladder
    k = read_spec(SPECS / f"{name}.md")
    card = ladder(k, generate(k), backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()
