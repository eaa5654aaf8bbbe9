"""Exchange networks (network.py): host control the model refuses (loops that double or halve)
around loops whose iterations touch disjoint cells, X[i] and X[i ^ E] under one guard."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.frontends import read_kernel
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.generators.poly.network import network_of, swaps

LOOPS = ROOT / "corpora" / "loops" / "gpu"


def test_a_bitonic_sort_is_a_launch_per_stage_on_the_host():
    """It ran in one GPU thread: the doubling and halving loops left the model."""
    k = read_c(LOOPS / "bitonic_sort.c")
    text = generate(k)
    assert "for (int size = 2; size <= (1 << p); size *= 2) {" in text      # `int n = 1 << p;` read as its value
    assert "bitonic_sort_exchange0<<<" in text and "int size, int stride, int poly_lo0, int poly_n0, long long poly_count)" in text
    accepted_on_emu(k, text)


def test_a_butterfly_of_sums_and_differences_is_one_too():
    k = read_c(LOOPS / "walsh_hadamard.c")
    assert [ex.partner for ex in network_of(k).loops] == ["j"]
    accepted_on_emu(k, generate(k))


def test_host_control_around_a_loop_of_own_cells(tmp_path):
    """No partner: each iteration writes x[i] only, and reads an input anywhere; the host loop halves."""
    k = c_kernel(tmp_path, """
/* t2c: size n MINI=24
 * t2c: array x[n] inout
 * t2c: array w[n] in */
void halving_blend(int n, double *x, const double *w)
{
  int levels = 0;
  for (int s = n; s > 1; s /= 2) {
    levels++;
    for (int i = 0; i < n; i++)
      x[i] = 0.5 * x[i] + w[(i + s) % n] * levels;
  }
}
""", "halving_blend")
    text = generate(k)
    assert "halving_blend_exchange0<<<" in text and "int levels, int s" in text
    accepted_on_emu(k, text)


def test_a_pair_touched_outside_its_guard_stays_in_one_thread(tmp_path):
    """x[i] read outside `if (j > i)`: iteration j would read the cell iteration i writes."""
    k = c_kernel(tmp_path, """
/* t2c: size p MINI=4
 * t2c: array x[1 << p] inout */
void leaky(int p, double *x)
{
  int n = 1 << p;
  for (int h = 1; h < n; h *= 2)
    for (int i = 0; i < n; i++) {
      int j = i ^ h;
      double u = x[i];
      if (j > i)
        x[j] = u + x[j];
    }
}
""", "leaky")
    assert network_of(k) is None
    assert "exchange" not in generate(k)


def test_host_code_reads_no_array(tmp_path):
    """A host loop whose bound is read from an array is not host code (the array is on the device)."""
    k = c_kernel(tmp_path, """
/* t2c: size n MINI=8
 * t2c: array x[n] inout
 * t2c: array m[1] in
 * t2c: domain m integers(1, 3) */
void scaled(int n, double *x, const int *m)
{
  for (int r = 1; r <= m[0]; r *= 2)
    for (int i = 0; i < n; i++)
      x[i] = 2.0 * x[i];
}
""", "scaled")
    assert network_of(k) is None


def test_a_stable_row_argsort_for_any_n_runs_a_thread_per_row_and_index():
    """Exchange nests: loops over rows around the pairing loop, subscripts (r, i) and (r, j); the
    guard `j > i && j < n` (cells past n act as +infinity) still gives each pair one owner."""
    k = read_c(LOOPS / "row_argsort.c")
    net = network_of(k)
    assert [(ex.vars, ex.partner) for ex in net.loops] == [(("r", "i"), None), (("r", "i"), "j"), (("r", "i"), "j")]
    text = generate(k)
    assert "    const int i = poly_lo1 + (int)(poly_q % poly_n1);\n    poly_q /= poly_n1;\n" in text
    accepted_on_emu(k, text)


def test_an_array_written_in_two_subscript_orders_is_no_exchange_nest(tmp_path):
    """t[r][i] and t[i][r] in one nest: thread (r, i) and thread (i, r) would share cells."""
    k = c_kernel(tmp_path, """
/* t2c: size n MINI=6
 * t2c: array t[n][n] inout */
void swap_halves(int n, double t[n][n])
{
  for (int h = 1; h < n; h *= 2)
    for (int r = 0; r < n; r++)
      for (int i = 0; i < n; i++)
        t[r][i] = t[r][i] + t[i][r];
}
""", "swap_halves")
    assert network_of(k) is None


HALVING_WITH_BUFFER = """
/* t2c: size n MINI=24
 * t2c: array x[n] in
 * t2c: array y[n] out
 * t2c: array s[1] out */
