"""Geometric loop counters (issue #35: multiplicative steps): `s *= 2`, `s <<= 1`, `s = s * 2` up from
a start >= 1, `s /= 2`, `s >>= 1`, `s = s / 2` down to a bound >= 0 (model._Builder.geometric).

The model reads such a loop over every integer between its ends (a superset, in order), the
analysis holds it carried, and the plan runs it as a host loop around the launches of its body
(or as a plain loop in a thread), printed from its own header (poly/geometric.py): tree sums
halving their stride, doubling scans, row-wise tree sums. A counter that could stay at 0 and a
loop stepping by a variable amount (`i += 2 * s`) are refused, naming the loop, line and fix.
"""
import pytest

from t2c.analysis import analyze, build_program
from t2c.analysis.cost import counts
from t2c.analysis.explain import explain
from t2c.generators.poly import generate
from t2c.generators.poly import geometric
from t2c.generators.poly.geometric import NETWORK as GEOMETRIC_NETWORK, misplaced
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.cuda import Printer
from t2c.generators.poly.mapping import HostLoop, Launch
from t2c.runtime.target import SM90
from t2c.generators.poly.options import DEFAULT
from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.frontends.c import read_c
from t2c.frontends import read_kernel

IDIOMS = ROOT / "corpora" / "loops" / "idioms"

HALVING = """\
/* t2c: size n MINI={n} SMALL=4000
 * t2c: array x[n] inout
 */
void halving(int n, double *x)
{{
  for (int s = n / 2; s > 0; {step})
    for (int i = 0; i < s; i++)
      x[i] += x[i + s];
}}
"""

DOUBLING = """\
/* t2c: size n MINI={n} SMALL=4000
 * t2c: array x[n] inout
 * t2c: array t[n] inout
 */
void doubling(int n, double *x, double *t)
{{
  for (int s = 1; s < n; {step}) {{
    for (int i = 0; i < n; i++)
      t[i] = i >= s ? x[i] + x[i - s] : x[i];
    for (int i = 0; i < n; i++)
      x[i] = t[i];
  }}
}}
"""

IN_A_THREAD = """\
/* t2c: size n MINI=41 SMALL=4000
 * t2c: array x[n] in
 * t2c: array y[n] inout
 */
void powers_back(int n, const double *x, double *y)
{
  for (int i = 0; i < n; i++)
    for (int s = 1; s <= i; s <<= 1)
      y[i] += x[i - s];
}
"""


def _host_loop(plan) -> HostLoop:
    h, = [it for it in plan.items if isinstance(it, HostLoop)]
    return h


@pytest.mark.parametrize("step", ["s >>= 1", "s /= 2", "s = s / 2"])
def test_a_halving_counter_is_a_host_loop_around_a_grid(tmp_path, step):
    k = c_kernel(tmp_path, HALVING.format(n=40, step=step))
    an = analyze(k)
    s, = an.program.body
    assert (s.var, s.step, s.geometric.factor, s.geometric.grows) == ("s", -1, 2, False)
    assert [(f.var, f.parallel) for f in an.loops] == [("s", False), ("i", True)]
    _, plan = final_plan(an, DEFAULT)
    h = _host_loop(plan)
    assert h.loop.geometric and (h.loop.init, h.loop.cond, h.loop.next) == ("int s = n / 2", "s > 0", step)
    launch, = [it for it in h.items if isinstance(it, Launch)]
    assert [l.var for l in launch.grid] == ["i"] and misplaced(plan) is None
    text = generate(k)
    assert f"for (int s = n / 2; s > 0; {step})" in text and "<<<1, 1>>>" not in text
    assert explain(an).splitlines()[-2:] == [
        f"loop s: in order, as written: a geometric counter (`{step}`, line 6; poly runs its body once per value)",
        "  loop i: parallel"]


@pytest.mark.parametrize("step", ["s *= 2", "s <<= 1", "s = 2 * s"])
def test_a_doubling_counter_is_a_host_loop_around_two_launches(tmp_path, step):
    k = c_kernel(tmp_path, DOUBLING.format(n=40, step=step))
    _, plan = final_plan(analyze(k), DEFAULT)
    h = _host_loop(plan)
    assert h.loop.geometric.grows and h.loop.next == step
    assert [[l.var for l in it.grid] for it in h.items] == [["i"], ["i"]]
    assert misplaced(plan) is None


