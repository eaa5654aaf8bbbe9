"""The verification ladder: one candidate `.cu` against one kernel, rung by rung.

    ladder(kernel, candidate, *, backend="auto", dataset=None, seed=None, source=None,
           bench=True, timeout=None, planned=None, slower_than=None) -> Evidence
    bench(kernel, candidate, ...) -> Timing;  plan_suite(kernel, seed, dataset, backend) -> dict

Takes a kernel and a candidate (a path, or its text); climbs static, build, gate, smoke,
random, races, full, bench (gpu only, accepted candidates only), each gating the next (DESIGN
§4); gives the `Evidence`. The candidate never sees the seed, its inputs before its run or the
expected outputs, and runs isolated (harness.py). Raises `UserError` only for what the user got
wrong (a missing file, an unusable backend, an unknown dataset); everything a candidate does is
its Evidence. docs/verification.md.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import time
from collections import OrderedDict
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import numpy as np

from .. import config
from ..errors import UserError
from ..ir import Kernel
from ..runtime.build import BuildError, code_version, compiler_version
from . import rungs
from .device import build_figures, fingerprint, resolve_backend
from .evidence import Evidence, Timing
from .gate import GateResult, gate
from .harness import Limits, build_candidate
from .reference import ReferenceFailed, array_shape, np_dtype
from .rungs import RungResult, Run
from .static import check_static
from .synth import build_suite, new_seed, replay_suite, sizing

RUNTIME_RUNGS = (rungs.smoke, rungs.random, rungs.races, rungs.full)


def default_dataset(backend: str) -> str:
    return config.load().dataset or ("LARGE" if backend == "gpu" else "MINI")


def _limits(k: Kernel, suite, backend: str) -> Limits:
    cfg = config.load()
    biggest = 0
    for c in suite.cases:
        biggest = max(biggest, sum(int(np.prod(array_shape(a, c.sizes))) * np_dtype(a.dtype).itemsize
                                   for a in k.arrays))
    # RLIMIT_AS breaks both CUDA (it reserves the unified address space) and the
    # sanitizers (shadow memory).  gpu: RLIMIT_DATA bounds host heap and private mappings
    # and CUDA still starts under it; emu (ASan): the sanitizer's allocator limits, set
    # through ASAN_OPTIONS in rungs.py, since its shadow mappings would trip RLIMIT_DATA.
    data = (cfg.verify_mem_mb << 20) + 4 * biggest if backend == "gpu" else None
    return Limits(data=data, file_size=2 * biggest + (64 << 20), cpu_seconds=int(2 * cfg.timeout + 60))


def _candidate(candidate: str | Path, source: str | None) -> tuple[Path, str]:
    """(path for messages, text): a Path or the name of an existing file is read; any other
    string is taken as the candidate's source text itself."""
    if source is not None:
        return Path(candidate), source
    if isinstance(candidate, str) and ("\n" in candidate or not Path(candidate).exists()) \
            and not candidate.endswith(".cu"):
        return Path("candidate.cu"), candidate
    path = Path(candidate)
    try:
        return path, path.read_text()
    except OSError as e:
        raise UserError(f"cannot read the candidate: {e.strerror}", file=str(path)) from None


