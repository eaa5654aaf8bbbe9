"""The rungs of the verification ladder that run a candidate, one function each.

Every rung takes the ladder's `Run` (kernel, candidate, backend, suite, build, limits) and
gives a `RungResult`: ok, a short `reason` (the words a report and the red-team manifest match
on), `feedback` (what went wrong and where, for evolution), `detail` (evidence) and its seconds.
A rung never raises for a candidate's misbehaviour; that is its result. The rungs: smoke (both
entry points), random (each point as one process of several calls), races (emu: scheduling
seeds; gpu: a repeat, then racecheck.py), full, bench (gpu only). docs/verification.md, "The
ladder".
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from .. import config
from ..analysis import NotAffine, analyze
from ..analysis.cost import counts
from ..ir import Kernel
from ..runtime.emu.settings import BLOCK_THREADS_ENV
from .compare import Comparison, compare, is_poison
from .harness import EARLY_REPS, Limits, run_calls, run_candidate
from .racecheck import gpu_race_check, sanitize
from .reference import ReferenceFailed, run_reference
from .runs import Run, RungResult, failure, poisoned_outputs
from .synth import Case, derive

BENCH_REF_FLAGS = ("-O3", "-march=native", "-std=c99")
#: The sequential reference is timed three times (median), once when one run takes this long:
#: a run of seconds varies by far less than its length, and EXTRALARGE's take minutes.
LONG_REFERENCE_S = 10.0
CONCURRENT_BLOCKS = 4          # the emu races rung's OS threads for blocks, every second seed


# -- helpers -------------------------------------------------------------------------------

def _emu_env(seed: int | None) -> dict:
    return {"T2C_EMU_SEED": str(seed)} if seed is not None else {}


def _asan_env(limits: Limits | None) -> dict:
    mb = config.load().verify_mem_mb
    # the sanitizer reserves terabytes of address space, so RLIMIT_AS cannot bound an
    # ASan build; its allocator bounds allocations and resident memory instead
    return {"ASAN_OPTIONS": f"max_allocation_size_mb={mb}:hard_rss_limit_mb={mb}:detect_leaks=0:"
                            "allocator_may_return_null=0"}


def _judge(run: Run, case: Case, outputs: dict, entry: str) -> tuple[str, str] | None:
    """None when the outputs pass; else (reason, feedback)."""
    k = run.kernel
    if not outputs:
        return ("no outputs (early exit?)", f"{entry} entry point: the program ended with status 0 "
                f"but wrote no outputs: it exited before the driver could (exit(0), a return from main)")
    if case.expected is None:      # values not comparable here: every out element written?
        bad = [a.name for a in k.arrays if a.intent == "out"
               and is_poison(np.asarray(outputs[a.name]).reshape(-1), a.dtype).any()]
        if bad:
            return ("unwritten output elements",
                    f"{entry} entry point at {case.sizes}: {', '.join(bad)} not fully written")
        return None
    c: Comparison = compare(k, case.expected, outputs, case.sizes)
    if c.ok:
        run.worst = max(run.worst, c.max_ratio)
        return None
    run.failure = max(run.failure or 0.0, c.failure_ratio)
    return c.reason, f"{entry} entry point, sizes {case.sizes}, {case.distribution} inputs: {c.describe()}"


MISMATCHES = ("output mismatch", "NaN/inf output where the reference is finite", "unwritten output elements")


def _diagnose(run: Run, case: Case, reason: str, feedback: str) -> tuple[str, str]:
    """On a GPU a race mostly shows as a wrong result; compute-sanitizer racecheck names it."""
    sanitizer = config.load().compute_sanitizer
    if run.backend != "gpu" or reason not in MISMATCHES or not sanitizer:
        return reason, feedback
    with run.device():
        found = sanitize(run, sanitizer, "racecheck", case)
    if found and found[0] == "race":
        return f"race: {reason}", f"{feedback}; {found[1]}"
    return reason, feedback


def _timeout(run: Run, cases: list[Case], calls: int = 1) -> float:
    ref = sum(c.ref_seconds for c in cases)
    return max(run.timeout or config.load().verify_run_timeout, 200 * ref * calls)


#: Both entry points, device first (what is timed), then the drop-in on host pointers.
ENTRIES = (True, False)


# -- rungs ---------------------------------------------------------------------------------

def smoke_calls(run: Run) -> list[tuple[bool, Case]]:
    return [(on_device, c) for c in run.suite.of("smoke") for on_device in ENTRIES]


def random_calls(run: Run) -> list[tuple[bool, Case]]:
    return [(on_device, c) for g in _groups(run.suite.of("random")) for on_device in ENTRIES for c in g]


def _race_groups(run: Run) -> list[list[Case]]:
    """The two random points with the most work (the reference's loop iterations, the same on any
    machine): thread interleavings have the most room there."""
    return sorted(_groups(run.suite.of("random")), key=lambda g: -sum(c.work for c in g))[:2]


def races_calls(run: Run) -> list[tuple[bool, Case]]:
    """On a GPU: the biggest random point once more (a race shows as results that change)."""
    return [(True, c) for c in _race_groups(run)[0]] if run.suite.of("random") else []


def full_calls(run: Run) -> list[tuple[bool, Case]]:
    return [(True, c) for c in run.suite.of("full")]


def run_ahead(run: Run, env: dict | None = None) -> None:
    """The calls of smoke, random, the races repeat and full in one candidate process, in that
    order (the ladder does this on a GPU: a CUDA context costs ~0.35 s on an H200, and processes
    creating one at once on two GPUs wait for each other; scripts/multi_gpu_check.sh measures
    both).  Each rung then judges its share; the one whose call failed reports the failure, and
    the ladder stops there."""
    plan = [(name, calls) for name, calls in (("smoke", smoke_calls(run)), ("random", random_calls(run)),
                                              ("races", races_calls(run)), ("full", full_calls(run))) if calls]
    flat = [c for _, calls in plan for c in calls]
    if not flat:
        return
    r = _run_calls(run, flat, env, sum(_timeout(run, [c for _, c in calls], len(calls))
                                       for _, calls in plan))   # what the rungs' own processes would have had
    at = 0
    for i, (name, calls) in enumerate(plan):
        outs = r.outputs[at:at + len(calls)]
        at += len(calls)
        failed = None if r.process.ok or (len(outs) == len(calls) and i < len(plan) - 1) else r.process
        run.ahead[name] = (outs, failed)
        if failed:
            break


def smoke(run: Run) -> RungResult:
    start = time.monotonic()
    cases = run.suite.of("smoke")
    env = _asan_env(run.limits) if run.backend == "emu" else {}
    bad = _calls(run, smoke_calls(run), env, "smoke", start)
    return bad or RungResult("smoke", True, detail={"sizes": [c.sizes for c in cases]},
                             seconds=time.monotonic() - start)


def _groups(cases: list[Case]) -> list[list[Case]]:
    groups: dict = {}
    for c in cases:
        groups.setdefault(tuple(sorted(c.sizes.items())), []).append(c)
    return list(groups.values())


def _run_calls(run: Run, calls: list[tuple[bool, Case]], env: dict | None, timeout: float):
    k = run.kernel
    return run_calls(k, run.build, [(d, c.sizes, c.inputs) for d, c in calls], poison=lambda z: poisoned_outputs(k, z),
                     timeout=timeout, env=env, limits=run.limits)


def _calls(run: Run, calls: list[tuple[bool, Case]], env: dict, rung: str, start: float,
           extra: dict | None = None) -> RungResult | None:
    """A rung's calls, each (on_device, case), in one candidate process and in order: the first
    wrong result or failure is the rung's finding, with the entry point and sizes it came from."""
    if not calls:                      # e.g. every random draw discarded: nothing to run
        return None
    outputs_, failed = run.ahead.pop(rung, (None, None))
    if outputs_ is None:
        with run.device():
            r = _run_calls(run, calls, env, _timeout(run, [c for _, c in calls], len(calls)))
        outputs_, failed = r.outputs, None if r.process.ok else r.process
    for i, ((on_device, case), outputs) in enumerate(zip(calls, outputs_)):
        bad = _judge(run, case, outputs, "device" if on_device else "host")
        if bad:
            note = f" (call {i + 1} of {len(calls)} in one process)" if len(calls) > 1 else ""
            reason, feedback = _diagnose(run, case, bad[0], bad[1] + note)
            return RungResult(rung, False, reason, feedback, {"case": case.summary(), **(extra or {})},
                              time.monotonic() - start)
    if failed is not None:
        on_device, case = calls[min(len(outputs_), len(calls) - 1)]
        reason, feedback = failure(run, failed)
        return RungResult(rung, False, reason, f"{'device' if on_device else 'host'} entry point, "
                          f"sizes {case.sizes}: {feedback}", {"case": case.summary(), **(extra or {})},
                          time.monotonic() - start)
    return None