@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_geometric_counters_compute_what_the_reference_does(tmp_path, n):
    """Sizes that are not powers of two, and ones where the counter runs once or never."""
    for text in (HALVING.format(n=n, step="s >>= 1"), DOUBLING.format(n=n, step="s *= 2")):
        k = c_kernel(tmp_path, text)
        accepted_on_emu(k, generate(k))


def test_a_geometric_counter_inside_a_parallel_loop_runs_in_each_thread(tmp_path):
    k = c_kernel(tmp_path, IN_A_THREAD)
    _, plan = final_plan(analyze(k), DEFAULT)
    launch, = plan.launches
    assert [l.var for l in launch.grid] == ["i"] and misplaced(plan) is None
    text = generate(k)
    assert "for (int s = 1; s <= i; s <<= 1)" in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("name,form", [("tree_halving", "host"), ("doubling_scan", "host"),
                                       ("row_tree_sums", "sweep")])
def test_the_corpus_geometric_idioms_run_in_parallel(name, form):
    k = read_c(IDIOMS / f"{name}.c")
    _, plan = final_plan(analyze(k), DEFAULT)
    assert misplaced(plan) is None and all(l.grid for l in plan.launches)
    if form == "host":
        assert _host_loop(plan).loop.geometric
    else:
        launch, = plan.launches
        assert launch.sweep and launch.sweep.carried


def test_instance_counts_take_the_counters_values_only(tmp_path):
    """n = 40: s = 20, 10, 5, 2, 1 (38 additions, 2 flops each as the model counts them), not every
    s in 1..20; the doubling scan: s = 1, 2, 4, 8, 16, 32."""
    an = analyze(c_kernel(tmp_path, HALVING.format(n=40, step="s >>= 1")))
    assert counts(an, {"n": 40}) == (2 * 38, 8 * 60, False)
    an = analyze(c_kernel(tmp_path, DOUBLING.format(n=40, step="s *= 2")))
    assert counts(an, {"n": 40})[0] == 6 * 40 * 2


def test_a_plan_that_runs_a_counter_other_than_from_its_header_falls_back(tmp_path):
    k = c_kernel(tmp_path, HALVING.format(n=40, step="s >>= 1"))
    _, plan = final_plan(analyze(k), DEFAULT)
    launch = plan.launches[0]
    launch.grid = [_host_loop(plan).loop, *launch.grid]
    assert misplaced(plan).startswith("loop 's' (line 6, `s >>= 1`) steps geometrically")
    assert "on the grid" in misplaced(plan)


@pytest.mark.parametrize("header,why", [
    ("int s = 0; s < n; s *= 2", "its start '0' may be below 1"),
    ("int s = n; s >= 0; s /= 2", "its bound may let it reach 0"),
    ("int s = 1; s < n; s *= 2) {\n    s += 0;\n  } for (int q = 0; q < 1; q++", "also written in its body"),
    ("int s = 1; s < x[0]; s *= 2", "its loop bound 'x[0]'"),
])
def test_a_geometric_counter_that_cannot_be_used_is_refused_by_name(tmp_path, header, why):
    k = c_kernel(tmp_path, f"""\
/* t2c: size n MINI=40
 * t2c: array x[n] inout
 */
void f(int n, int *x)
{{
  for ({header})
    x[0] += 1;
}}
""")
    text = generate(k)
    assert "line 6: loop step of 's' is not +1 or -1 (a geometric counter" in text and why in text


def test_a_step_by_a_variable_amount_is_refused_with_its_rewrite(tmp_path):
    k = c_kernel(tmp_path, """\
/* t2c: size n MINI=40
 * t2c: array x[n] inout
 */
void tree_sum(int n, float *x)
{
  for (int s = 1; s < n; s *= 2)
    for (int i = 0; i + s < n; i += 2 * s)
      x[i] += x[i + s];
}
""")
    text = generate(k)
    assert "line 7: loop step of 'i' is not +1 or -1: it steps by '2 * s', not a constant" in text
    assert "`t < n / (2 * s)` and `x[(2 * s) * t]`" in text
    with pytest.raises(Exception, match="steps by '2 \\* s'"):
        build_program(k)