def ladder(k: Kernel, candidate: str | Path, *, backend: str = "auto", dataset: str | None = None,
           seed: int | None = None, source: str | None = None, bench: bool = True,
           timeout: float | None = None, device=nullcontext, reuse_suite: bool = False,
           planned: dict | None = None, slower_than: float | None = None, timed_device=None) -> Evidence:
    """`device()` is entered around the rungs that run the candidate (the engine's GPU
    slot); static, build, the suite and the mutant gate need no GPU and run before it.
    `timed_device()` (default: `device`) around the bench's timed process alone (the engine
    holds the whole GPU there; verification's runs share it).
    `planned`: the suite and gate verdict drawn earlier with this seed and dataset
    (`plan_suite`, the batch's suite stage), replayed instead of drawn again.
    `slower_than` (ms): the bench stops timing a candidate whose first repetitions all take
    longer (an options search's bar); the outputs are judged all the same."""
    path, source = _candidate(candidate, source)
    backend = resolve_backend(backend)
    dataset = (dataset or default_dataset(backend)).upper()
    seed_given = seed is not None
    seed = int(seed) if seed_given else new_seed()
    ev = Evidence(kernel=k.name, kernel_key=k.key(), candidate=str(path),
                  candidate_sha256=hashlib.sha256(source.encode()).hexdigest(), backend=backend,
                  seed=seed, seed_given=seed_given, dataset=dataset)
    ev.device = fingerprint(backend)
    if k.tolerances:
        ev.tolerance["integers"] = "exact, except (units): " + ", ".join(f"{n} ±{u}" for n, u in k.tolerances)

    def record(r: RungResult) -> bool:
        ev.rungs.append(r.summary())
        ev.timings.setdefault("rungs_s", {})[r.name] = round(r.seconds, 3)
        if not r.ok:
            ev.rung, ev.reason, ev.feedback = r.name, r.reason, r.feedback
        return r.ok

    # static: what the source may contain
    t = time.monotonic()
    st = check_static(k, source, path.name)
    if not record(RungResult("static", st.ok, st.findings[0].rule if st.findings else "", st.reason,
                             {"findings": st.summary()}, time.monotonic() - t)):
        return ev

    # build: nvcc for the device (ptxas figures kept), g++ + ASan/UBSan for emu
    t = time.monotonic()
    try:
        b = build_candidate(k, source, backend, sanitize=backend == "emu")
    except BuildError as e:
        reason = "unsupported by the emulator" if "does not model" in str(e) else "compile error"
        tidy = lambda text: re.sub(r"\S*candidate\.cu", path.name, text)
        record(RungResult("build", False, reason, tidy(f"{e}: {_first_error(e.log)}"),
                          {"log": tidy(e.log[-4000:])}, time.monotonic() - t))
        return ev
    ev.build = {"backend": backend, "command": " ".join(map(str, b.command)),
                "sanitizers": "address,undefined" if backend == "emu" else None,
                "kernels": build_figures(b.log) if backend == "gpu" else {}}
    record(RungResult("build", True, detail=ev.build, seconds=time.monotonic() - t))

    # gate: the synthesized suite must reject the reference's mutants
    t = time.monotonic()
    # A given seed draws the same suite every time: the one this process drew last is that suite.
    suite, g, origin = _suite_and_gate(k, seed, dataset, backend, reuse_suite or seed_given, planned)
    ev.mutant_gate = g.summary()
    ev.suite = {"cases": len(suite.cases), "discarded": len(suite.discarded), "origin": origin,
                "discard_reasons": sorted({d["why"].split(":")[0] for d in suite.discarded}),
                "full": suite.full_note, "full_step": suite.full_step,
                "case_list": [c.summary() for c in suite.cases]}
    ev.sizes = {r: [c.sizes for c in suite.of(r)] for r in ("smoke", "random", "full")}
    gate_detail = {k_: v for k_, v in ev.mutant_gate.items() if k_ != "mutants"}
    if not record(RungResult("gate", g.passed, "" if g.passed else "weakly tested",
                             "" if g.passed else "the synthesized inputs cannot tell these mutants of "
                             f"the reference from it: {', '.join(m.name for m in g.survivors)}" + "".join(
                                 f"; {m.name} is not equivalent to it: {m.by} tells it apart" for m in g.survivors if m.by),
                             gate_detail, time.monotonic() - t)):
        return ev

    run = Run(k, backend, suite, b, _limits(k, suite, backend), path.name, timeout=timeout, source=source,
              slower_than=slower_than)
    ev.isolation = {"scratch_dir": "fresh per run, inputs only", "env": "scrubbed, builds too (runtime/process.py "
                    "KEPT: PATH, library and include paths, locale, TMPDIR, CUDA variables; a scratch HOME; "
                    "CUDA_DEVICE_MAX_CONNECTIONS=1 except in timed runs)",
                    "file_size_limit": run.limits.file_size,
                    "cpu_seconds": run.limits.cpu_seconds,
                    "memory": f"ASan allocator {config.load().verify_mem_mb} MiB" if backend == "emu"
                    else f"RLIMIT_DATA {run.limits.data >> 20} MiB (host); the device's own limits"}

    def climb(steps) -> bool:
        for rung in steps:
            r = rung(run)
            if rung is rungs.races:
                ev.races = {"ok": r.ok, "reason": r.reason, **r.detail,
                            "out_of_bounds": ("AddressSanitizer + UBSan on every emu run" if backend == "emu"
                                              else "64 KiB guard zones checked after every call; "
                                                   "compute-sanitizer memcheck where found, else "
                                                   "AddressSanitizer on the emu fallback")}
            if not record(r):
                return False
        return True

    # The slot covers the runs on the device: every rung's calls in one process (one CUDA context)
    # and the races rung's sanitizer runs.  The full rung judges its outputs (already computed)
    # after the GPU is given back: a replayed suite's reference may still be computing them.
    with device():
        if backend == "gpu":
            rungs.run_ahead(run)
        ok = climb(RUNTIME_RUNGS[:-1])
    run.device = device                # a run on the device from here on takes the slot again
    run.timed_device = timed_device
    ok = ok and climb(RUNTIME_RUNGS[-1:])
    # What the ladder measured: the passing cases' worst, and a failing comparison's error too
    # (a rejected kernel is not shown as error-free); None when no bound measures that failure.
    ev.max_error = run.worst if run.failure is None else \
        max(run.worst, run.failure) if math.isfinite(run.failure) else None
    if not ok:
        return ev
    if bench:                          # the timed process in the slot; judged and the reference timed after
        r = rungs.cpu_timing(run, rungs.bench(run))
        ev.timings.update(r.detail)
        if not record(r):
            return ev
    ev.accepted = True
    return ev


