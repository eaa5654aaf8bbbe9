"""corpora/loops: kernels written from other loop suites (corpora/loops/README.md).  make test
reads every file and runs the defects they found; the nightly tier verifies the whole corpus.
The plan check (no loop in one thread where a parallel form exists) covers corpora/text2cuda's
formal specs too."""
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from t2ctest import ROOT
from t2c.analysis.model import Loop
from t2c.errors import UserError
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.ir import ISError, from_yaml, to_yaml
from t2c.runtime.target import SM90
from t2c.verify.inputs import synthesize

LOOPS = ROOT / "corpora" / "loops"
FILES = sorted(LOOPS.rglob("*.c"))
CLASS = re.compile(r"class: (affine|gather|data-dependent) — ")


def test_every_kernel_reads_and_names_its_class():
    assert len(FILES) >= 45
    for p in FILES:
        assert CLASS.search(p.read_text()), f"{p.name}: the header names no class"
        k = read_c(p)
        assert {s.name for s in k.sizes} and all(s.preset("LARGE") for s in k.sizes), p.name


def test_large_presets_fit_in_memory_and_in_int_indices():
    """LARGE is where reports time a kernel against its sequential C (0.05 to 5 s on one core,
    README), EXTRALARGE the largest preset; raising them to reach that time is bounded by memory
    and by the C code's int subscripts.  At LARGE all arrays of a kernel together hold at most
    2 GiB and at EXTRALARGE 8 GiB (so that several kernels verify at once on one host); each
    array has fewer than 2^31 elements, so a flat int subscript such as i * n + j cannot
    overflow; and EXTRALARGE is at least LARGE in every size."""
    from t2c.ir import DTYPES
    from t2c.ir.kernel import eval_extent
    for p in FILES:
        k = read_c(p)
        large, extra = k.dataset_sizes("LARGE"), k.dataset_sizes("EXTRALARGE")
        assert all(extra[s] >= large[s] for s in large), (p.name, large, extra)
        for sizes, limit in ((large, 2 << 30), (extra, 8 << 30)):
            counts = {a.name: math.prod(eval_extent(e, sizes) for e in a.shape) for a in k.arrays}
            assert max(counts.values()) < 2 ** 31, (p.name, sizes, counts)
            total = sum(counts[a.name] * DTYPES[a.dtype][0] for a in k.arrays)
            assert total <= limit, (p.name, sizes, total)


def test_generated_locals_do_not_shadow_the_kernels_names():
    """A whole-loop reduction's kernels named their own locals q, s, red, total and parts: an
    accumulator called q (Livermore's inner product) was shadowed by the loop over the blocks'
    partial sums, and the candidate returned 0.  Generated names carry the poly_ prefix."""
    from t2c.verify.ladder import ladder
    k = read_c(LOOPS / "livermore" / "inner_product.c")
    text = generate(k)
    assert "for (int poly_q = threadIdx.x; poly_q < gridDim.x; poly_q += blockDim.x)" in text
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


def test_a_loop_with_a_data_dependent_exit_is_kept_whole():
    """An escape-time loop (`if (|z| > 2) break;`) was split into two loops by distribution, the
    second counting every iteration: wrong counts.  A loop whose exit depends on the data is one
    statement of the model, the whole `for`: each thread of the (i, j) grid runs it as written."""
    from t2c.verify.ladder import ladder
    k = read_c(LOOPS / "gpu" / "mandelbrot.c")
    text = generate(k)
    assert "one thread per (i, j)" in text
    assert re.search(r"\n( *)if \(\(\(zr \* zr\) \+ \(zi \* zi\)\) > 4\.0\)\n\1  break;\n", text)
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


def test_a_domain_bound_may_be_an_expression_over_the_sizes(tmp_path):
    """A gather's index array holds valid indices: `integers(0, n - 1)` (was refused: only numbers)."""
    k = read_c(LOOPS / "vectorizer" / "gather.c")
    d = next(d for d in k.domains if d.target == "idx")
    assert (d.low, d.high, d.text()) == (0.0, "n - 1", "integers(0, n - 1)")
    for n in (1, 7, 50):
        idx = synthesize(k, {"n": n}, 5)["idx"]
        assert idx.min() >= 0 and idx.max() <= n - 1 and (n < 50 or idx.max() == n - 1)
    assert from_yaml(to_yaml(k)).key() == k.key()
    bad = tmp_path / "bad.c"
    bad.write_text((LOOPS / "vectorizer" / "gather.c").read_text().replace("integers(0, n - 1)", "integers(0, m - 1)"))
    with pytest.raises((ISError, UserError), match="a bound is a number or an expression over the sizes"):
        read_c(bad)


