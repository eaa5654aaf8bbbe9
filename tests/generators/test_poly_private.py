"""Atomic updates into a small array (poly/private.py): a 1-d launch whose atomic updates all add
into one array takes a copy of it per block in shared memory, with the plain global-atomic
kernel beside it for an array that does not fit; on specs and on corpora/loops kernels.  Read
from the plan, accepted by the emu ladder (MINI), the fallback too."""
import pytest

from t2ctest import ROOT, accepted_on_emu
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.forms import formed
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT
from t2c.runtime.target import Target


def _private(k, options=DEFAULT):
    an = analyze(k)
    plan = formed(an, planned(an, options), options)
    return [(launch.private.array, launch.private.dtype) for launch in plan.launches if launch.private]


@pytest.mark.parametrize("path, array", [
    ("corpora/text2cuda/bincount.md", ("counts", "int")),
    ("corpora/loops/gpu/histogram.c", ("hist", "int")),
    ("corpora/loops/vectorizer/scatter_add.c", ("acc", "double")),
    ("corpora/loops/livermore/particle_in_cell.c", ("count", "int")),
])
def test_atomic_updates_into_a_small_array_take_a_copy_per_block(path, array):
    k = read_kernel(ROOT / path)
    assert _private(k) == [array]
    text = generate(k)
    assert f"extern __shared__ {array[1]} poly_private_{array[0]}[]" in text
    accepted_on_emu(k, text)


def test_an_array_too_large_at_run_time_takes_the_global_atomics():
    """A target whose shared memory holds no copy: the host launches the plain kernel."""
    k = read_kernel(ROOT / "corpora/text2cuda/bincount.md")
    text = generate(k, target=Target(shared_static=4))
    assert "bytes <= 4" in text
    accepted_on_emu(k, text)


def test_a_two_dimensional_grid_and_the_option_off_keep_the_global_atomics():
    assert _private(read_kernel(ROOT / "corpora/text2cuda/index_add.md")) == []
    k = read_kernel(ROOT / "corpora/text2cuda/bincount.md")
    off = DEFAULT.replace({"reductions.private": None})
    assert _private(k, off) == []
    assert "poly_private" not in generate(k, off)
