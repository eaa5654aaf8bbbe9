"""Pairwise trees (tree.py): a doubling level loop that folds a buffer pairwise and leaves its
result in cell 0 runs as a block tree reduction in the reference's pairing, not a launch per level."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.frontends import read_kernel
from t2c.generators.poly import generate, tree
from t2c.generators.poly.network import network_of
from t2c.ir.csyntax import cprint
from t2c.verify.ladder import ladder

SPECS = ROOT / "corpora" / "text2cuda"

SKEW_TREE = """
/* t2c: size n MINI=1100
 * t2c: array x[n] in
 * t2c: array y[1] out */
void skew_tree(int n, double *x, double *y)
{
  int i;
  int h;
  double a[n];
  double b[n];
  for (i = 0; i < n; i++)
    a[i] = x[i] * x[i] - 0.25;
  for (h = 1; h < n; h *= 2) {
    for (i = 0; i < n; i++)
      b[i] = i % (2 * h) == 0 && i + h < n ? 0.75 * a[i] - 0.5 * a[i + h] : a[i];
    for (i = 0; i < n; i++)
      a[i] = b[i];
  }
  y[0] = a[0];
}
"""


@pytest.mark.parametrize("spec, leaf, pair", [("sum_tree.md", "x[i]", "poly_x + poly_y"),
                                              ("absmax_tree.md", "fabsf(x[i])", "fmaxf(poly_x, poly_y)")])
def test_a_specs_pairwise_tree_is_a_block_tree_of_its_leaves(spec, leaf, pair):
    """The level loop, its copy back and the fills of a (fused as the leaves) and b launch nothing."""
    k = read_kernel(SPECS / spec)
    net = network_of(k)
    (t,) = net.trees
    assert (t.acc, t.scratch, t.dtype, t.gone) == ("a", "b", "float", (0, 1, 2, 3))
    assert cprint(t.leaf) == leaf and cprint(t.pair) == pair
    text = generate(k)
    assert "% (2 * h)" not in text and "_exchange0<<<" not in text and "_tree0_leaves<<<" in text
    assert f"poly_r = {pair};" in text
    accepted_on_emu(k, text)
    card = ladder(k, text, backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


def test_a_tree_keeps_the_references_pairing_of_an_unassociative_fold(tmp_path, monkeypatch):
    """`0.75 a[i] - 0.5 a[i + h]` gives another value in any other association; blocks of 32
    leaves make 1100 of them three passes (the runs' values alternate between b and a)."""
    monkeypatch.setattr(tree, "THREADS", 32)
    monkeypatch.setattr(tree, "RUN", 1)
    k = c_kernel(tmp_path, SKEW_TREE, "skew_tree")
    (t,) = network_of(k).trees
    assert (t.chunk, cprint(t.leaf)) == (32, "(x[i] * x[i]) - 0.25")
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("change", [
    ("y[0] = a[0];", "y[0] = a[n > 1 ? 1 : 0];"),        # another cell of a is read after the loop
                                                         # (within a: the model reads the kernel and the
                                                         # frontend refuses an access past its extent)
    ("y[0] = a[0];", "y[0] = a[0] + b[0];"),             # b is read after the loop
    ("a[i + h] : a[i]", "a[i + h] : a[i] + x[i]"),       # no partner: not the cell as it was
    ("0.5 * a[i + h]", "0.5 * a[i + h] * x[i]"),         # the pair reads another array
    ("h *= 2", "h *= 3"),                                # no doubling
])
def test_other_level_loops_are_no_tree(tmp_path, change):
    k = c_kernel(tmp_path, SKEW_TREE.replace(*change), "skew_tree")
    net = network_of(k)
    assert net is not None and net.trees == ()


def test_a_fill_read_between_it_and_the_loop_is_no_leaf(tmp_path):
    """a copied out before the loop: the leaves read a, whose fill still launches."""
    source = SKEW_TREE.replace("double *y)", "double *y, double *z)").replace(
        "array y[1] out */", "array y[1] out\n * t2c: array z[n] out */").replace(
        "  for (h = 1;", "  for (i = 0; i < n; i++)\n    z[i] = a[i];\n  for (h = 1;")
    k = c_kernel(tmp_path, source, "skew_tree")
    (t,) = network_of(k).trees
    assert t.leaf is None and t.gone == (2, 3)
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("spec", ["sum_tree.md", "absmax_tree.md"])
def test_a_networks_scratch_stays_in_the_pool_between_calls(spec):
    """A network candidate's local arrays (sized by the call) come from the default pool, kept
    between calls as the polyhedral printer's are, so a repeated call maps no new memory."""
    from t2c.generators.poly.cuda import POOL_KEPT
    text = generate(read_kernel(SPECS / spec))
    first = text.index("cudaMallocAsync")
    assert "\n".join(POOL_KEPT) in text[:first]
