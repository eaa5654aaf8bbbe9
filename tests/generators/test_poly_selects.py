"""Selections (select.py): a stable argsort whose positions are read only below K (a spec's top-k
as `argsort_desc`, then gathers) runs as a radix select per row, not the whole sorting network."""
import pytest

from t2ctest import ROOT, accepted_on_emu
from t2c.frontends import read_kernel
from t2c.generators.poly import generate, select
from t2c.generators.poly.network import network_of
from t2c.ir.csyntax import cprint
from t2c.verify.ladder import ladder

SPECS = ROOT / "corpora" / "text2cuda"

ROUNDED = """---
name: topk_rounded
sizes:
  b: {MINI: 3, SMALL: 64}
  c: {MINI: 45, SMALL: 700}
  k: {MINI: 7, SMALL: 30}
constraints: [c >= k, k >= 1]
arrays:
  X: float[b, c] in
  vals: float[b, k] out
  inds: int[b, k] out
---
# Top-k of rounded scores

Keys of seven values, -0.0 among them (`round` of a small negative value), which compares equal
to 0.0: ties everywhere, ordered by the smaller index.

```t2c
let order[r in 0..b, q in 0..c] = argsort_desc(i: round(X[r, i] * 3.0))
inds[r, j] = order[r, j]
vals[r, j] = round(X[r, order[r, j]] * 3.0)
```
"""


@pytest.mark.parametrize("spec, key, ktype, descending", [("topk_rows.md", "X[r][poly_q]", "float", True),
                                                          ("bottomk_rows.md", "X[r][poly_q]", "int", False)])
def test_the_first_k_of_a_row_argsort_is_a_selection(spec, key, ktype, descending):
    """The network's fill and steps run only past `most`; below it a block per row selects."""
    k = read_kernel(SPECS / spec)
    (s,) = network_of(k).selects
    assert (s.perm, s.rows, cprint(s.first), cprint(s.length)) == ("order", ("r",), "k", "c")
    assert (cprint(s.key), s.key_type, s.descending, s.init, s.steps) == (key, ktype, descending, 0, (1, 2))
    text = generate(k)
    assert "if ((k) <= 1024) {" in text and f"{k.name}_select0<<<(unsigned)poly_rows, 512>>>" in text
    accepted_on_emu(k, text)
    card = ladder(k, text, backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


def test_ties_and_signed_zeros_keep_the_sorts_order(tmp_path):
    """Seven distinct keys in rows of 45: the K-th key has many ties, taken by smaller index, and
    -0.0 ties with 0.0 as the network's comparison has it."""
    path = tmp_path / "topk_rounded.md"
    path.write_text(ROUNDED)
    k = read_kernel(path)
    (s,) = network_of(k).selects
    assert cprint(s.key) == "roundf(X[r][poly_q] * 3.0f)"
    accepted_on_emu(k, generate(k))


def test_k_past_the_selections_reach_runs_the_network(monkeypatch):
    """With room for 4, k = 6 takes the host's other branch: the fill and the sorting network."""
    monkeypatch.setattr(select, "MOST", 4)
    k = read_kernel(SPECS / "bottomk_rows.md")
    text = generate(k)
    assert "if ((k) <= 4) {" in text and "if (!((k) <= 4)) {" in text
    accepted_on_emu(k, text)


TWO = """---
name: two_topk
sizes:
  b: {MINI: 3, SMALL: 64}
  c: {MINI: 20, SMALL: 500}
  k: {MINI: 4, SMALL: 10}
constraints: [c >= k, k >= 1]
arrays:
  X: float[b, c] in
  hi: int[b, k] out
  lo: int[b, k] out
---
# Largest and smallest magnitudes

The indices of the k largest values and of the k smallest magnitudes of every row.

```t2c
let up[r in 0..b, q in 0..c] = argsort_desc(i: X[r, i])
let down[r in 0..b, q in 0..c] = argsort(i: abs(X[r, i]))
hi[r, j] = up[r, j]
lo[r, j] = down[r, j]
```
"""


def test_two_sorts_of_a_spec_are_two_selections(tmp_path):
    """Each sort's network has host loops of its own names (net_k1, net_k2, ...)."""
    path = tmp_path / "two_topk.md"
    path.write_text(TWO)
    k = read_kernel(path)
    got = [(s.perm, cprint(s.key), s.descending, s.init, s.steps) for s in network_of(k).selects]
    assert got == [("up", "X[r][poly_q]", True, 0, (1, 2)), ("down", "fabsf(X[r][poly_q])", False, 3, (4, 5))]
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("spec", ["argsort_rows.md", "sort_keys.md"])
def test_a_sort_read_whole_is_no_selection(spec):
    """An argsort that is the output, a sort of the values themselves: no selection (a radix sort:
    test_poly_sorts)."""
    k = read_kernel(SPECS / spec)
    assert network_of(k).selects == ()
    assert "_select" not in generate(k)


def test_a_read_past_plain_positions_is_no_selection(tmp_path):
    """The last k positions (`order[r, c - 1 - j]`): not the first K."""
    path = tmp_path / "lastk.md"
    path.write_text(ROUNDED.replace("name: topk_rounded", "name: lastk").replace(
        "inds[r, j] = order[r, j]", "inds[r, j] = order[r, c - 1 - j]"))
    assert network_of(read_kernel(path)).selects == ()
