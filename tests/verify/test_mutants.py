"""Mutants of the reference, and the test-power gate over the whole corpus (host only)."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from t2ctest import FULL_TIER, POLYBENCH, ROOT, corpus_sources
from t2c.frontends.c import read_c
from t2c.verify.gate import gate
from t2c.verify.mutants import mutants
from t2c.verify.reference import run_reference
from t2c.verify.synth import Suite, build_suite, draw_case

GEMM = read_c(POLYBENCH / "linear-algebra/blas/gemm/gemm.c")
HEAT = read_c(POLYBENCH / "stencils/heat-3d/heat-3d.c")


def test_operators_and_that_mutants_run():
    ms = {m.operator for m in mutants(GEMM)}
    assert ms == {"zeros", "constant", "copy_input", "truncated_loop", "off_by_one",
                  "swapped_subscripts", "float_precision"}
    sizes = {"ni": 5, "nj": 7, "nk": 3}
    base = run_reference(GEMM, sizes)
    for m in mutants(GEMM):
        run = run_reference(GEMM.replace(reference=m.reference), sizes, base.inputs)
        assert set(run.outputs) == {"C"}, m.name
    assert "float_precision" not in {m.operator for m in mutants(read_c(
        POLYBENCH / "medley/floyd-warshall/floyd-warshall.c"))}


def test_original_init_alone_proves_nothing_for_heat_3d():
    # PolyBench's heat-3d init is an exact fixed point: doing nothing passes on it
    sizes = HEAT.dataset_sizes("MINI")
    suite = Suite(HEAT, 1)
    suite.cases.append(draw_case(HEAT, 1, "full", "MINI", sizes, "original", suite.discarded))
    g = gate(suite, rounds=0)
    assert not g.passed and "copy_input" in {m.name for m in g.survivors}
    assert g.fixed_points
    # the synthesized suite (other distributions, other sizes) rejects every mutant
    full = gate(build_suite(HEAT, 1, dataset="MINI"))
    assert full.passed and "copy_input" in full.weak_inputs["original"]


def test_the_original_init_alone_is_not_run_past_the_wide_budget(monkeypatch):
    """The diagnostic runs every mutant on the original cases; where the original init is drawn
    only at the full dataset, a case past the wide point's budget is left out (at EXTRALARGE that
    was a minutes-long run per mutant), and the card says so. The verdict is the same."""
    suite = build_suite(HEAT, 1, dataset="MINI")
    suite.cases = [c for c in suite.cases if c.distribution != "original" or c.rung == "full"]
    assert any(c.distribution == "original" for c in suite.cases)
    checked = gate(suite)
    assert checked.passed and "copy_input" in checked.weak_inputs["original"]
    monkeypatch.setenv("T2C_VERIFY_POINT_WORK", "1")
    skipped = gate(suite)
    assert skipped.passed and skipped.weak_inputs["original"].startswith("not checked: the original init")
    assert [m.killed for m in skipped.mutants] == [m.killed for m in checked.mutants]


def _gate(source):
    k = read_c(source)
    g = gate(build_suite(k, 2024, dataset="MINI"), jobs=1)
    return k.name, g


#: Under `make test`, the kernels whose gates stand for a kind of suite (the nightly tier gates all):
GATE_SAMPLE = {
    "gemm": "a plain product: every mutant dies on the first random case",
    "heat-3d": "PolyBench's init is a fixed point: only synthesized inputs kill copy_input",
    "floyd-warshall": "integer min-plus: no float_precision mutant",
    "nussinov": "integer max over a triangle, a data-dependent update",
    "lu": "most draws are ill-conditioned and discarded",
    "durbin": "a recurrence with a narrow well-conditioned domain",
    "correlation": "square roots and divisions by a spread",
    "deriche": "float recurrences in both directions",
    "gramschmidt": "a rank-deficient original init",
}
SOURCES = [p for p in corpus_sources() if FULL_TIER[0] or p.parent.name in GATE_SAMPLE]


@pytest.fixture(scope="session")           # kept while the worker runs other modules
def corpus_gates():
    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(_gate, SOURCES))


@pytest.mark.xdist_group("corpus-gates")         # one worker: the gates are drawn once
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.parent.name)
def test_mutant_gate_passes_for_every_corpus_kernel(source, corpus_gates):
    name = read_c(source).name
    g = corpus_gates[name]
    assert g.passed, f"{name}: surviving mutants {[f'{m.name}: {m.where}' for m in g.survivors]}"
    assert len(g.mutants) >= 6


def test_a_mutant_that_leaves_out_elements_unwritten_is_killed(tmp_path):
    """Mutants start with poisoned `out` arrays, as candidates do: truncating the loop that
    zeroes the tail of `y` leaves poison there, so the gate kills it (with zeroed arrays the
    mutant's output would equal the reference's and the kernel would look weakly tested)."""
    src = tmp_path / "compact.c"
    src.write_text("""/*
 * t2c: size n MINI=50 SMALL=400
 * t2c: array x[n] in
 * t2c: array y[n] out
 * t2c: array count out
 */
