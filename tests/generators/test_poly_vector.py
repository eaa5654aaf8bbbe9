"""Vector access (poly/vector.py): coarsened elementwise launches over one grid dimension from 0
take consecutive indices and move their `B[x]` reads and `A[x] = E` writes in 4- to 16-byte chunks;
launches outside the class keep indices blockDim.x apart."""
import dataclasses

import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT


def _launches(path, options=DEFAULT):
    _, plan = final_plan(analyze(read_kernel(ROOT / path)), options)
    return plan.launches


@pytest.mark.parametrize("path, loads, stores, chunks", [
    ("corpora/text2cuda/axpy_fp16.md", {"y[i]", "x[i]"}, {"y"}, {"x": 16, "y": 16}),        # 8 halves a thread
    ("corpora/text2cuda/gelu_bf16.md", None, None, None),
    ("corpora/loops/idioms/size_t_clamp.c", {"x[i]"}, {"y"}, {"x": 16, "y": 16}),           # 4 doubles: 2 chunks
    ("corpora/polybench/linear-algebra/kernels/atax/atax.c", set(), {"y"}, {"y": 16}),                                   # a fill: stores only
])
def test_elementwise_launches_move_whole_chunks(path, loads, stores, chunks):
    vectors = [l.vector for l in _launches(path) if l.vector]
    assert vectors, "no launch took vector access"
    v = vectors[0]
    assert v.stores and all(b in (4, 8, 16) for _, b in v.chunks)
    if loads is not None:
        assert set(v.loads) == loads and {a for _, a in v.stores} == stores and dict(v.chunks) == chunks


@pytest.mark.parametrize("path", [
    "corpora/loops/vectorizer/conditional_assign.c",     # two conditional writes of one array
    "corpora/polybench/stencils/jacobi-1d/jacobi-1d.c",                     # inside a host loop: not coarsened
])
def test_launches_outside_the_class_keep_indices_blockdim_apart(path):
    assert not any(l.vector for l in _launches(path))


def test_the_option_turns_it_off_and_the_printer_follows_the_plan():
    path = "corpora/text2cuda/axpy_fp16.md"
    off = dataclasses.replace(DEFAULT, grid=dataclasses.replace(DEFAULT.grid, vector=False))
    assert not any(l.vector for l in _launches(path, off))
    kernel = read_kernel(ROOT / path)
    on_src, off_src = generate(kernel), generate(kernel, off)
    assert "((const uint4 *)&x[poly_x])[0]" in on_src and "poly_x + poly_u;" in on_src
    assert "uint4" not in off_src and "poly_u * (int)blockDim.x" in off_src
    # the in-domain path checks the pointers' alignment: an offset pointer runs index by index
    assert "((unsigned long long)(x) & 15u) == 0" in on_src