void levels(int n, float *x, float *y, float *s)
{
  int i;
  int h;
  float t[n];
  for (i = 0; i < n; i++)
    y[i] = x[i];
  for (h = n / 2; h > 0; h /= 2) {
    for (i = 0; i < h; i++)
      t[i] = y[2 * i] + y[2 * i + 1];
    for (i = 0; i < h; i++)
      y[i] = t[i];
  }
  s[0] = y[0];
}
"""


def test_a_compiled_spec_level_loop_with_a_local_buffer_is_a_network(tmp_path):
    """How a spec compiles (counters declared at the top, a temporary as a local array of size n,
    a last statement on one cell): it ran in one GPU thread with a variable-length array."""
    k = c_kernel(tmp_path, HALVING_WITH_BUFFER, "levels")
    net = network_of(k)
    assert net is not None and net.local_arrays == {"t": ("float", ("n",))}
    text = generate(k)
    assert "__device__ float *poly_buf_t;" in text and "poly_buf_t[i] = y[2 * i] + y[(2 * i) + 1];" in text
    assert "one thread runs `s[0] = y[0]`" in text and "float t[n]" not in text
    accepted_on_emu(k, text)


def test_a_counter_read_outside_its_loops_is_the_hosts(tmp_path):
    """`i` read after its loop (its final value) is host state: that loop is not a launch."""
    k = c_kernel(tmp_path, HALVING_WITH_BUFFER.replace("s[0] = y[0];", "s[0] = y[0] + i;"), "levels")
    assert network_of(k) is None


# -- tilings: steps below the tile in one launch on shared memory --------------------------

SPECS = ROOT / "corpora" / "text2cuda"


def _sort_doubles(tmp_path):
    """sort_keys.md with double keys: a compiled sort that stays a network (sorts.py takes 32-bit keys)."""
    from t2c.frontends import read_kernel
    path = tmp_path / "sort_doubles.md"
    path.write_text((SPECS / "sort_keys.md").read_text().replace("name: sort_keys", "name: sort_doubles").replace(
        "unsigned[n]", "double[n]").replace("domains:\n  keys: integers(0, 1000000)\n", ""))
    return read_kernel(path)


def test_a_sorts_steps_share_one_tiling_of_shared_memory(tmp_path):
    """The copy, the mirror steps and the halving steps of a compiled `sort` write `sorted[q]`
    alike: one tiling, its tile the largest power of two whose cells fill half the static shared
    memory at most (2048 double keys), the mirror and halving steps bounded by `j < n`."""
    net = network_of(_sort_doubles(tmp_path))
    assert [(t.members, t.arrays, t.tile, t.threads) for t in net.tilings] == \
        [((0, 1, 2), (("sorted", "double", (0,)),), 2048, 512)]
    assert [(ex.tiling, ex.bounded) for ex in net.loops] == [(0, False), (0, True), (0, True)]


def test_row_networks_tile_the_row_and_leave_the_outputs_alone():
    """topk_rows: the row's argsort (order[r][q]) is a tiling of three nests over (r, q); the two
    copies of its first k columns are one nest of own cells each, launched as before."""
    from t2c.frontends import read_kernel
    net = network_of(read_kernel(SPECS / "topk_rows.md"))
    assert [(t.members, t.arrays) for t in net.tilings] == [((0, 1, 2), (("order", "int", (0, 1)),))]
    assert [ex.tiling for ex in net.loops] == [0, 0, 0, None, None]
    k = read_c(LOOPS / "row_argsort.c")
    assert [(t.members, t.arrays, t.tile) for t in network_of(k).tilings] == [((0, 1, 2), (("order", "int", (0, 1)),), 4096)]


def test_an_unbounded_partner_is_checked_on_the_host():
    """bitonic_sort's guard is `j > i` alone: its steps join the queue only when the range is whole
    aligned runs past the partner distance (poly_net_closed); double keys: tiles of 2048."""
    k = read_c(LOOPS / "bitonic_sort.c")
    net = network_of(k)
    assert [(t.members, t.tile, t.threads) for t in net.tilings] == [((0,), 2048, 512)]
    assert not net.loops[0].bounded
    text = generate(k)
    assert "poly_e < poly_tile && poly_net_closed(poly_e, poly_lo[0], poly_lo[0] + poly_n0)) {" in text
    assert "__shared__ double poly_tile_a[2048];" in text


def test_a_sort_queues_its_steps_and_launches_the_far_ones_alone(tmp_path):
    """The printed host code: each step's instance queued when its partner distance is below the
    tile, else the queue launched and then the step on its own; the queue launched at the end."""
    k = _sort_doubles(tmp_path)
    text = generate(k)
    assert "const int poly_e = (net_k1 - 1);\n" in text and "const int poly_e = (net_s1);\n" in text
    assert text.count("sort_doubles_queue0(n, keys, sorted, &poly_b0, poly_tile, poly_lo, poly_n);") == 3
    assert "          poly_tile_sorted[q - poly_base] = keys[q];" in text
    assert text.split('extern "C" void sort_doubles_device')[1].split("\n}\n")[0].endswith(
        "  sort_doubles_flush0(n, keys, sorted, &poly_b0);")
    accepted_on_emu(k, text)


def test_nests_of_own_cells_are_no_tiling(tmp_path):
    """Without a partner, nests (a halving loop, a spec's level loops of a tree sum and a Haar
    transform) would only pass their cells through shared memory: no tiling."""
    from t2c.frontends import read_kernel
    k = c_kernel(tmp_path, """