@pytest.mark.parametrize("spec", ["sum_tree", "absmax_tree", "haar_wavelet"])
def test_a_level_loop_the_networks_take_keeps_their_candidate(spec):
    """A spec's `doubling`/`halving` levels are geometric counters the model reads; the exchange
    networks take these kernels too (a block tree, a launch per level's nest), and keep them."""
    k = read_kernel(ROOT / "corpora" / "text2cuda" / f"{spec}.md")
    assert geometric.loops(analyze(k).program.body)
    text = generate(k)
    assert GEOMETRIC_NETWORK in text and "_exchange0" in text


def test_the_doubling_scan_idiom_keeps_the_networks_candidate():
    """Its two nests per level are exchange loops (a thread per i, own cells): the networks' candidate
    as before, a launch per nest per level; the model's plan above launches the same."""
    text = generate(read_c(IDIOMS / "doubling_scan.c"))
    assert GEOMETRIC_NETWORK in text and "doubling_scan_exchange1" in text


def test_a_halving_tree_without_the_one_block_form_launches_per_level():
    """At sizes past one block's reach the host loop launches a grid per value of s (printed from the
    header); the emulator's sizes take the one-block form, so this checks the other path."""
    k = read_c(IDIOMS / "tree_halving.c")
    text = generate(k, DEFAULT.replace(one_block=None))
    assert "for (int s = n / 2; s > 0; s >>= 1)" in text and "tree_halving_loop_s" not in text
    accepted_on_emu(k, text)


def test_a_halving_while_loop_is_its_geometric_for_loop(tmp_path):
    """`int s = n / 2; while (s > 0) { ...; s /= 2; }` (whiles.py) is the for loop over s: a host loop."""
    k = c_kernel(tmp_path, """\
/* t2c: size n MINI=40 SMALL=4000
 * t2c: array x[n] inout
 */
void halving_while(int n, double *x)
{
  int s = n / 2;
  while (s > 0) {
    for (int i = 0; i < s; i++)
      x[i] += x[i + s];
    s /= 2;
  }
}
""")
    _, plan = final_plan(analyze(k), DEFAULT)
    h = _host_loop(plan)
    assert (h.loop.var, h.loop.next, h.loop.geometric.line) == ("s", "s /= 2", 7)
    accepted_on_emu(k, generate(k))


def test_two_counters_of_other_factors_are_not_fused(tmp_path):
    """Both loops read `s` from 1 to n - 1 in the model, but one doubles and one triples: fusion
    (transform._same_header) joined them under the first header, and y took x's values of s."""
    k = c_kernel(tmp_path, """\
/* t2c: size n MINI=40 SMALL=4000
 * t2c: array x[n] inout
 * t2c: array y[n] inout
 */
void two_counters(int n, double *x, double *y)
{
  for (int s = 1; s < n; s *= 2)
    for (int i = 0; i < n; i++)
      x[i] += s;
  for (int s = 1; s < n; s *= 3)
    for (int i = 0; i < n; i++)
      y[i] += s;
}
""")
    an, plan = final_plan(analyze(k), DEFAULT)
    launch, = plan.launches
    assert [(l.var, l.next) for l in launch.body] == [("s", "s *= 2"), ("s", "s *= 3")]
    accepted_on_emu(k, Printer(k, an, plan, DEFAULT, SM90).candidate())   # the model's plan, printed


def test_a_growing_counter_bounding_its_inner_loop_keeps_its_header(tmp_path):
    """`for (i = 0; i < s; i++)` inside: moving the parallel i outward rebuilt both loops' bounds from
    the model's (`s++`, every s), which ran values s never takes; a geometric counter's header is not
    rebuilt (transform.reordered), and the plan check names one that is (geometric.misplaced)."""
    k = c_kernel(tmp_path, """\
/* t2c: size n MINI=40 SMALL=4000
 * t2c: array x[n] in
 * t2c: array y[n] inout
 */
void tri_levels(int n, const double *x, double *y)
{
  for (int s = 1; s < n; s *= 2)
    for (int i = 0; i < s; i++)
      y[i] += s * x[i];
}
""")
    an, plan = final_plan(analyze(k), DEFAULT)
    h = _host_loop(plan)
    assert h.loop.next == "s *= 2" and [l.var for l in h.items[0].grid] == ["i"] and misplaced(plan) is None
    accepted_on_emu(k, Printer(k, an, plan, DEFAULT, SM90).candidate())   # the model's plan, printed
    h.loop.next = "s++"
    assert "under another header" in misplaced(plan)