def test_extents_may_shift_and_math_may_call_erfc():
    """`a[1 << p]` (a sorting network over 2^p elements) and erfc (Black-Scholes' normal CDF)."""
    from t2c.verify.reference import run_reference
    sort = read_c(LOOPS / "gpu" / "bitonic_sort.c")
    run = run_reference(sort, {"p": 4}, synthesize(sort, {"p": 4}, 1))
    assert run.outputs["a"].shape == (16,) and np.all(np.diff(run.outputs["a"]) >= 0)
    assert "erfc" in read_c(LOOPS / "rodinia" / "black_scholes.c").reference


@pytest.mark.full
def test_every_kernel_is_accepted_on_emu_at_mini(tmp_path):
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "batch", str(LOOPS), "--backend", "emu", "--dataset", "MINI",
                        "--report-dir", str(tmp_path / "report")], capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0 and f"{len(FILES)} accepted of {len(FILES)} kernels" in r.stdout, r.stdout + r.stderr[-3000:]


def test_a_gather_from_an_input_array_stays_parallel():
    """`a[i] = b[idx[i]] * s` ran on one GPU thread ("a data-dependent read"): b is never written,
    so reading it anywhere orders nothing and the loop over i is parallel."""
    from t2c.verify.ladder import ladder
    k = read_c(LOOPS / "vectorizer" / "gather.c")
    text = generate(k)
    assert "gather_update_a: one thread per (i): i -> x." in text and "a[i] = b[idx[i]] * s;" in text
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


ATOMIC = {"gpu/histogram.c": ("hist", "atomicAdd(&hist[(int) (data[i] * nb)], 1);"),
          "vectorizer/scatter_add.c": ("acc", "atomicAdd(&acc[idx[i]], w[i]);"),
          "livermore/particle_in_cell.c": ("count", "atomicAdd(&count[(int) (x * (nc - 1))], 1);")}


@pytest.mark.parametrize("name", sorted(ATOMIC))
def test_additions_into_cells_chosen_by_data_are_atomic_updates_on_a_grid(name):
    """`hist[(int)(data[i] * nb)] += 1` (int), `acc[idx[i]] += w[i]` (double) and particle in cell's
    `count[...] += 1` ran on one GPU thread ("a data-dependent write").  Additions into an array
    that its nest only adds into commute: the model marks the statement atomic, the loop is a grid,
    the update an atomicAdd, and the ladder accepts it (ints exactly, doubles within the bound)."""
    from t2c.analysis import analyze
    from t2c.generators.poly.lower import planned
    from t2c.generators.poly.options import DEFAULT
    from t2c.verify.ladder import ladder
    array, line = ATOMIC[name]
    k = read_c(LOOPS / name)
    an = analyze(k)
    update, = [s for s in an.program.statements if s.atomic]
    assert update.atomic == array and all(a.atomic for a in update.accesses if a.name == array)
    launch, = [l for l in planned(an, DEFAULT).launches
               if any(s.stmt is update for n in l.body for s in ([n] if hasattr(n, "stmt") else n.statements()))]
    assert launch.grid and not launch.host_loops, (launch.name, launch.grid, launch.host_loops)
    text = generate(k)
    assert line in text and "runs in one GPU thread" not in text
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


def test_an_array_also_read_in_the_nest_of_its_data_dependent_updates_stays_sequential(tmp_path):
    """The updates commute only with one another: a plain read of the same array in the nest
    (here a running total that sees them in order) keeps the write refused, and the one-thread
    candidate is still right."""
    from t2c.verify.ladder import ladder
    path = tmp_path / "scatter_read.c"
    path.write_text("""\
/* t2c: size n MINI=40 SMALL=400
 * t2c: array idx[n] in
 * t2c: domain idx integers(0, 7)
 * t2c: array acc[8] inout
 * t2c: array seen[n] out
 */
void scatter_read(int n, const int *idx, const double *w, double *acc, double *seen)
{
  for (int i = 0; i < n; i++) {
    acc[idx[i]] += w[i];
    seen[i] = acc[0];
  }
}
""")
    k = read_c(path)
    text = generate(k)
    why = next(line for line in text.splitlines() if line.startswith("//   why:"))
    assert "a data-dependent write: 'acc'" in why and "also reads it in the same loop nest" in why, why
    assert "atomicAdd" not in text
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


# Affine and gather kernels with no parallel form yet, and why (the issue tracker has them).
NO_PARALLEL_FORM: dict[str, str] = {}

SPECS = ROOT / "corpora" / "text2cuda"

#: The launch records' forms (forms.py): a launch holding one runs on more than one thread.
FORMS = ("reduction", "scan", "banded", "running_max", "row_scan", "row", "phases", "sweep", "tiles")


