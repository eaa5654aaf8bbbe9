"""Pointwise temporaries (contract.py): a local array whose every read is at the cell the same
iteration of the same launch wrote, and that nothing else reads, is a register of each thread
(`Plan.contracted`), with no device buffer; one read at a neighbouring cell, or in another
launch, keeps its buffer.  Read from the plan (isl decides, `Analysis.pointwise`), the printed
shape checked, accepted by the emu ladder."""
import re

import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.contract import Contraction
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT

from test_poly_generator import _LOCAL


def _spec(tmp_path, name: str, sizes: str, arrays: str, body: str):
    path = tmp_path / f"{name}.md"
    path.write_text(f"---\nname: {name}\nsizes:\n{sizes}arrays:\n{arrays}tolerance: {{rtol: 1e-5, atol: 1e-5}}\n---\n"
                    f"# {name}\n\n```t2c\n{body}```\n")
    return read_kernel(path)


def _plan(k, options=DEFAULT):
    return final_plan(analyze(k), options)[1]


#: angle_stats with rows whose length is a multiple of 4: its 16-byte path runs too
ANGLES_WIDE = ("  b: {MINI: 5, SMALL: 300, MEDIUM: 1000, LARGE: 4000, EXTRALARGE: 8000}\n"
               "  c: {MINI: 8, SMALL: 16, MEDIUM: 64, LARGE: 64, EXTRALARGE: 64}\n")

SIZES = ("  n: {MINI: 7, SMALL: 130, MEDIUM: 1000, LARGE: 4000, EXTRALARGE: 8000}\n"
         "  m: {MINI: 9, SMALL: 70, MEDIUM: 1000, LARGE: 4000, EXTRALARGE: 8000}\n")

#: the temporary read at its own cell and at its left neighbour's: a stencil over it
STENCIL = "let t[i, j] = a[i, j] * a[i, j] + 1.0\nb[i, j in 1..m-1] = t[i, j] - t[i, j-1]\n"

#: C: a VLA filled and read back at the same cell in one nest
POINTWISE_C = """
void scaled(int n, int m, const float a[n][m], float b[n][m])
{
  float tmp[n][m];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      tmp[i][j] = a[i][j] * 2.0f + 1.0f;
      b[i][j] = tmp[i][j] * tmp[i][j] - a[i][j];
    }
}
"""

#: C: the same nest reading the cell its previous iteration of j wrote (b's recurrence keeps j in order)
NEIGHBOUR_C = """
void running(int n, int m, const float a[n][m], float b[n][m])
{
  float tmp[n][m];
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m; j++) {
      tmp[i][j] = a[i][j] * 2.0f + 1.0f;
      b[i][j] = b[i][j - 1] + tmp[i][j - 1];
    }
}
"""


def test_angle_stats_keeps_its_wrapped_remainder_in_a_register():
    k = read_kernel(ROOT / "corpora/text2cuda/angle_stats.md")
    plan = _plan(k)
    assert plan.contracted == (Contraction("r", "float", "poly_cell_r", ("i", "j")),)
    (launch,) = plan.launches
    assert launch.phases is not None             # a block per row: r lives in its loop phase over j
    text = generate(k)
    assert "dev_r" not in text and "poly_local_r" not in text and "poly_local_" not in text
    assert "  float poly_cell_r;" in text
    assert "poly_cell_r = fmodf(theta[(i * c) + j], 6.283185307179586f);" in text
    assert "poly_cell_r = fmodf(theta[(i * c) + poly_ju], 6.283185307179586f);" in text   # the 16-byte path too
    off = generate(k, DEFAULT.replace({"registers.contraction": False}))
    assert "__device__ float *dev_r;" in off and not re.search(r"\bpoly_cell_r\b", off)
    accepted_on_emu(k, text)


def test_the_16_byte_rows_of_angle_stats_read_the_register(tmp_path):
    """Rows of 8 (MINI) and 16 (SMALL) elements take the 4-a-thread path of the block per row."""
    text = (ROOT / "corpora/text2cuda/angle_stats.md").read_text()
    path = tmp_path / "angle_stats.md"
    path.write_text(re.sub(r"sizes:\n(  .*\n)+", "sizes:\n" + ANGLES_WIDE, text, count=1))
    k = read_kernel(path)
    assert [c.array for c in _plan(k).contracted] == ["r"]
    accepted_on_emu(k, generate(k))


