"""Sorts (sorts.py): a compiled sort of 32-bit keys whose result is read whole (not only its first
K: select.py) runs as an LSD radix sort, a block per row up to `MOST` keys, else passes of count,
scan and scatter kernels over tiles; 64-bit keys keep the bitonic network."""
import pytest

from t2ctest import ROOT, accepted_on_emu
from t2c.frontends import read_kernel
from t2c.frontends.c import read_c
from t2c.generators.poly import generate, sorts
from t2c.generators.poly.network import network_of
from t2c.ir.csyntax import cprint
from t2c.verify.ladder import ladder

SPECS = ROOT / "corpora" / "text2cuda"
LOOPS = ROOT / "corpora" / "loops" / "gpu"

# a value sort, descending, into a local array read whole; SMALL rows past MOST (two tiles, the last partial)
ROWS_DESC = """---
name: sort_rows_desc
sizes:
  b: {MINI: 3, SMALL: 9}
  c: {MINI: 150, SMALL: 3001}
arrays:
  X: float[b, c] in
  Y: float[b, c] out
domains:
  X: integers(-40, 40)
---
# Rows largest first, then scaled

```t2c
let s[r in 0..b, q in 0..c] = sort_desc(i: X[r, i] - 0.5)
Y[r, q] = s[r, q] * 2.0
```
"""

# an ascending argsort of int keys with many ties, negative ones among them
ARGSORT_INTS = """---
name: argsort_ints
sizes:
  b: {MINI: 4, SMALL: 5}
  c: {MINI: 33, SMALL: 4100}
arrays:
  X: int[b, c] in
  order: int[b, c] out
domains:
  X: integers(-8, 8)
---
# Stable argsort of integer rows

```t2c
order[r, q] = argsort(i: X[r, i])
```
"""

# keys of seven values, -0.0 among them (`round` of a small negative value), equal to 0.0: ties by index
SIGNED_ZEROS = """---
name: argsort_rounded
sizes:
  b: {MINI: 3, SMALL: 20}
  c: {MINI: 150, SMALL: 700}
arrays:
  X: float[b, c] in
  order: int[b, c] out
---
# Stable argsort of rounded scores, largest first

```t2c
order[r, q] = argsort_desc(i: round(X[r, i] * 3.0))
```
"""

# double keys: the network stays
SORT_DOUBLES = (SPECS / "sort_keys.md").read_text().replace("name: sort_keys", "name: sort_doubles").replace(
    "unsigned[n]", "double[n]").replace("domains:\n  keys: integers(0, 1000000)\n", "")


def _spec(tmp_path, text: str):
    name = text.split("name: ")[1].split("\n")[0]
    path = tmp_path / f"{name}.md"
    path.write_text(text)
    return read_kernel(path)


@pytest.mark.parametrize("source, record", [
    ("sort_keys", ("sorted", (), "n", "keys[poly_q]", "unsigned", False, False, 0, (1, 2))),
    ("argsort_rows", ("order", ("r",), "c", "X[r][poly_q]", "float", True, True, 0, (1, 2))),
    (ROWS_DESC, ("s", ("r",), "c", "X[r][poly_q] - 0.5f", "float", True, False, 0, (1, 2))),
    (ARGSORT_INTS, ("order", ("r",), "c", "X[r][poly_q]", "int", False, True, 0, (1, 2))),
], ids=["sort_keys", "argsort_rows", "sort_rows_desc", "argsort_ints"])
def test_a_sort_read_whole_is_a_radix_sort(tmp_path, source, record):
    """Value sorts and argsorts, ascending and descending, into outputs and local arrays: a Sort,
    whose fill and network steps launch nothing."""
    k = _spec(tmp_path, source) if "\n" in source else read_kernel(SPECS / f"{source}.md")
    net = network_of(k)
    (s,) = net.sorts
    assert (s.array, s.rows, cprint(s.length), cprint(s.key), s.key_type, s.descending, s.argsort, s.init,
            s.steps) == record
    assert net.selects == () and net.tilings == ()
    text = generate(k)
    assert f"{k.name}_sort0_rows<<<" in text and f"{k.name}_sort0_scatter<<<" in text
    assert "_exchange0<<<" not in text and f"//   {k.name}_exchange1: no launch: {k.name}_sort0 sorts instead." in text


@pytest.mark.parametrize("spec", ["topk_rows.md", "bottomk_rows.md"])
def test_a_sort_read_at_its_first_k_stays_a_selection(spec):
    net = network_of(read_kernel(SPECS / spec))
    assert len(net.selects) == 1 and net.sorts == ()


def test_64_bit_keys_and_other_shapes_keep_the_network(tmp_path):
    """Double keys (a spec's sort, row_argsort.c); bitonic_sort.c is a classic bitonic network, not
    a compiled sort's (its directions alternate by `i & size`, its keys are double too)."""
    net = network_of(_spec(tmp_path, SORT_DOUBLES))
    assert net.sorts == () and [t.members for t in net.tilings] == [(0, 1, 2)]
    for c in ("row_argsort.c", "bitonic_sort.c"):
        assert network_of(read_c(LOOPS / c)).sorts == ()


@pytest.mark.parametrize("spec", ["sort_keys.md", "argsort_rows.md"])
@pytest.mark.parametrize("dataset", ["MINI", pytest.param("SMALL", marks=pytest.mark.full)])
def test_the_corpus_sorts_are_accepted_on_emu(monkeypatch, spec, dataset):
    """SMALL: sort_keys's 65 536 keys take the tiled passes, argsort_rows's 64 rows of 200 the row
    block (the emu's work budget raised so that the full rung runs SMALL itself)."""
    monkeypatch.setenv("T2C_VERIFY_EMU_WORK", "1e9")
    k = read_kernel(SPECS / spec)
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=3)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("spec", [ROWS_DESC, ARGSORT_INTS], ids=["sort_rows_desc", "argsort_ints"])
@pytest.mark.parametrize("dataset", ["MINI", pytest.param("SMALL", marks=pytest.mark.full)])
def test_long_rows_take_the_passes_over_tiles(tmp_path, monkeypatch, spec, dataset):
    """SMALL: several rows past MOST, lengths no multiple of the tile, descending value sorts of
    negative floats and ascending argsorts of int ties."""
    monkeypatch.setenv("T2C_VERIFY_EMU_WORK", "1e9")
    k = _spec(tmp_path, spec)
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=3)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("spec", [ROWS_DESC, SIGNED_ZEROS, "argsort_rows.md"],
                         ids=["sort_rows_desc", "argsort_rounded", "argsort_rows"])
def test_tiles_of_64_keys(tmp_path, monkeypatch, spec):
    """With MOST = 64 the ladder's points (MINI, random and smoke sizes: 1, primes, past 128) run
    both paths: rows of one partial tile in a block, longer ones in several tiles; -0.0 ties with
    0.0 in an argsort as the network's comparison has it."""
    monkeypatch.setattr(sorts, "MOST", 64)
    k = _spec(tmp_path, spec) if "\n" in spec else read_kernel(SPECS / spec)
    text = generate(k)
    assert "if (poly_c <= 64) {" in text
    accepted_on_emu(k, text)
