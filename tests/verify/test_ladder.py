"""The ladder end to end on emu, the evidence card, the CLI, and the gpu build path (build only)."""
import json
import subprocess
import sys

import pytest
from pathlib import Path

from t2ctest import POLYBENCH, ROOT
from t2c.frontends.c import read_c
from t2c.verify.device import build_figures, emu_available
from t2c.verify.harness import build_candidate, candidate_driver

GEMM_C = POLYBENCH / "linear-algebra/blas/gemm/gemm.c"
GEMM = read_c(GEMM_C)
GOOD = ROOT / "tests/candidates/kernel_gemm.cu"
needs_emu = pytest.mark.skipif(not emu_available(), reason="needs the emu backend (t2c.runtime.emu)")


@pytest.fixture
def no_suites_yet(monkeypatch, tmp_path):
    """No suite drawn by an earlier test: none in this process's memory, none kept on disk."""
    from collections import OrderedDict
    from t2c.verify import ladder as ladder_module
    monkeypatch.setattr(ladder_module, "_SUITES", OrderedDict())
    monkeypatch.setenv("T2C_BUILD_CACHE", str(tmp_path / "build-cache"))
    return tmp_path / "build-cache"


@needs_emu
def test_accepted_candidate_has_a_full_evidence_card():
    from t2c.verify.ladder import ladder
    ev = ladder(GEMM, GOOD, backend="emu", seed=42)
    assert ev.accepted and ev.rung is None, ev.render()
    names = [r["name"] for r in ev.rungs]
    assert names == ["static", "build", "gate", "smoke", "random", "races", "full", "bench"]
    assert next(r for r in ev.rungs if r["name"] == "bench")["skipped"]
    card = json.loads(ev.to_json())
    for key in ("seed", "sizes", "tolerance", "max_error", "mutant_gate", "races", "build", "device",
                "isolation", "candidate_sha256"):
        assert card[key] not in (None, {}, []), key
    assert card["mutant_gate"]["passed"] and card["races"]["ok"]
    assert all(s == GEMM.dataset_sizes("MINI") for s in card["sizes"]["full"])
    # the same seed replays the same suite
    again = ladder(GEMM, GOOD, backend="emu", seed=42)
    assert again.sizes == ev.sizes and again.mutant_gate["killed"] == ev.mutant_gate["killed"]


@needs_emu
def test_the_device_is_held_only_around_the_runs(monkeypatch, no_suites_yet):
    """The engine's GPU slot (`device`) is taken after the suite and the mutant gate, which
    need no GPU, so another kernel's runs can use the GPU meanwhile, and given back before the
    full rung judges its outputs (a replayed suite's reference may still be computing them): the
    full rung takes it again only to run the candidate (on emu; on a GPU its outputs are in)."""
    from contextlib import contextmanager
    from t2c.verify import ladder as ladder_module
    events = []
    real_gate = ladder_module.gate
    monkeypatch.setattr(ladder_module, "gate", lambda suite: events.append("gate") or real_gate(suite))
    first, *rest = ladder_module.RUNTIME_RUNGS
    monkeypatch.setattr(ladder_module, "RUNTIME_RUNGS",
                        (lambda run: events.append(first.__name__) or first(run), *rest))

    @contextmanager
    def device():
        events.append("take")
        yield
        events.append("give back")
    ev = ladder_module.ladder(GEMM, GOOD, backend="emu", seed=42, device=device)
    assert ev.accepted
    assert events == ["gate", "take", "smoke", "give back", "take", "give back"]


@needs_emu
def test_rejection_names_rung_reason_and_location(tmp_path):
    from t2c.verify.ladder import ladder
    bad = tmp_path / "bad.cu"
    bad.write_text(GOOD.read_text().replace("  C[i * nj + j] = acc;", "  if (j > 0) C[i * nj + j] = acc;"))
    ev = ladder(GEMM, bad, backend="emu", seed=1)
    assert not ev.accepted and ev.rung == "smoke" and ev.reason == "output mismatch"
    assert "C[0,0]" in ev.feedback and "device entry point" in ev.feedback


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "t2c.cli", "verify", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


