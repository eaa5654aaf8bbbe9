"""Suite synthesis: seeded and replayable, awkward sizes, bad draws discarded with a reason."""
import json

import numpy as np
import pytest

from t2ctest import POLYBENCH
from t2c.errors import UserError
from t2c.frontends.c import read_c
from t2c.verify.inputs import distributions, synthesize
from t2c.verify.synth import build_suite, full_dataset, new_seed, random_points, smoke_points

GEMM = read_c(POLYBENCH / "linear-algebra/blas/gemm/gemm.c")
CHOLESKY = read_c(POLYBENCH / "linear-algebra/solvers/cholesky/cholesky.c")
GRAMSCHMIDT = read_c(POLYBENCH / "linear-algebra/solvers/gramschmidt/gramschmidt.c")


def test_seeds_are_secret_and_runs_replay():
    assert new_seed() != new_seed()
    a, b = build_suite(GEMM, 99, dataset="MINI"), build_suite(GEMM, 99, dataset="MINI")
    drawn = lambda suite: [{k: v for k, v in c.summary().items() if k != "ref_seconds"} for c in suite.cases]
    assert drawn(a) == drawn(b)                     # the same cases (the reference's times are measured)
    assert all(np.array_equal(x.inputs["A"], y.inputs["A"]) for x, y in zip(a.cases, b.cases))
    c = build_suite(GEMM, 100, dataset="MINI")
    assert [x.sizes for x in c.of("random")] != [x.sizes for x in a.of("random")]


def test_a_loaded_machine_draws_the_same_suite(monkeypatch):
    """The size budgets count the checked reference's loop iterations, not its seconds: with every
    reference run taking 1000 times as long (a loaded machine), a seed draws the same suite."""
    import dataclasses
    from t2c.verify import synth
    a = build_suite(GEMM, 41, dataset="MINI")
    run = synth.run_reference
    slow = lambda *args, **kw: dataclasses.replace(r := run(*args, **kw), seconds=1000 * r.seconds)
    monkeypatch.setattr(synth, "run_reference", slow)
    b = build_suite(GEMM, 41, dataset="MINI")
    drawn = lambda suite: [{k: v for k, v in c.summary().items() if k != "ref_seconds"} for c in suite.cases]
    assert drawn(a) == drawn(b)
    assert max(c.work for c in a.of("random")) > 1000


def test_the_original_draw_is_re_evaluated_on_the_inits_own_inputs(monkeypatch):
    """At the full rung an `original` draw's two re-evaluations start with its checked run, on the
    inputs of a run of the init alone; where those differ from the checked run's own (an init that
    draws anew each run), the re-evaluations run again on the run's inputs. The case is the same."""
    from t2c.verify import synth
    sizes = GEMM.dataset_sizes("MINI")
    first = synth.draw_case(GEMM, 7, "full", "MINI", sizes, "original", [])
    seen = []
    real = synth.original_inputs
    monkeypatch.setattr(synth, "original_inputs", lambda *a, **kw: seen.append(1) or real(*a, **kw))
    assert synth.draw_case(GEMM, 7, "full", "MINI", sizes, "original", []).summary() == first.summary()
    assert seen == [1]
    shifted = lambda *a, **kw: {n: v * 1.5 if n == "A" else v for n, v in real(*a, **kw).items()}
    monkeypatch.setattr(synth, "original_inputs", shifted)
    again = synth.draw_case(GEMM, 7, "full", "MINI", sizes, "original", [])
    assert again.sensitivity == first.sensitivity and again.summary() == first.summary()


def test_the_checked_reference_counts_loop_iterations():
    from t2c.verify.reference import run_reference
    sizes = {"ni": 5, "nj": 7, "nk": 3}
    inputs = synthesize(GEMM, sizes, 1, "domain")
    ni, nj, nk = sizes.values()       # gemm: for i { for j; for k { for j } }
    assert run_reference(GEMM, sizes, inputs, checked_run=True).work == ni + ni * nj + ni * nk + ni * nk * nj


def test_size_points():
    assert [p[1] for p in smoke_points(GEMM)][:3] == [{"ni": v, "nj": v, "nk": v} for v in (1, 2, 3)]
    points = random_points(GEMM, 7, 8)
    for label, sizes in points:           # odd, or twice an odd number (never a multiple of 32)
        assert all(v % 32 and (v % 4 == 2 if label.startswith("evens") else v % 2) for v in sizes.values())
    assert sum(label.startswith("evens") for label, _ in points) == 2
    assert any(max(s.values()) > 128 for _, s in random_points(GEMM, 7, 4))


def test_suite_has_every_rung_and_several_distributions():
    s = build_suite(GEMM, 5, dataset="MINI")
    assert s.of("smoke") and s.of("random") and s.of("full")
    assert s.of("full")[0].sizes == GEMM.dataset_sizes("MINI")
    assert {c.distribution for c in s.cases} >= {"domain", "original"}
    assert all(c.sensitivity <= 1 / 8 for c in s.cases)


def test_bad_draws_are_discarded_and_others_drawn():
    s = build_suite(CHOLESKY, 3, dataset="MINI")
    assert any("NaN" in d["why"] for d in s.discarded)     # sqrt of a negative pivot
    assert s.of("random") and all(np.isfinite(c.expected["A"]).all() for c in s.cases)
    assert "spd" in {c.distribution for c in s.of("random")} | {"spd"}