#: Suites drawn in this process with their gates, the newest last: (kernel key, seed, dataset,
#: backend, the sizing settings) -> (Suite, GateResult); as many as fit in _KEPT_BYTES of inputs (LARGE suites are big).
_SUITES: OrderedDict = OrderedDict()
_KEPT_BYTES = 256 << 20


def plan_suite(k: Kernel, seed: int, dataset: str, backend: str) -> dict:
    """The suite for this seed, dataset and backend, drawn and gated, as the summaries a later
    ladder or bench replays (`planned`): sizes, distributions and seeds, no inputs or outputs.
    The suite itself stays in memory for the same process's next ladder and bench (the batch
    runs a kernel's stages one after the other in one worker)."""
    dataset = dataset.upper()
    suite, g, _ = _suite_and_gate(k, seed, dataset, backend, reuse=True)
    return _plan((k.key(), seed, dataset, backend), suite, g)


def _plan(key: tuple, suite, g) -> dict:
    """A drawn suite and its gate verdict as the summaries a later ladder replays (`planned`)."""
    return {"seed": key[1], "dataset": key[2], "backend": key[3], "suite": suite.summary(), "gate": g.summary()}


def _planned(k: Kernel, key: tuple, planned: dict, rungs: tuple[str, ...] | None = None, most: int | None = None):
    """(suite, origin) of a plan: from memory when this process drew it, else replayed; `rungs`:
    only the cases of these, and of those the first `most` (a replay runs the reference once for
    each case it keeps)."""
    if (*key, sizing()) in _SUITES:
        suite = _SUITES[(*key, sizing())][0]
        return (replace(suite, cases=[c for c in suite.cases if c.rung in rungs][:most]) if rungs else suite,
                "planned, in memory")
    summary = planned["suite"]
    if rungs:
        summary = {**summary, "cases": [c for c in summary["cases"] if c["rung"] in rungs][:most]}
    return replay_suite(k, summary), "planned, replayed"


def _suite_and_gate(k: Kernel, seed: int, dataset: str, backend: str, reuse: bool, planned: dict | None = None):
    """(suite, gate verdict, origin): with `planned`, the planned suite, from memory when this
    process drew it (`plan_suite`), else replayed (one reference run per case; drawn again if the
    replay fails); with `reuse` (a given seed: it draws the same suite every time), the one drawn
    for the same kernel, seed, dataset and backend, from memory in this process, else replayed
    from the plan an earlier process kept (an options search checks many candidates of one kernel
    on one suite, and at LARGE drawing it runs the reference a dozen times); else drawn now."""
    key = (k.key(), seed, dataset, backend)
    if planned is not None:
        if (planned["seed"], planned["dataset"], planned["backend"]) != key[1:]:
            raise ValueError(f"a suite planned for {planned['seed']}, {planned['dataset']}, {planned['backend']} "
                             f"given to a ladder for {key[1:]}")
        try:
            suite, origin = _planned(k, key, planned)
            return suite, GateResult.from_summary(planned["gate"]), origin
        except ReferenceFailed:
            pass                         # not expected (the reference is deterministic): draw it again
    memo = (*key, sizing())          # a suite drawn under other budgets (T2C_VERIFY_EMU_WORK) is another suite
    if reuse and memo in _SUITES:
        _SUITES.move_to_end(memo)
        return (*_SUITES[memo], "drawn")
    stored = _stored_plan(k, key) if reuse else None
    if stored is not None:
        try:
            suite, g, origin = replay_suite(k, stored["suite"]), GateResult.from_summary(stored["gate"]), "stored, replayed"
        except ReferenceFailed:
            stored = None
    if stored is None:
        suite = build_suite(k, seed, dataset=dataset, backend=backend)
        g, origin = gate(suite), "drawn"
        if not reuse:
            return suite, g, origin
        _store_plan(k, key, suite, g)
    _SUITES[memo] = (suite, g)
    while len(_SUITES) > 1 and sum(_suite_bytes(s_) for s_, _ in _SUITES.values()) > _KEPT_BYTES:
        _SUITES.popitem(last=False)
    return suite, g, origin