def random(run: Run) -> RungResult:
    start = time.monotonic()
    env = _asan_env(run.limits) if run.backend == "emu" else {}
    groups = _groups(run.suite.of("random"))
    bad = _calls(run, random_calls(run), env, "random", start)
    if bad:
        return bad
    return RungResult("random", True, detail={"points": [{"sizes": g[0].sizes, "distributions":
                                                          [c.distribution for c in g]} for g in groups]},
                      seconds=time.monotonic() - start)


def races(run: Run) -> RungResult:
    start = time.monotonic()
    if run.backend == "emu":
        return emu_races(run, start)
    bad = _calls(run, races_calls(run), {}, "races", start, {"repeat": 2})
    if bad:
        return bad
    # agreement alone proves nothing on hardware (a race is often right by luck): a race check
    # must run too, compute-sanitizer or else emu's races rung on the same source
    return gpu_race_check(run, start, emu_races)


def emu_races(run: Run, start: float) -> RungResult:
    """The emu races rung (also the gpu rung's fallback, racecheck.py): the race points under
    several scheduling seeds, every second one with the blocks on CONCURRENT_BLOCKS OS threads at
    once (a block reading what another block of the launch writes, without waiting for it, reads
    it early only when both run at once); the first failure is the finding, named with its seed."""
    groups = _race_groups(run)
    cfg = config.load()
    seeds = [1 + derive(run.suite.seed, "race", i) % 1_000_000 for i in range(cfg.verify_race_seeds)]
    for i, seed in enumerate(seeds):
        concurrent = {BLOCK_THREADS_ENV: str(CONCURRENT_BLOCKS)} if i % 2 else {}
        env = {**_asan_env(run.limits), **_emu_env(seed), **concurrent}
        bad = _calls(run, [(True, c) for g in groups for c in g], env, "races", start, {"emu_seed": seed})
        if bad:
            if bad.reason in MISMATCHES:
                bad.reason = f"race (results change with the thread order): {bad.reason}"
            blocks = f", blocks on {CONCURRENT_BLOCKS} OS threads at once" if concurrent else ""
            bad.feedback = f"emu scheduling seed {seed}{blocks}: {bad.feedback}"
            return bad
    return RungResult("races", True, detail={"emu_seeds": seeds, "points": [g[0].sizes for g in groups]},
                      seconds=time.monotonic() - start)