def test_a_temporary_read_at_a_neighbouring_cell_keeps_its_buffer(tmp_path):
    k = _spec(tmp_path, "tmp_stencil", SIZES, "  a: float[n, m] in\n  b: float[n, m] inout\n", STENCIL)
    plan, prog = _plan(k), analyze(k).program
    assert plan.contracted == ()
    (name,) = [n for n, v in prog.locals.items() if v.shape]
    assert len([l for l in plan.launches if any(       # written by one launch, read by the next
        a.name == name for s in l.statements() for a in prog.statement(s).accesses)]) == 2
    assert f"__device__ float *dev_{name};" in generate(k)


def test_isl_refuses_a_read_of_the_iteration_before(tmp_path):
    """In one launch (distribution off: both statements in one nest, j in order in each thread)
    the read of tmp[i][j - 1] takes the previous iteration's value: not pointwise, the buffer stays;
    the same nest reading tmp[i][j] is."""
    one_nest = DEFAULT.replace({"loops.distribute": None})
    k = c_kernel(tmp_path, NEIGHBOUR_C, "running")
    an = analyze(k)
    (name,) = [n for n, v in an.program.locals.items() if v.shape]
    assert not an.pointwise(an.program.body, name, 2)
    plan = _plan(k, one_nest)
    assert len(plan.launches) == 1 and plan.contracted == () and f"dev_{name}[" in generate(k, one_nest)
    k = c_kernel(tmp_path, POINTWISE_C, "scaled")
    an = analyze(k)
    (name,) = [n for n, v in an.program.locals.items() if v.shape]
    assert an.pointwise(an.program.body, name, 2) and not an.pointwise(an.program.body, name, 1)


def test_a_c_local_array_filled_and_read_per_cell_is_a_register(tmp_path):
    k = c_kernel(tmp_path, POINTWISE_C, "scaled")
    plan = _plan(k)
    (c,) = plan.contracted
    assert c.dtype == "float" and c.loops == ("i", "j")
    (launch,) = plan.launches
    assert launch.coarsen > 1 and c.array not in launch.name
    text = generate(k)
    assert f"dev_{c.array}" not in text and f"float {c.register};" in text
    accepted_on_emu(k, text)


def test_a_tiled_product_through_a_temporary_keeps_a_register_per_point(tmp_path):
    k = _spec(tmp_path, "tmp_gemm",
              "  ni: {MINI: 20, SMALL: 60, MEDIUM: 200, LARGE: 1000, EXTRALARGE: 2000}\n"
              "  nj: {MINI: 25, SMALL: 70, MEDIUM: 220, LARGE: 1100, EXTRALARGE: 2300}\n"
              "  nk: {MINI: 30, SMALL: 80, MEDIUM: 240, LARGE: 1200, EXTRALARGE: 2600}\n"
              "scalars:\n  alpha: float\n  beta: float\n",
              "  a: float[ni, nk] in\n  b: float[nk, nj] in\n  c: float[ni, nj] inout\n",
              "let t[i, j] = sum(k: a[i, k] * b[k, j])\nc[i, j] = alpha * t[i, j] + beta * c[i, j]\n")
    plan = _plan(k)
    (c,) = plan.contracted
    (launch,) = plan.launches
    rows, cols = launch.tile
    text = generate(k)
    assert f"float {c.register}[{rows}][{cols}];" in text and f"dev_{c.array}" not in text
    accepted_on_emu(k, text)


#: C: a local array summed into by a loop and read right after it, in a tile of points
SUM_THEN_READ = _LOCAL.replace("kernel_loc", "sum_then_read").replace(
    "      T[i][j] = T[i][j] * 2.0;\n      B[i][j] = T[i][j + 0] * 3.0;", "      B[i][j] = T[i][j] * 3.0;")


def test_a_tile_sets_a_contracted_sum_before_the_statement_reading_it(tmp_path):
    """The tile's sum register goes into the point's register of T at once: forwarding a held
    store rewrites memory references only, so a store of T held back would come after its read."""
    k = c_kernel(tmp_path, SUM_THEN_READ, "sum_then_read")
    plan = _plan(k)
    assert [c.array for c in plan.contracted] == ["T"] and plan.launches[0].tile
    text = generate(k)
    assert "double poly_cell_T[" in text and "dev_T" not in text
    assert text.index("poly_cell_T[tm][tn] = acc[tm][tn];") < text.index("= poly_cell_T[tm][tn] * 3.0;")
    accepted_on_emu(k, text)
