"""Pairwise trees (tree.py): a doubling level loop that folds a buffer pairwise and leaves its
result in cell 0 runs as a block tree reduction in the reference's pairing, not a launch per level."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.frontends import read_kernel
from t2c.generators.poly import DEFAULT, generate, tree
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


@pytest.mark.parametrize("spec, leaf, pair, out", [("sum_tree.md", "x[i]", "poly_x + poly_y", "s"),
                                                   ("absmax_tree.md", "fabsf(x[i])", "fmaxf(poly_x, poly_y)", "m")])
def test_a_specs_pairwise_tree_is_a_block_tree_of_its_leaves(spec, leaf, pair, out):
    """The level loop, its copy back, the fills of a (fused as the leaves) and b, and the copy-out
    after the loop (run by the last block) launch nothing: the tree is one launch."""
    k = read_kernel(SPECS / spec)
    net = network_of(k)
    (t,) = net.trees
    assert (t.acc, t.scratch, t.dtype, t.gone) == ("a", "b", "float", (0, 1, 2, 3, 4))
    assert cprint(t.leaf) == leaf and cprint(t.pair) == pair and [cprint(x) for x in t.then] == [f"{out}[0] = a[0]"]
    text = generate(k)
    assert "% (2 * h)" not in text and "_exchange" not in text.split("extern")[0].split("// The model")[1]
    assert text.count("<<<") == 2 and "_tree0<<<" in text and "_tree0_top<<<1, 256>>>" in text
    assert f"poly_r = {pair};" in text
    accepted_on_emu(k, text)
    card = ladder(k, text, backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


def test_a_tree_keeps_the_references_pairing_of_an_unassociative_fold(tmp_path, monkeypatch):
    """`0.75 a[i] - 0.5 a[i + h]` gives another value in any other association; chunks of 32
    leaves make 1100 of them 35 chunks, two a block (at most 32 blocks), and the top folds the
    18 blocks' values."""
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
    assert t.leaf is None and t.gone == (2, 3, 4)   # (4: the copy-out after the loop)
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("spec", ["sum_tree.md", "absmax_tree.md"])
def test_a_networks_scratch_is_taken_as_the_polyhedral_printers_is(spec):
    """A network candidate's local arrays (sized by the call) are scratch as the polyhedral
    printer's are (scratch.py): from the default pool, kept between calls, so a repeated call maps
    no new memory; or, `pool` off, cudaMalloc and cudaFree in the call."""
    from t2c.generators.poly.scratch import POOL_KEPT
    k = read_kernel(SPECS / spec)
    pooled = generate(k)
    assert "\n".join(POOL_KEPT) in pooled[:pooled.index("cudaMallocAsync")]
    text = generate(k, DEFAULT.replace(pool=False))
    assert "cudaMalloc((void **)&poly_local_" in text and "cudaFree(poly_local_" in text and "MemPool" not in text
    accepted_on_emu(k, text)


REPEATS = r"""
#include <stdio.h>
void skew_tree(int n, double *x, double *y);
int main(void)
{
  static double x[1100];
  const int sizes[] = {1100, 5, 1, 64, 1100, 33};
  for (int i = 0; i < 1100; i++)
    x[i] = (i % 17) * 0.125 - 1.0;
  for (int c = 0; c < 6; c++) {
    double y = -7.0;
    skew_tree(sizes[c], x, &y);
    printf("%.17g\n", y);
  }
  return 0;
}
"""


def _skew(x):
    """The reference's level loop in Python (doubles, the same operations in the same order)."""
    a = [v * v - 0.25 for v in x]
    h = 1
    while h < len(a):
        a = [0.75 * a[i] - 0.5 * a[i + h] if i % (2 * h) == 0 and i + h < len(a) else a[i] for i in range(len(a))]
        h *= 2
    return a[0]


def test_repeated_calls_of_a_tree_point_its_scratch(tmp_path, monkeypatch):
    """One process calls the drop-in six times with sizes of one block, several blocks, and
    blocks of several chunks: each result is the reference's, and the device pointers to the
    scratch follow the pool's addresses when the sizes change (a call copies a pointer only when
    it changed)."""
    import subprocess
    from t2c.runtime.emu import build_emu
    monkeypatch.setattr(tree, "THREADS", 32)
    monkeypatch.setattr(tree, "RUN", 1)
    k = c_kernel(tmp_path, SKEW_TREE, "skew_tree")
    (tmp_path / "cand.cu").write_text(generate(k))
    (tmp_path / "driver.c").write_text(REPEATS)
    built = build_emu([tmp_path / "cand.cu"], tmp_path / "a.out", sanitize=False, extra_sources=[tmp_path / "driver.c"])
    assert built.ok, built.log
    got = [float(v) for v in subprocess.run([str(built.exe)], capture_output=True, text=True, timeout=120).stdout.split()]
    x = [(i % 17) * 0.125 - 1.0 for i in range(1100)]
    want = [_skew(x[:n]) for n in (1100, 5, 1, 64, 1100, 33)]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


OFFSETS = r"""
#include <stdio.h>
int main(void)
{
  const int n = 3 * 2048 + 5;
  float h[n + 1], *x, *s, got;
  for (int i = 0; i <= n; i++)
    h[i] = (float)((i * 37) % 101) / 7.0f - 6.0f;
  cudaMalloc((void **)&x, (n + 1) * sizeof(float));
  cudaMalloc((void **)&s, sizeof(float));
  cudaMemcpy(x, h, (n + 1) * sizeof(float), cudaMemcpyHostToDevice);
  for (int off = 0; off < 2; off++) {        /* x: aligned; x + 1: 4 bytes past */
    sum_tree_device(n, x + off, s);
    cudaMemcpy(&got, s, sizeof(float), cudaMemcpyDeviceToHost);
    printf("%.9g\n", got);
  }
  return 0;
}
"""


def test_a_thread_takes_its_run_by_16_byte_loads_from_aligned_pointers_only(tmp_path):
    """sum_tree's leaves x[i] are chunked: whole chunks of an aligned x load a thread's 8 leaves
    by two 16-byte loads, a pointer 4 bytes past one takes them one by one; both give the
    reference's sum bit for bit (the same pairing), here of 3 chunks and 5 leaves."""
    import subprocess
    import numpy as np
    from t2c.runtime.emu import build_emu
    k = read_kernel(SPECS / "sum_tree.md")
    (t,) = network_of(k).trees
    assert t.chunked == (("x", "float"),)
    text = generate(k)
    assert "(const uint4 *)&x[" in text and "((unsigned long long)(x) & 15) == 0" in text
    (tmp_path / "cand.cu").write_text(text + OFFSETS)
    built = build_emu([tmp_path / "cand.cu"], tmp_path / "a.out", sanitize=False)
    assert built.ok, built.log
    got = [float(v) for v in subprocess.run([str(built.exe)], capture_output=True, text=True, timeout=120).stdout.split()]
    n = 3 * 2048 + 5
    h = np.array([((i * 37) % 101) / np.float32(7.0) - np.float32(6.0) for i in range(n + 1)], dtype=np.float32)
    want = []
    for off in (0, 1):
        a, step = h[off:off + n].copy(), 1
        while step < n:                       # the spec's level loop, in float32
            a[0:n - step:2 * step] = a[0:n - step:2 * step] + a[step::2 * step][:len(a[0:n - step:2 * step])]
            step *= 2
        want.append(a[0])
    assert [np.float32(v) for v in got] == want      # (9 digits name a float exactly)