def full(run: Run) -> RungResult:
    start = time.monotonic()
    cases = run.suite.of("full")
    detail = {"dataset": run.suite.full_dataset, "note": run.suite.full_note,
              "sizes": cases[0].sizes if cases else None, "step": run.suite.full_step_line}
    if not cases:
        return RungResult("full", True, skipped=True, detail=detail, feedback=run.suite.full_note,
                          seconds=time.monotonic() - start)
    env = _asan_env(run.limits) if run.backend == "emu" else {}
    bad = _calls(run, full_calls(run), env, "full", start, detail)
    if bad:
        return bad
    return RungResult("full", True, detail=detail, seconds=time.monotonic() - start)


def bench(run: Run) -> RungResult:
    start = time.monotonic()
    cfg = config.load()
    cases = run.suite.of("full")
    if run.backend != "gpu" or not cases:
        return RungResult("bench", True, skipped=True,
                          feedback="the emulator gives no speed numbers" if run.backend != "gpu"
                          else "no full case", seconds=time.monotonic() - start)
    case = cases[0]
    k = run.kernel
    env = {"T2C_BENCH_STOP_MS": repr(run.slower_than)} if run.slower_than else {}
    env["T2C_BENCH_RESTORE"] = cfg.verify_bench_restore
    env["T2C_BENCH_START"] = cfg.verify_bench_start
    with (run.timed_device or run.device)():   # the GPU, alone, for the timed process only; judged after
        r = run_candidate(k, run.build, case.sizes, case.inputs, mode="bench", reps=cfg.verify_bench_reps,
                          poison=poisoned_outputs(k, case.sizes), timeout=max(cfg.timeout, 400 * case.ref_seconds),
                          limits=run.limits, env=env)
    if not r.process.ok:
        reason, feedback = failure(run, r.process)
        return RungResult("bench", False, reason, f"bench mode: {feedback}", seconds=time.monotonic() - start)
    stopped = run.slower_than and EARLY_REPS <= len(r.kernel_ms) < cfg.verify_bench_reps \
        and min(r.kernel_ms) > run.slower_than          # the driver's early stop, checked again here
    if (len(r.kernel_ms) != cfg.verify_bench_reps and not stopped) or r.e2e_ms is None or r.stray_output:
        return RungResult("bench", False, "forged or missing timing output",
                          f"expected {cfg.verify_bench_reps} timing lines from the driver, got {len(r.kernel_ms)}"
                          + (f"; stray output: {r.stray_output[:200]!r}" if r.stray_output else ""),
                          seconds=time.monotonic() - start)
    bad = _judge(run, case, r.outputs, "device (bench mode)")
    if bad:
        return RungResult("bench", False, bad[0], bad[1], seconds=time.monotonic() - start)
    ms = sorted(r.kernel_ms)
    detail = {"sizes": case.sizes, "reps": len(ms), "kernel_ms": {
        "median": statistics.median(ms), "p20": float(np.percentile(ms, 20)), "p80": float(np.percentile(ms, 80))},
        "e2e_ms": r.e2e_ms}
    if stopped:
        detail["stopped_early"] = (f"timing stopped after {len(ms)} of {cfg.verify_bench_reps} repetitions: "
                                   f"the fastest took {ms[0]:.4g} ms, over the bar of {run.slower_than:.4g}")
    return RungResult("bench", True, detail=detail, seconds=time.monotonic() - start)