void compact(int n, float x[n], float y[n], int *count)
{
  int m = 0;
  for (int i = 0; i < n; i++) y[i] = 0.0f;
  for (int i = 0; i < n; i++)
    if (x[i] > 0.0f) { y[m] = x[i]; m++; }
  count[0] = m;
}
""")
    k = read_c(src)
    g = gate(build_suite(k, 7, dataset="MINI"), jobs=1)
    truncated = [m for m in g.mutants if m.name == "truncated_loop:0"]
    assert truncated and truncated[0].killed and "unwritten" in truncated[0].how
    assert g.passed, [f"{m.name}: {m.where}" for m in g.survivors]


def test_the_gate_strengthens_at_the_constraints_boundary():
    """cross_entropy's class loop cut to c - 1 differs from the reference only when c = 10 (the
    smallest size its constraint allows) and some target is 9: with this seed no case of the
    suite had that, and the gate's new random points could not either (CI saw it once). The
    strengthening rounds also draw afresh at the smallest sizes the constraints allow."""
    from t2c.frontends import read_kernel
    k = read_kernel(ROOT / "corpora/text2cuda/cross_entropy.md")
    g = gate(build_suite(k, 155355694522743, dataset="MINI"))
    cut = next(m for m in g.mutants if m.where.startswith("loop 'j' (line 33)"))   # the loss statement's
    assert g.passed and cut.killed and "+1" in cut.by and "'c': 10" in cut.by


def test_a_kernel_that_returns_a_value_gets_mutants_that_build():
    """The copy-of-an-input mutant of a returned scalar once used the fill loop's index outside
    any loop: the mutant did not compile and the gate crashed (issue #35)."""
    k = read_c(ROOT / "tests/frontend/samples/dot_return.c")
    suite = build_suite(k, 5, dataset=None, backend="emu")
    case = next(c for c in suite.cases if c.expected is not None)
    for m in mutants(k):                                  # each builds and runs
        run_reference(k.replace(reference=m.reference), case.sizes, case.inputs)
    g = gate(suite)
    assert g.passed and all(m.killed and "does not build" not in m.how for m in g.mutants), g.summary()


SAMPLES = ROOT / "tests/verify/samples"


def test_an_equivalent_mutant_is_left_out_of_the_gate_and_named():
    """A row softmax subtracts the row's max before exp, and the shift cancels out: the max
    loop cut one short (or started from another row's element) gives the same outputs on the
    suite and on every probe beyond it.  Such mutants are left out of the gate and named, and
    the kernel is no longer weakly tested (issue 35); every other mutant is still killed."""
    k = read_c(ROOT / "corpora/loops/gpu/softmax.c")
    g = gate(build_suite(k, 35, dataset="MINI"))
    assert g.passed, g.summary()
    assert "off_by_one:0" in {m.name for m in g.equivalent}
    assert all(m.killed for m in g.mutants if not m.equivalent)
    s = g.summary()
    assert s["total"] == len(g.mutants) - len(g.equivalent) == s["killed"]
    assert any(e.startswith("off_by_one:0 (loop 'j'") for e in s["equivalent"])


def test_no_mutant_is_called_equivalent_without_probes(monkeypatch):
    """Equivalence is a claim about cases beyond the suite: with none drawn, the softmax's
    survivors stay survivors."""
    import t2c.verify.gate as gate_module
    monkeypatch.setattr(gate_module, "probes", lambda suite: [])
    g = gate(build_suite(read_c(ROOT / "corpora/loops/gpu/softmax.c"), 35, dataset="MINI"))
    assert not g.passed and not g.equivalent and "off_by_one:0" in {m.name for m in g.survivors}


def test_a_mutant_only_a_probe_tells_apart_leaves_the_suite_weak():
    """An escape-time loop's float mutant differs only where enough iterations amplify float
    rounding: with this seed neither the suite nor its strengthening shows it, a wider probe
    does.  It is not equivalent: the kernel stays weakly tested, and the probe is named (a
    probe never joins the suite, so the gate cannot pass on cases candidates are not judged on)."""
    k = read_c(SAMPLES / "escape_time.c")
    suite = build_suite(k, 1, dataset="MINI")
    g = gate(suite)
    fp = next(m for m in g.mutants if m.name == "float_precision")
    assert not g.passed and not fp.killed and not fp.equivalent and fp.by.startswith("probe "), g.summary()
    assert fp in g.survivors and not any(c.rung == "probe" for c in suite.cases)


def test_the_mutants_are_compiled_together_once_and_alone_when_one_does_not_build(monkeypatch):
    """The gate compiles every mutant into one program (a compile is most of a gate's time) and
    runs each by its index, with the verdicts of separate builds; when that compile fails, each
    mutant builds alone and only the one that does not compile is killed for it."""
    import dataclasses
    import t2c.verify.gate as gate_module
    import t2c.verify.reference as reference
    k = read_c(POLYBENCH / "linear-algebra/kernels/atax/atax.c")
    suite = build_suite(k, 3, dataset="MINI")
    compiled, build, together_fn = [], reference.build, gate_module._built_together
    monkeypatch.setattr(reference, "build", lambda sources, *a, **kw: compiled.append(sorted(sources)) or
                        build(sources, *a, **kw))
    together = gate(suite)
    assert compiled == [[f"{k.name}_variants.c"]], compiled
    verdicts = lambda g: [(m.name, m.killed, m.by) for m in g.mutants]
    monkeypatch.setattr(gate_module, "_built_together", lambda k, ms: {})
    assert verdicts(gate(suite)) == verdicts(together)
    broken = mutants(k)
    broken[1] = dataclasses.replace(broken[1], reference=broken[1].reference.replace("{", "{ undeclared_name;", 1))
    monkeypatch.setattr(gate_module, "mutants", lambda k: broken)
    monkeypatch.setattr(gate_module, "_built_together", together_fn)
    g = gate(suite)
    assert "does not build" in g.mutants[1].how
    assert verdicts(g)[2:] == verdicts(together)[2:] and g.mutants[0].by == together.mutants[0].by


def test_a_temporary_a_mutant_skips_reads_poison_not_the_stack():
    """softmax_let's max over the first half of the rows only: the other rows' `mx` were the
    stack's leftovers (a difference on one machine, none on another); now NaN on every machine."""
    from t2c.frontends import read_kernel
    import numpy as np
    k = read_kernel(ROOT / "corpora/text2cuda/softmax_let.md")
    m = next(m for m in mutants(k) if m.name == "truncated_loop:0")
    assert "__builtin_memset(mx, 0xff, sizeof(mx));" in m.reference
    sizes = {"b": 5, "c": 11}
    from t2c.verify.inputs import synthesize
    base = run_reference(k, sizes, synthesize(k, sizes, 5))
    y = run_reference(k.replace(reference=m.reference), sizes, base.inputs).outputs["Y"]
    assert np.isnan(y[2:]).all() and np.array_equal(y[:2], base.outputs["Y"][:2])
    assert "memset" not in k.reference                  # the reference itself is unchanged