def _suite_bytes(suite) -> int:
    return sum(getattr(a, "nbytes", 0) for c in suite.cases for a in c.inputs.values())


def _plan_path(k: Kernel, key: tuple) -> Path:
    """Where a seed's drawn suite and gate verdict are kept across processes: content-keyed like
    the batch's suite stage (the IS, seed, dataset, backend, compiler, t2c's checking code and the
    settings that size a suite)."""
    cfg = config.load()
    parts = [*map(str, key), compiler_version(cfg.cc), code_version("verify", "runtime"),
             str(sizing())]
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]
    return Path(cfg.build_cache or cfg.cache_dir) / "suites" / f"{k.name}-{digest}.json"


def _stored_plan(k: Kernel, key: tuple) -> dict | None:
    try:
        return json.loads(_plan_path(k, key).read_text())
    except (OSError, ValueError):
        return None                          # none yet, or damaged: drawn again


def _store_plan(k: Kernel, key: tuple, suite, g) -> None:
    """Kept atomically (a rename), so a reader sees a whole plan or none."""
    path = _plan_path(k, key)
    plan = _plan(key, suite, g)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f".{path.name}.{os.getpid()}")
        part.write_text(json.dumps(plan))
        os.replace(part, path)
    except OSError:
        pass                                 # a read-only cache: drawn again next time


def _first_error(log: str) -> str:
    for line in log.splitlines():
        if "error" in line.lower():
            return line.strip()[:300]
    return log.strip().splitlines()[-1][:300] if log.strip() else ""


def bench(k: Kernel, candidate: str | Path, *, dataset: str | None = None, seed: int | None = None,
          timeout: float | None = None, source: str | None = None, device=nullcontext,
          planned: dict | None = None, timed_device=None) -> Timing:
    """The bench rung alone, for a candidate the ladder already accepted (gpu only); `device()`
    and `timed_device()` as in `ladder` (only the timed run is on the device).  `planned`:
    the suite the ladder judged it on (`plan_suite`), whose first full case (the one timed) comes
    from memory or a replay (one reference run) instead of synthesizing the full rung anew."""
    path, source = _candidate(candidate, source)
    backend = resolve_backend("gpu")
    dataset = (dataset or default_dataset(backend)).upper()
    seed = new_seed() if seed is None else int(seed)
    try:
        b = build_candidate(k, source, backend)
    except BuildError as e:
        return Timing(k.name, False, reason=f"compile error: {_first_error(e.log)}")
    suite = None
    if planned is not None and (planned["seed"], planned["suite"]["full_dataset"]) == (seed, dataset):
        try:
            suite, _ = _planned(k, (k.key(), seed, dataset, backend), planned, rungs=("full",), most=1)
        except ReferenceFailed:
            suite = None                 # synthesize it as below, which says why if it fails
    if suite is None:
        suite = build_suite(k, seed, dataset=dataset, backend=backend, points=0)
        suite.cases = suite.of("full")
    run = Run(k, backend, suite, b, _limits(k, suite, backend), path.name, timeout=timeout, source=source,
              device=device, timed_device=timed_device)
    r = rungs.cpu_timing(run, rungs.bench(run))
    return Timing(k.name, r.ok and not r.skipped, r.detail, r.reason or r.feedback)
