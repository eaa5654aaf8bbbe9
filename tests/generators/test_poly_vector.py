"""Vector access (poly/vector.py): coarsened elementwise launches over one grid dimension from 0
that move 16- or 8-bit arrays take consecutive indices and move their `B[x]` reads and `A[x] = E` writes in 4- to 16-byte chunks;
launches outside the class (and those of wide elements only) keep indices blockDim.x apart."""
import dataclasses
import subprocess
import sys

import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT


def _launches(path, options=DEFAULT):
    _, plan = final_plan(analyze(read_kernel(path)), options)
    return plan.launches


BRIGHTEN = """/* t2c: size n MINI=45 SMALL=5000 MEDIUM=500000 LARGE=16000000
 * t2c: array src[n] in
 * t2c: array dst[n] out
 */
void brighten(int n, int gain, const unsigned char *src, unsigned char *dst)
{
  for (int i = 0; i < n; i++) {
    int v = src[i] * gain / 16;
    dst[i] = v > 255 ? 255 : v;
  }
}
"""


@pytest.fixture
def brighten(tmp_path):
    path = tmp_path / "brighten.c"
    path.write_text(BRIGHTEN)
    return path


@pytest.mark.parametrize("path, loads, stores, chunks", [
    ("corpora/text2cuda/axpy_fp16.md", {"y[i]", "x[i]"}, {"y"}, {"x": 16, "y": 16}),         # 8 halves a thread
    ("corpora/text2cuda/gelu_bf16.md", {"x[i]"}, {"y"}, {"x": 16, "y": 16}),
    ("corpora/text2cuda/quantize_u8.md", {"x[i]"}, {"q"}, {"x": 16, "q": 16}),               # 16 floats: 4 chunks
    ("corpora/text2cuda/rgba_unpack.md", {"p[i]"}, {"r", "g", "b", "a", "gray"}, None),
    ("brighten", {"src[i]"}, {"dst"}, {"src": 16, "dst": 16}),                              # C, 16 bytes a thread
])
def test_launches_of_narrow_arrays_move_whole_chunks(path, loads, stores, chunks, brighten):
    vectors = [l.vector for l in _launches(brighten if path == "brighten" else ROOT / path) if l.vector]
    assert len(vectors) == 1
    (v,) = vectors
    assert set(v.loads) == loads and {a for _, a in v.stores} == stores
    assert dict(v.chunks) == chunks if chunks else all(b == 16 for _, b in v.chunks)


@pytest.mark.parametrize("path", [
    "corpora/loops/idioms/size_t_clamp.c",                # doubles: wide elements keep blockDim.x apart
    "corpora/polybench/linear-algebra/kernels/atax/atax.c",
    "corpora/text2cuda/relu.md",                          # floats
    "corpora/loops/vectorizer/conditional_assign.c",      # two conditional writes of one array
    "corpora/polybench/stencils/jacobi-1d/jacobi-1d.c",   # inside a host loop: not coarsened
])
def test_launches_outside_the_class_keep_indices_blockdim_apart(path):
    assert not any(l.vector for l in _launches(ROOT / path))


def test_a_c_kernel_on_bytes_is_accepted_with_chunks(brighten, tmp_path):
    cu = tmp_path / "brighten.cu"
    cu.write_text(generate(read_kernel(brighten)))
    assert "((const uint4 *)&src[poly_x])[0]" in cu.read_text()
    got = subprocess.run([sys.executable, "-m", "t2c.cli", "verify", str(brighten), "--candidate", str(cu),
                          "--backend", "emu", "--dataset", "MINI"], capture_output=True, text=True, cwd=ROOT)
    assert "verdict: ACCEPTED" in got.stdout, got.stdout + got.stderr


def test_the_option_turns_it_off_and_the_printer_follows_the_plan():
    path = "corpora/text2cuda/axpy_fp16.md"
    off = dataclasses.replace(DEFAULT, grid=dataclasses.replace(DEFAULT.grid, vector=False))
    assert not any(l.vector for l in _launches(ROOT / path, off))
    kernel = read_kernel(ROOT / path)
    on_src, off_src = generate(kernel), generate(kernel, off)
    assert "((const uint4 *)&x[poly_x])[0]" in on_src and "poly_x + poly_u;" in on_src
    assert "uint4" not in off_src and "poly_u * (int)blockDim.x" in off_src
    # the in-domain path checks the pointers' alignment: an offset pointer runs index by index
    assert "((unsigned long long)(x) & 15u) == 0" in on_src