def test_rank_deficient_datasets_are_noticed():
    # every PolyBench gramschmidt dataset has m < n: no input is well conditioned there
    s = build_suite(GRAMSCHMIDT, 4, dataset="MINI")
    assert any("ill-conditioned" in d["why"] for d in s.discarded)
    assert all(c.sizes["m"] >= c.sizes["n"] for c in s.of("random"))
    full = s.of("full")
    assert full and full[0].expected is None and "no well-conditioned draw" in s.full_note


def test_distributions():
    assert {"spd", "diagonally_dominant"} <= set(distributions(CHOLESKY))
    spd = synthesize(CHOLESKY, {"n": 6}, 1, "spd")["A"]
    assert np.allclose(spd, spd.T) and np.linalg.eigvalsh(spd).min() > 0
    dd = synthesize(CHOLESKY, {"n": 6}, 1, "diagonally_dominant")["A"]
    assert (2 * np.abs(np.diag(dd)) > np.abs(dd).sum(axis=1)).all()
    pos = synthesize(GEMM, {"ni": 3, "nj": 3, "nk": 3}, 1, "positive")
    assert (pos["A"] >= 0).all()


def test_a_suite_replays_from_its_summary():
    """The batch keeps a suite as its summary (suite stage) and the verify and bench stages replay
    it: the same cases in the same order, with the same inputs and expected outputs, from one
    reference run per case (original init and synthesized draws alike, the gate's extra cases too)."""
    from t2c.verify.gate import gate
    from t2c.verify.synth import replay_case, replay_suite
    s = build_suite(GEMM, 11, dataset="MINI")
    gate(s)
    again = replay_suite(GEMM, json.loads(json.dumps(s.summary())))        # through the stage's JSON
    assert again.summary() == s.summary() and {c.distribution for c in s.cases} > {"original", "domain"}
    for case, new in zip(s.cases, again.cases):
        for name in case.inputs:
            assert np.array_equal(new.inputs[name], case.inputs[name])
        for name in case.expected:
            assert np.array_equal(new.expected[name], case.expected[name])
    assert [c.summary() for c in replay_suite(GEMM, s.summary(), rungs=("full",)).cases] == \
        [c.summary() for c in s.of("full")]
    # gramschmidt has no well-conditioned draw at any preset: its full case checks that every
    # output is written, not the values, and so does its replay (the LARGE bench once compared
    # the values and reported a mismatch for durbin, trisolv and gramschmidt)
    gs = read_c(POLYBENCH / "linear-algebra/solvers/gramschmidt/gramschmidt.c")
    full = build_suite(gs, 11, dataset="MINI").of("full")[0]
    assert full.expected is None and full.sensitivity == float("inf")
    again = replay_case(gs, json.loads(json.dumps(full.summary())))
    assert again.expected is None and again.summary() == full.summary()


MIXED_DOT = """
void dot(int n, const float *x, const float *y, double *r)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (double)x[i] * y[i];
  r[0] = s;
}
"""


def test_float_inputs_to_a_double_result_draw_testable_cases(tmp_path):
    """A double result of float inputs is held to double's tolerance; its conditioning check moves
    the inputs by a double ulp (a float ulp was a million tolerances: every draw was discarded and
    the gate called even the `zeros` mutant a survivor).  Accumulating in float is rejected."""
    from t2ctest import accepted_on_emu, c_kernel
    from t2c.generators.poly import generate
    from t2c.verify.ladder import ladder
    k = c_kernel(tmp_path, MIXED_DOT, "dot")
    suite = build_suite(k, 4056843235692934445, dataset="MINI")
    assert len([c for c in suite.of("random") if c.expected is not None]) >= 4
    text = generate(k)
    accepted_on_emu(k, text)
    single = text.replace("double s = 0;", "float s = 0;").replace("s += ((double) x[i]) * y[i];", "s += x[i] * y[i];")
    assert single != text
    assert not ladder(k, single, backend="emu", dataset="MINI", seed=3).accepted



def test_a_dataset_no_size_has_is_named_with_the_file_and_the_sizes(tmp_path):
    """Verifying at a preset the sizes lack names the kernel's file and the sizes (was "k: no
    SMALL preset (presets: MINI)")."""
    src = tmp_path / "scale.c"
    src.write_text("/* t2c: size n MINI=8 */\n/* t2c: size m MINI=4 */\n"
                   "void scale(int n, int m, float A[n][m], float B[n][m])\n{\n  for (int i = 0; i < n; i++)\n"
                   "    for (int j = 0; j < m; j++)\n      B[i][j] = 2.0f * A[i][j];\n}\n")
    with pytest.raises(UserError) as e:
        full_dataset(read_c(src), "SMALL", "emu")
    assert str(e.value).startswith(f"{src}:3:1: scale: no SMALL preset: sizes n, m have no SMALL value "
                                   "(the presets every size has: MINI); verify at MINI"), str(e.value)


FIXED = {   # every extent a literal: a kernel with no size parameter
    "fixed_jacobi": """\
#define N 24
#define M 18
void fixed_jacobi(const double A[N][M], double B[N][M])
{
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < M - 1; j++)
            B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
}
""",
    "fixed_scale": """\
void fixed_scale(float s, const float x[100], float y[100])
{
    for (int i = 0; i < 100; i++)
        y[i] = s * x[i];
}
""",
}


@pytest.mark.parametrize("name", sorted(FIXED))
def test_a_kernel_without_sizes_draws_random_cases_of_its_own_data(tmp_path, name):
    from t2ctest import accepted_on_emu, c_kernel
    from t2c.generators.poly import generate
    k = c_kernel(tmp_path, FIXED[name], name)
    assert not k.sizes
    assert random_points(k, 5, 4) and all(sizes == {} for _, sizes in random_points(k, 5, 4))
    accepted_on_emu(k, generate(k))