@needs_emu
def test_cli_exit_codes(tmp_path):
    ok = _cli(GEMM_C, "--candidate", GOOD, "--backend", "emu", "--seed", "3", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["accepted"] is True
    cheat = ROOT / "tests/redteam/candidates/gemm_getenv.cu"
    r = _cli(GEMM_C, "--candidate", cheat, "--backend", "emu")
    assert r.returncode == 1 and "REJECTED at static: environment" in r.stdout
    r = _cli(GEMM_C, "--candidate", tmp_path / "missing.cu", "--backend", "emu")
    assert r.returncode == 2 and "missing.cu" in r.stderr and "Traceback" not in r.stderr


def test_cli_usage_errors_need_no_backend(tmp_path):
    r = _cli(tmp_path / "nothing.c", "--candidate", GOOD)
    assert r.returncode == 2 and "nothing.c:1:1" in r.stderr


def test_gpu_build_keeps_ptxas_figures():
    """nvcc builds here even without a driver; the run needs a GPU (scripts/redteam_gpu.py)."""
    from t2c import config
    if not config.load().nvcc:
        pytest.skip("no nvcc")
    b = build_candidate(GEMM, GOOD.read_text(), "gpu")
    figures = build_figures(b.log)
    assert figures["gemm_kernel"]["registers"] > 0 and figures["gemm_kernel"]["arch"].startswith("sm_")
    assert "t2c_read_call" in candidate_driver(GEMM) and "T2C_GUARD" in candidate_driver(GEMM)


def test_bench_figures_give_rates_from_the_exact_counts():
    """GB/s and TF/s in the report come from the bench's median and the model's counts at the
    bench sizes (analysis.cost)."""
    from t2c.analysis import analyze
    from t2c.analysis.cost import counts
    from t2c.verify.evidence import Timing
    from t2c.verify.rungs import _counts
    sizes = {"ni": 2, "nj": 3, "nk": 4}
    flops, nbytes, bounded = counts(analyze(GEMM), sizes)
    assert _counts(GEMM, sizes) == {"flops": flops, "bytes": nbytes} and not bounded
    t = Timing("kernel_gemm", True, {"kernel_ms": {"median": 2.0, "p20": 1.9, "p80": 2.1},
                                     "flops": 4e9, "bytes": 8e9})
    assert t.figures()["tflops"] == pytest.approx(2.0) and t.figures()["gbps"] == pytest.approx(4000.0)
    assert "gbps" not in Timing("k", True, {"kernel_ms": {"median": 2.0, "p20": 1, "p80": 3}}).figures()


@needs_emu
def test_one_process_runs_calls_of_several_sizes_and_both_entries(tmp_path):
    """A rung's calls share one candidate process (one CUDA context): the driver reallocates its
    buffers when the sizes change, and a failing call ends the calls, the earlier ones kept."""
    import numpy as np
    from t2c.verify.harness import run_calls
    from t2c.verify.reference import run_reference
    rng = np.random.default_rng(3)
    calls = []
    for on_device, sizes in ((True, dict(ni=5, nj=7, nk=3)), (False, dict(ni=5, nj=7, nk=3)),
                             (False, dict(ni=9, nj=4, nk=6)), (True, dict(ni=9, nj=4, nk=6)),
                             (True, dict(ni=2, nj=3, nk=8))):
        inputs = {"alpha": np.float64(1.5), "beta": np.float64(-0.5),
                  "A": rng.random((sizes["ni"], sizes["nk"])), "B": rng.random((sizes["nk"], sizes["nj"])),
                  "C": rng.random((sizes["ni"], sizes["nj"]))}
        calls.append((on_device, sizes, inputs))
    build = build_candidate(GEMM, GOOD.read_text(), "emu", sanitize=True)
    r = run_calls(GEMM, build, calls, timeout=120)
    assert r.process.ok, r.process.describe()
    assert len(r.outputs) == 5
    for (_, sizes, inputs), outputs in zip(calls, r.outputs):
        want = run_reference(GEMM, sizes, inputs).outputs["C"]
        np.testing.assert_allclose(outputs["C"].reshape(want.shape), want, rtol=1e-12)
    # a call whose input file is missing ends the process there; the calls before it finished
    del calls[2][2]["B"]
    r = run_calls(GEMM, build, calls, timeout=120)
    assert not r.process.ok and "missing input" in r.process.stderr and len(r.outputs) == 2


@needs_emu
def test_on_a_gpu_the_rungs_judge_calls_run_ahead_in_one_process(monkeypatch):
    """On a GPU the ladder runs smoke, random, the races repeat and full as one candidate process
    (`run_ahead`); each rung judges its share, and a failing call is reported by its own rung
    with its entry point and sizes.  Shown on emu, the same driver and code path."""
    from t2c.verify import rungs
    from t2c.verify.ladder import _limits
    from t2c.verify.synth import build_suite
    suite = build_suite(GEMM, 42, dataset="MINI", backend="emu")
    starts = []
    real = rungs.run_calls
    monkeypatch.setattr(rungs, "run_calls", lambda *a, **kw: starts.append(len(a[2])) or real(*a, **kw))

    def ahead(source):
        build = build_candidate(GEMM, source, "emu", sanitize=True)
        run = rungs.Run(GEMM, "emu", suite, build, _limits(GEMM, suite, "emu"))
        rungs.run_ahead(run, rungs._asan_env(run.limits))
        return run
    run = ahead(GOOD.read_text())
    calls = [f(run) for f in (rungs.smoke_calls, rungs.random_calls, rungs.races_calls, rungs.full_calls)]
    assert starts == [sum(map(len, calls))] and all(calls)
    assert all(rung(run).ok for rung in (rungs.smoke, rungs.random, rungs.full)) and len(starts) == 1
    # the drop-in (host) entry crashes: smoke's second call, so smoke reports it and nothing later ran
    bad = GOOD.read_text().replace("double *dC, *dA, *dB;", "double *dC, *dA, *dB;\n  abort();")
    starts.clear()
    run = ahead(bad)
    r = rungs.smoke(run)
    assert not r.ok and r.reason.startswith("crash") and r.feedback.startswith("host entry point, sizes")
    assert set(run.ahead) == set() and len(starts) == 1


@needs_emu
def test_a_rung_with_no_cases_runs_nothing_and_passes():
    """Some seeds draw no valid random point for a spec (conv1d at MINI, seed 12): the random and
    races rungs then have no calls, which is no finding (it used to end the batch stage)."""
    from t2c.verify import rungs
    from t2c.verify.ladder import _limits
    from t2c.verify.synth import build_suite
    suite = build_suite(GEMM, 42, dataset="MINI", backend="emu")
    suite.cases = [c for c in suite.cases if c.rung != "random"]
    build = build_candidate(GEMM, GOOD.read_text(), "emu", sanitize=True)
    run = rungs.Run(GEMM, "emu", suite, build, _limits(GEMM, suite, "emu"))
    assert rungs.random(run).ok and rungs.races(run).ok
    rungs.run_ahead(run)
    assert set(run.ahead) == {"smoke", "full"}


@needs_emu
def test_an_options_search_reuses_one_suite(monkeypatch, no_suites_yet):
    """Many candidates of one kernel on one given seed share the synthesized suite and its mutant
    gate (built once: the seed draws the same suite); a ladder with a fresh seed builds its own."""
    from t2c.verify import ladder as ladder_module
    built = []
    real = ladder_module.build_suite
    monkeypatch.setattr(ladder_module, "build_suite", lambda *a, **kw: built.append(1) or real(*a, **kw))
    for _ in range(2):
        assert ladder_module.ladder(GEMM, GOOD, backend="emu", seed=77, reuse_suite=True).accepted
    assert len(built) == 1
    assert ladder_module.ladder(GEMM, GOOD, backend="emu", seed=77).accepted and len(built) == 1
    assert ladder_module.ladder(GEMM, GOOD, backend="emu").accepted and len(built) == 2


@needs_emu
def test_a_seeds_suite_is_drawn_once_across_processes(monkeypatch, no_suites_yet):
    """A later process (another test worker, a second `t2c verify --seed`) replays the plan the
    first kept (one reference run per case, no draw, no mutant) and judges on the same cases; a
    damaged plan is drawn again; a ladder with no seed given neither reads nor keeps one."""
    from t2c.verify import ladder as ladder_module
    first = ladder_module.ladder(GEMM, GOOD, backend="emu", seed=78, bench=False)
    kept = list(no_suites_yet.glob("suites/*.json"))
    assert first.suite["origin"] == "drawn" and len(kept) == 1
    real_build, real_gate = ladder_module.build_suite, ladder_module.gate
    ladder_module._SUITES.clear()                                   # as in a fresh process
    monkeypatch.setattr(ladder_module, "build_suite", lambda *a, **kw: pytest.fail("drawn again"))
    monkeypatch.setattr(ladder_module, "gate", lambda *a, **kw: pytest.fail("gated again"))
    again = ladder_module.ladder(GEMM, GOOD, backend="emu", seed=78, bench=False)
    assert again.accepted and again.suite["origin"] == "stored, replayed"
    assert again.suite["case_list"] == first.suite["case_list"] and again.mutant_gate == first.mutant_gate
    assert again.max_error == first.max_error
    monkeypatch.setattr(ladder_module, "build_suite", real_build)
    monkeypatch.setattr(ladder_module, "gate", real_gate)
    ladder_module._SUITES.clear()
    kept[0].write_text(kept[0].read_text()[:40])                   # cut short
    assert ladder_module.ladder(GEMM, GOOD, backend="emu", seed=78, bench=False).suite["origin"] == "drawn"
    ladder_module.ladder(GEMM, GOOD, backend="emu", bench=False)
    assert len(list(no_suites_yet.glob("suites/*.json"))) == 1


@needs_emu
def test_verify_and_bench_replay_the_planned_suite(monkeypatch, tmp_path):
    """The batch's suite stage plans the suite (drawn and gated once); its verify and bench stages
    take it from memory in the same process, else replay it with one reference run per case: no
    draw, conditioning run or mutant again (at LARGE that cost lu's verify and bench stages tens
    of seconds of CPU each).  A plan for another seed or dataset is not used; a lost plan file
    means drawing it again."""
    from t2c.engine.stages import planned_suite
    from t2c.verify import ladder as ladder_module, rungs
    plan = ladder_module.plan_suite(GEMM, 42, "MINI", "emu")
    (tmp_path / "suite.json").write_text(json.dumps(plan))
    plan = planned_suite({"upstream": {"suite": {"_dir": str(tmp_path)}}})
    assert planned_suite({"upstream": {"suite": {"_dir": str(tmp_path / "gone")}}}) is None
    built, timed = [], []
    monkeypatch.setattr(ladder_module, "build_suite", lambda *a, **kw: built.append(1))
    monkeypatch.setattr(ladder_module, "gate", lambda *a, **kw: built.append(1))
    cards = {}
    for origin in ("planned, in memory", "planned, replayed"):    # the same worker; another process
        if origin == "planned, replayed":
            ladder_module._SUITES.clear()
        ev = ladder_module.ladder(GEMM, GOOD, backend="emu", seed=42, dataset="MINI", bench=False, planned=plan)
        assert ev.accepted and ev.suite["origin"] == origin
        assert ev.suite["case_list"] == plan["suite"]["cases"] and ev.mutant_gate == plan["gate"]
        cards[origin] = ev
    assert cards["planned, in memory"].max_error == cards["planned, replayed"].max_error
    with pytest.raises(ValueError, match="planned for 42"):
        ladder_module.ladder(GEMM, GOOD, backend="emu", seed=43, dataset="MINI", planned=plan)
    monkeypatch.setattr(ladder_module, "resolve_backend", lambda backend: "emu")   # no GPU here
    monkeypatch.setattr(rungs, "bench", lambda run: timed.append(run.suite.cases) or
                        rungs.RungResult("bench", True, skipped=True))
    ladder_module.bench(GEMM, GOOD, dataset="MINI", seed=42, planned=plan)
    # the bench times the first full case: a replay runs the reference for that one alone
    assert not built and [c.summary() for c in timed[0]] == [c for c in plan["suite"]["cases"] if c["rung"] == "full"][:1]


def test_the_cpu_reference_is_timed_once_per_case(monkeypatch):
    """An options search times many candidates on one bench case: the sequential reference's
    time (three gcc -O3 runs) is taken once and kept for the same case; another case times it anew."""
    from t2c.verify import rungs
    from t2c.verify.synth import build_suite
    suite = build_suite(GEMM, 42, dataset="MINI", backend="emu")
    suite.cases = suite.of("full")
    timed = []
    real = rungs.run_reference
    monkeypatch.setattr(rungs, "run_reference", lambda *a, **kw: timed.append(1) or real(*a, **kw))
    rungs._LAST_REF_MS.clear()
    speedups = []
    for dataset in ("MINI", "MINI", "SMALL"):
        if dataset == "SMALL":              # (the original init's case is the same for every seed)
            suite = build_suite(GEMM, 42, dataset="SMALL", backend="emu")
            suite.cases = suite.of("full")
        run = rungs.Run(GEMM, "gpu", suite, None, None)
        r = rungs.cpu_timing(run, rungs.RungResult("bench", True, detail={"kernel_ms": {"median": 0.5}}))
        speedups.append(r.detail["speedup"])
        # the exact counts come here too, after the GPU slot (lu's take 7 s at LARGE)
        n = suite.of("full")[0].sizes
        assert r.detail["flops"] == 3 * n["ni"] * n["nj"] * n["nk"] + n["ni"] * n["nj"]
    assert len(timed) == 6 and speedups[0] == speedups[1] > 0


def test_a_long_cpu_reference_is_timed_once(monkeypatch):
    """Three timed runs give the median; a first run of LONG_REFERENCE_S or more is the time
    alone (EXTRALARGE's references take minutes each), and the detail says how many ran."""
    from types import SimpleNamespace
    from t2c.verify import rungs
    from t2c.verify.synth import build_suite
    suite = build_suite(GEMM, 42, dataset="MINI", backend="emu")
    suite.cases = suite.of("full")
    for seconds, runs in ((rungs.LONG_REFERENCE_S + 2, 1), (0.25, 3)):
        timed = []
        monkeypatch.setattr(rungs, "run_reference",
                            lambda *a, s=seconds, **kw: timed.append(kw["nice"]) or SimpleNamespace(seconds=s))
        rungs._LAST_REF_MS.clear()
        r = rungs.cpu_timing(rungs.Run(GEMM, "gpu", suite, None, None),
                             rungs.RungResult("bench", True, detail={"kernel_ms": {"median": 0.5}}))
        assert timed == [0] * runs and r.detail["reference_ms"]["runs"] == runs
        assert r.detail["reference_ms"]["median"] == seconds * 1e3 and r.detail["speedup"] == seconds * 1e3 / 0.5


def test_check_runs_open_one_cuda_queue_and_timed_runs_the_default(tmp_path, monkeypatch):
    """A candidate sees a scrubbed environment; the runs that only check results also get
    CUDA_DEVICE_MAX_CONNECTIONS=1 (a cheaper CUDA context: 243 instead of 354 ms per process on an
    H200); the timed bench runs keep the default environment (what a user's program would see)."""
    from t2c.verify.harness import CandidateBuild, run_candidate
    monkeypatch.setenv("T2C_SOME_KEY", "secret")
    exe = tmp_path / "fake"
    exe.write_text("#!/bin/sh\nenv | sort\n")
    exe.chmod(0o755)
    seen = {}
    for mode in ("device", "bench"):
        r = run_candidate(GEMM, CandidateBuild(exe, "", ()), GEMM.dataset_sizes("MINI"), {}, mode=mode)
        seen[mode] = dict(line.split("=", 1) for line in r.process.stdout.splitlines() if "=" in line)
    assert seen["device"]["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
    assert "CUDA_DEVICE_MAX_CONNECTIONS" not in seen["bench"]
    assert all(Path(e["HOME"]).name.startswith("t2c-home-") and "T2C_SOME_KEY" not in e for e in seen.values())


@needs_emu
def test_the_bench_stops_timing_a_clearly_slow_candidate(monkeypatch):
    """`slower_than` (an evolution's bar): the driver stops after three timed repetitions that all
    took longer, the bench rung checks that claim again (three or more lines, every one over the
    bar) and judges the outputs all the same; fewer lines without that are still refused.
    Shown with the emulator's build of the driver (its event times are the CPU's)."""
    import dataclasses
    from t2c.verify import rungs
    from t2c.verify.harness import EARLY_REPS
    from t2c.verify.ladder import _limits
    from t2c.verify.synth import build_suite
    monkeypatch.setenv("T2C_VERIFY_BENCH_REPS", "8")
    suite = build_suite(GEMM, 42, dataset="MINI", backend="emu")
    build = build_candidate(GEMM, GOOD.read_text(), "emu")
    bench = lambda bar: rungs.bench(rungs.Run(GEMM, "gpu", suite, build, _limits(GEMM, suite, "emu"),
                                              slower_than=bar))
    r = bench(1e-9)                      # every repetition over the bar: three, then the outputs
    assert r.ok and r.detail["reps"] == EARLY_REPS == 3 and "stopped after 3 of 8" in r.detail["stopped_early"]
    for bar in (None, 1e9):              # no bar, or one no repetition reaches: all eight
        r = bench(bar)
        assert r.ok and r.detail["reps"] == 8 and "stopped_early" not in r.detail
    # a run that printed three lines under the bar did not stop early: refused
    real = rungs.run_candidate
    monkeypatch.setattr(rungs, "run_candidate", lambda *a, **kw: dataclasses.replace(
        real(*a, **kw), kernel_ms=(1e-12,) * 3))
    r = bench(1e-9)
    assert not r.ok and r.reason == "forged or missing timing output"
    # and wrong outputs are caught in a stopped run too
    monkeypatch.setattr(rungs, "run_candidate", lambda *a, **kw: dataclasses.replace(
        r0 := real(*a, **kw), outputs={n: v * 0 + 7 for n, v in r0.outputs.items()}))
    r = bench(1e-9)
    assert not r.ok and r.reason != "forged or missing timing output"


@needs_emu
def test_the_bench_restores_each_repetitions_inputs_from_device_copies(monkeypatch):
    """T2C_VERIFY_BENCH_RESTORE (device): before each timed call the driver copies the inputs back
    from device copies made once (copies from pageable host memory made the next call of tens of
    microseconds up to 1.4x slower on an H200, report 13); `host` keeps the copies from host
    memory.  Either way every repetition starts from the same inputs: gemm's C (updated in place)
    is right after several calls.  Shown with the emulator's build of the driver; other values of
    the setting are refused with the variable's name."""
    from t2c import config
    from t2c.verify import rungs
    from t2c.verify.ladder import _limits
    from t2c.verify.synth import build_suite
    text = candidate_driver(GEMM)
    assert 'getenv("T2C_BENCH_RESTORE")' in text and "cudaMemcpy(d_C, p_C, C_bytes, cudaMemcpyDeviceToDevice)" in text
    assert "cudaMemcpy(p_C, C, C_bytes, cudaMemcpyHostToDevice)" in text
    monkeypatch.setenv("T2C_VERIFY_BENCH_REPS", "4")
    suite = build_suite(GEMM, 42, dataset="MINI", backend="emu")
    build = build_candidate(GEMM, GOOD.read_text(), "emu")
    for where in ("device", "host"):
        monkeypatch.setenv("T2C_VERIFY_BENCH_RESTORE", where)
        r = rungs.bench(rungs.Run(GEMM, "gpu", suite, build, _limits(GEMM, suite, "emu")))
        assert r.ok and r.detail["reps"] == 4, (where, r)
    monkeypatch.setenv("T2C_VERIFY_BENCH_RESTORE", "disk")
    with pytest.raises(ValueError, match="T2C_VERIFY_BENCH_RESTORE='disk'"):
        config.load()


@needs_emu
def test_the_bench_timer_starts_with_the_flush_queued_unless_asked_for_an_idle_gpu(monkeypatch):
    """T2C_VERIFY_BENCH_START (queued): the driver records its start event right after queuing the
    L2 flush, so the host's launch of the call overlaps it (torch.cuda.Event timing, triton's
    do_bench); `idle` synchronizes first.  Both run; other values are refused with the name."""
    from t2c import config
    from t2c.verify import rungs
    from t2c.verify.ladder import _limits
    from t2c.verify.synth import build_suite
    text = candidate_driver(GEMM)
    flush, record = text.index("    t2c_flush_l2();"), text.index("cudaEventRecord(t2c_e0)")
    assert text[flush:record].count("cudaDeviceSynchronize") == 1 and "if (t2c_idle)" in text[flush:record]
    monkeypatch.setenv("T2C_VERIFY_BENCH_REPS", "3")
    suite = build_suite(GEMM, 42, dataset="MINI", backend="emu")
    build = build_candidate(GEMM, GOOD.read_text(), "emu")
    for start in ("queued", "idle"):
        monkeypatch.setenv("T2C_VERIFY_BENCH_START", start)
        r = rungs.bench(rungs.Run(GEMM, "gpu", suite, build, _limits(GEMM, suite, "emu")))
        assert r.ok and r.detail["reps"] == 3, (start, r)
    monkeypatch.setenv("T2C_VERIFY_BENCH_START", "cold")
    with pytest.raises(ValueError, match="T2C_VERIFY_BENCH_START='cold'"):
        config.load()


@needs_emu
def test_the_evidence_names_the_mutants_left_out_as_equivalent():
    """A row softmax's max shift cancels out of its mutants that cut the max loop (issue 35): the
    candidate is accepted, and the card and its JSON name the mutants the gate left out."""
    from t2c.generators.poly import generate
    from t2c.verify.ladder import ladder
    k = read_c(ROOT / "corpora/loops/gpu/softmax.c")
    ev = ladder(k, generate(k), backend="emu", seed=35)
    assert ev.accepted, ev.render()
    card = json.loads(ev.to_json())
    assert any(m.startswith("off_by_one:0 ") for m in card["mutant_gate"]["equivalent"])
    assert any(m["name"] == "off_by_one:0" and m["equivalent"] for m in card["mutant_gate"]["mutants"])
    assert "equivalent to the reference, left out: off_by_one:0" in ev.render()