def _one_thread_loops(k, options=None) -> list[str]:
    """Launches of k's poly plan that run its work in one GPU thread, read from the plan the way
    lower.lower routes k: a launch with no grid and no form (FORMS), not inside a one-block host
    loop, that runs a loop (a loop in one thread) or sits inside host loops (a host loop of
    one-thread launches); or why k runs in one thread altogether (outside the model with no
    compaction loop and no exchange loops, past the analysis budget or the nest depth, a
    misplaced geometric loop).  Outside the model, a compaction loop (compact.py: a scan) and
    exchange loops (network.py: a launch each) are parallel forms, as is the exchange network
    lower takes for a geometric level loop."""
    from t2c import config
    from t2c.analysis import NotAffine, analyze_program, build_program
    from t2c.analysis.isl_bridge import BudgetExceeded, budget
    from t2c.generators.poly import compact, geometric
    from t2c.generators.poly.lower import MAX_NEST_DEPTH, final_plan
    from t2c.generators.poly.network import network_of
    from t2c.generators.poly.options import DEFAULT
    options = options or DEFAULT
    try:
        with budget(config.load().isl_budget):
            try:
                program = build_program(k)
                if _depth(program.body) > MAX_NEST_DEPTH:
                    return [f"one thread: a nest deeper than {MAX_NEST_DEPTH} loops"]
                an = analyze_program(program)
            except NotAffine as e:
                if (options.scans.compaction and compact.compaction_of(k)) or (options.networks and network_of(k)):
                    return []
                return [f"outside the model: {e}"]
            if options.networks and geometric.networked(k, program, SM90):
                return []
            an, plan = final_plan(an, options)
            if why := geometric.misplaced(plan):
                return [f"one thread: {why}"]
    except BudgetExceeded as e:
        return [f"one thread: the analysis ran past its budget ({e})"]
    return [launch.name + (f" (in host loop {', '.join(h.var for h in launch.host_loops)})" if launch.host_loops else "")
            for launch in plan.launches
            if not launch.grid and not any(getattr(launch, f) for f in FORMS) and not launch.in_block
            and (launch.host_loops or any(isinstance(n, Loop) for n in launch.body))]


def _depth(items) -> int:
    """The number of loops of the deepest nest among `items`."""
    return max((1 + _depth(it.body) for it in items if isinstance(it, Loop)), default=0)


def test_no_affine_or_gather_kernel_runs_a_loop_in_one_thread():
    """Issue #35's check, on the plan: every kernel of the affine and gather classes maps its
    loops to a grid or a parallel form, except the ones named above."""
    seen = {}
    for p in FILES:
        if CLASS.search(p.read_text()).group(1) == "data-dependent":
            continue
        got = _one_thread_loops(read_c(p))
        if got or p.stem in NO_PARALLEL_FORM:
            seen[p.stem] = got
    assert set(seen) == set(NO_PARALLEL_FORM), seen
    assert all(seen.values()), seen


def test_no_formal_spec_runs_a_loop_in_one_thread():
    """The same check on every formal spec of corpora/text2cuda (a prose-only spec has no
    reference until a model writes one): the compactions run as scans, the sorts and pairwise
    trees as exchange networks, everything else on a grid or in a parallel form."""
    from t2c.frontends.prose import NeedsLLM, read_spec
    seen, formal = {}, 0
    for p in sorted(SPECS.glob("*.md")):
        if p.name == "README.md":
            continue
        try:
            k = read_spec(p)
        except NeedsLLM:
            continue
        formal += 1
        if got := _one_thread_loops(k):
            seen[p.stem] = got
    assert formal >= 60 and seen == {}, seen


def test_the_check_sees_a_host_loop_of_one_thread_launches(tmp_path):
    """The predicate's reach: a one-thread launch with no loop of its own, launched once per
    iteration of a host loop, is flagged (the loop runs on the host, each step on one thread);
    inside a one-block host loop (the default options here) its steps run in one block instead."""
    from t2c.generators.poly.options import DEFAULT
    path = tmp_path / "chain.c"
    path.write_text("""\
void chain(int n, int m, double s[1], const double y[n], const double w[m], double z[m])
{
  for (int t = 0; t < n; t++) {
    s[0] = cos(s[0]) + y[t];
    for (int i = 0; i < m; i++)
      z[i] += s[0] * w[i];
  }
}
""")
    k = read_c(path)
    assert _one_thread_loops(k) == []
    assert _one_thread_loops(k, DEFAULT.replace(one_block=None)) == ["chain_seq_s (in host loop t)"]


def test_csr_row_pointers_never_decrease():
    """`t2c: domain row_ptr offsets(0, nnz)`: row pointers drawn as integers never decreasing from 0
    to nnz.  Drawn as integers(0, nnz) each row spanned a third of nnz at random: at LARGE the
    reference of spmv_csr (2M rows) ran for hours."""
    k = read_c(LOOPS / "gpu" / "spmv_csr.c")
    assert next(d for d in k.domains if d.target == "row_ptr").text() == "offsets(0, nnz)"
    for seed in range(3):
        ptr = synthesize(k, {"n": 50, "nnz": 400}, seed)["row_ptr"]
        assert ptr[0] == 0 and ptr[-1] == 400 and np.all(np.diff(ptr) >= 0) and len(ptr) == 51
