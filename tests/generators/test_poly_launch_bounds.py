"""A kernel's `__launch_bounds__` and the block its launch asks for come from one decision.

The sweep form's bound was read from `sweeps.block` while its launch took `sweeps.rows.block` for rows
in chunks: trmm with `loops.copy_inputs=False, sweeps.block=(4, 64)` declared 256 threads and launched 512,
which a GPU refuses ("invalid argument") and the emu did not notice."""
import re
from math import prod

import pytest

from t2ctest import ROOT
from t2c.frontends.c import read_c
from t2c.generators.poly import DEFAULT, generate

BLAS = ROOT / "corpora" / "polybench" / "linear-algebra" / "blas"
BOUND = re.compile(r"__launch_bounds__\((\d+)(?:, \d+)?\) (\w+)\(")
LAUNCH = re.compile(r"\b(\w+)<<<[^;]*?, dim3\(([\d, ]+)\)>>>")


def _launches_within_bounds(text: str) -> list[tuple[str, int, int]]:
    bounds = {name: int(n) for n, name in BOUND.findall(text)}
    out = []
    for name, dims in LAUNCH.findall(text):
        threads = prod(int(d) for d in dims.split(","))
        if name in bounds:
            out.append((name, threads, bounds[name]))
    return out


@pytest.mark.parametrize("kernel", ["trmm", "symm"])
@pytest.mark.parametrize("blocks", [{}, {"sweeps.block": (4, 64)}, {"sweeps.block": (8, 128)},
                                    {"sweeps.rows.block": (2, 256)}, {"sweeps.block": (4, 64), "sweeps.rows": None}])
def test_a_sweep_launch_asks_for_the_threads_its_kernel_declares(kernel, blocks):
    text = generate(read_c(BLAS / kernel / f"{kernel}.c"), DEFAULT.replace({"loops.copy_inputs": False, **blocks}))
    checked = _launches_within_bounds(text)
    assert checked or "sweep" not in text
    for name, threads, bound in checked:
        assert threads <= bound, f"{name}: launched with {threads} threads, declares at most {bound}"