_LAST_REF_MS: dict = {}


def cpu_timing(run: Run, r: RungResult) -> RungResult:
    """The bench rung's host work, which the caller runs after giving the GPU back: the kernel's
    exact flops and bytes (`_counts`) and its roofline fraction, then the sequential reference's
    time on the bench case (gcc -O3, median of three) and the speedup.  The last case's
    reference time is kept for the next candidate on the same case (an options search times
    many: syr2k's three reference runs take 13 s at LARGE); a first run of `LONG_REFERENCE_S` or
    more is the time alone."""
    if not r.ok or r.skipped:
        return r
    start = time.monotonic()
    case, detail = run.suite.of("full")[0], r.detail
    k = run.kernel
    detail.update(_counts(k, case.sizes))
    from ..runtime.ceilings import cached, roofline_pct
    ceilings = cached()
    if ceilings and "flops" in detail:
        dtype = "double" if any(a.dtype == "double" for a in k.arrays) else "float"
        detail["roofline_pct"] = roofline_pct(detail["flops"], detail["bytes"], detail["kernel_ms"]["median"],
                                              ceilings, dtype)
    key = (run.kernel.key(), tuple(sorted(case.sizes.items())), case.distribution, case.seed)
    try:
        if key not in _LAST_REF_MS:
            timed = lambda: run_reference(run.kernel, case.sizes, case.inputs, flags=BENCH_REF_FLAGS,
                                          nice=0).seconds * 1e3
            runs = [timed()]
            if runs[0] < LONG_REFERENCE_S * 1e3:
                runs += [timed(), timed()]
            _LAST_REF_MS.clear()
            _LAST_REF_MS[key] = (statistics.median(runs), len(runs))
        ref_ms, n = _LAST_REF_MS[key]
        detail["reference_ms"] = {"median": ref_ms, "runs": n, "flags": " ".join(BENCH_REF_FLAGS)}
        detail["speedup"] = ref_ms / detail["kernel_ms"]["median"] if detail["kernel_ms"]["median"] > 0 else None
    except ReferenceFailed as e:
        detail["reference_ms"] = {"error": str(e)}
    r.seconds += time.monotonic() - start
    return r


_LAST_COUNTS: dict = {}


def _counts(k: Kernel, sizes: dict) -> dict:
    """The kernel's flops and compulsory bytes at `sizes` (none outside the polyhedral model;
    bounds, marked `counts_bounded`, where it reads through data: analysis.cost): the IS facts'
    count where it carries one, else counted here, on the bench's demand and at its case's sizes
    alone, the last kernel's kept (an options search benches many candidates of one kernel)."""
    if k.facts is not None:
        got = k.count_at(sizes)
        return _figures(got) if got else {}
    key = (k.key(), tuple(sorted(sizes.items())))
    if key not in _LAST_COUNTS:
        try:
            got = _figures(counts(analyze(k), sizes))
        except NotAffine:
            got = {}
        _LAST_COUNTS.clear()
        _LAST_COUNTS[key] = got
    return dict(_LAST_COUNTS[key])


def _figures(c) -> dict:
    """A Count or cost.Work as the bench's figures; `counts_bounded` only where they are bounds."""
    return {"flops": c.flops, "bytes": c.bytes} | ({"counts_bounded": True} if c.bounded else {})