/* t2c: size n MINI=24
 * t2c: array x[n] inout
 * t2c: array w[n] in */
void halving_blend(int n, double *x, const double *w)
{
  for (int s = n; s > 1; s /= 2)
    for (int i = 0; i < n; i++)
      x[i] = 0.5 * x[i] + w[(i + s) % n];
}
""", "halving_blend")
    assert network_of(k).tilings == ()
    for spec in ("sum_tree.md", "haar_wavelet.md"):
        assert network_of(read_kernel(SPECS / spec)).tilings == ()


@pytest.mark.parametrize("source", ["sort_doubles", "text2cuda/topk_rows.md", "loops/gpu/bitonic_sort.c",
                                    "loops/gpu/row_argsort.c"])
def test_networks_on_small_tiles_are_accepted(tmp_path, source):
    """A target with little shared memory makes tiles of 16 or 32 cells, so that the ladder's sizes
    (MINI, primes, sizes past 128) run ranges of several tiles, a last partial tile, lengths that
    are no power of two and steps both queued and launched alone; ties and payloads as the reference."""
    from t2c.frontends import read_kernel
    from t2c.runtime.target import Target
    k = _sort_doubles(tmp_path) if source == "sort_doubles" else read_kernel(ROOT / "corpora" / source)
    small = Target(shared_static=256)
    assert {t.tile for t in network_of(k, small).tilings} <= {16, 32}
    accepted_on_emu(k, generate(k, target=small))


DOUBLING_SCAN = """
/* t2c: size n MINI=40
 * t2c: array x[n] in
 * t2c: array y[n] out */
void doubling_scan(int n, float *x, float *y)
{
  int i;
  int h;
  float a[n];
  float b[n];
  for (i = 0; i < n; i++)
    a[i] = x[i];
  for (i = 0; i < n; i++)
    b[i] = 0.0f;
  for (h = 1; h < n; h *= 2) {
    for (i = 0; i < n; i++)
      b[i] = i >= h ? a[i] + a[i - h] : a[i];
    for (i = 0; i < n; i++)
      a[i] = b[i];
  }
  for (i = 0; i < n; i++)
    y[i] = a[i];
}
"""


@pytest.mark.parametrize("source, name", [("sum_tree", "sum_tree"), (DOUBLING_SCAN, "doubling_scan")])
def test_a_level_loops_copy_back_of_a_buffer_it_rewrites_trades_the_buffers(tmp_path, source, name):
    """`b[i] = f(a); a[i] = b[i]` per level (a pairwise tree sum, a doubling scan): b is rewritten
    whole before it is read again and never read after the loop, so the copy is no pass over
    memory: the two buffers trade places."""
    k = read_kernel(ROOT / "corpora/text2cuda/sum_tree.md") if source == "sum_tree" else c_kernel(tmp_path, source, name)
    assert list(swaps(network_of(k)).values()) == [("a", "b")]
    text = generate(k)
    assert "poly_buf_a[i] = poly_buf_b[i];" not in text
    if source == "sum_tree":           # a pairwise tree: a block tree has no copy at all (tree.py)
        assert "no launch: folded into sum_tree_tree0" in text
        return
    assert "the buffers trade places" in text
    accepted_on_emu(k, text)


def test_a_buffer_read_after_the_loop_or_partly_rewritten_keeps_its_copy(tmp_path):
    """b read after the level loop; a Haar transform's levels rewrite only part of their buffer."""
    k = c_kernel(tmp_path, DOUBLING_SCAN.replace("y[i] = a[i];", "y[i] = a[i] + b[i];"), "doubling_scan")
    assert swaps(network_of(k)) == {}
    accepted_on_emu(k, generate(k))
    assert swaps(network_of(read_kernel(ROOT / "corpora/text2cuda/haar_wavelet.md"))) == {}
