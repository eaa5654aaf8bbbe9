"""One kernel's chain of stages, as a worker process runs it.

`run_kernel(source, kid, settings, opts)` walks the stages (stages.py) in pipeline order:
for each target it hashes the stage's key parts; an entry of the artifact cache at that key
is up to date, else the stage runs and the reason is recorded in the state database.  A
stage that is not ok skips the later ones; a bug in t2c becomes the kernel's `internal`
outcome.  Both the batch (batch.py) and the executors (executors.py) use it, so it sits
below them.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .stages import STAGES
from .store import ArtifactCache, StateDB


@dataclass(frozen=True)
class Options:
    jobs: int = 0
    gpu_jobs: int = 1
    fail_fast: bool = False
    dry_run: bool = False
    force_all: bool = False
    rerun: tuple[str, ...] = ()
    cache_dir: Path = Path(".")
    state_dir: Path = Path(".t2c")
    llm_run: Path | None = None      # the run's model budget file (generators/llm/budget.RunBudget)


@dataclass
class Outcome:
    target: str
    kernel: str
    stage: str
    status: str
    reason: str
    summary: str
    seconds: float = 0.0
    ran: bool = False
    result: dict = field(default_factory=dict)


#: Stage statuses that say nothing about the kernel, only about this run: never cached.
TRANSIENT = ("endpoint",)



def key_of(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def why_run(prev: dict | None, parts: dict, cache_why: str, forced: bool) -> str:
    if forced:
        return "forced (-B or --rerun)"
    if prev is None:
        return "never built"
    changed = [k for k in parts if prev["parts"].get(k) != parts[k]]
    if changed:
        return "changed: " + ", ".join(changed)
    return cache_why or "not in the cache"


@contextmanager
def gpu_slot(lock_dir: Path, slots: int):
    """Hold one GPU (a lock file per GPU); sets CUDA_VISIBLE_DEVICES for the stage."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    while True:
        for i in range(max(1, slots)):
            f = open(lock_dir / f"gpu{i}.lock", "w")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.close()
                continue
            old = os.environ.get("CUDA_VISIBLE_DEVICES")
            # More slots than GPUs share them round-robin (several jobs on one GPU).
            from ..runtime.gpu import gpus
            os.environ["CUDA_VISIBLE_DEVICES"] = str(i % max(1, len(gpus())))
            try:
                yield i
            finally:
                if old is None:
                    os.environ.pop("CUDA_VISIBLE_DEVICES", None)
                else:
                    os.environ["CUDA_VISIBLE_DEVICES"] = old
                fcntl.flock(f, fcntl.LOCK_UN)
                f.close()
            return
        time.sleep(0.05)


@contextmanager
def _held(slot, held: dict):
    """A GPU slot that notes which GPU it was and the seconds spent waiting for it and
    holding it (a stage takes it only around its GPU work: `ctx["gpu_slot"]`)."""
    asked = time.monotonic()
    with slot as gpu:
        got = time.monotonic()
        held["gpu"] = gpu
        held["gpu_wait_s"] = held.get("gpu_wait_s", 0.0) + got - asked
        held.setdefault("gpu_from", time.time())
        try:
            yield gpu
        finally:
            held["gpu_s"] = held.get("gpu_s", 0.0) + time.monotonic() - got
            held["gpu_to"] = time.time()


def run_kernel(source: str, kid: str, settings: dict, opts: Options, events=None,
               cached_only: bool = False) -> list[Outcome] | None:
    """The kernel's chain of stages; with `cached_only`, None as soon as a stage would run."""
    cache = ArtifactCache(opts.cache_dir)
    state = StateDB(opts.state_dir / "state.sqlite")
    ctx = {"source": source, "settings": settings, "upstream": {}, "llm_run": opts.llm_run,
           "state_dir": opts.state_dir}
    outcomes: list[Outcome] = []
    stopped = None
    try:
        for name, parts_fn, run_fn, uses_gpu in STAGES:
            target = f"{kid}:{name}"
            if stopped:
                o = Outcome(target, kid, name, "skipped", f"upstream {stopped}", "")
                outcomes.append(o)
                if events is not None and not opts.dry_run:
                    events.put(o)
                continue
            parts = parts_fn(ctx)
            key = key_of(parts)
            prev = state.get(target)
            forced = opts.force_all or name in opts.rerun
            result, cache_why = (None, "") if forced else cache.load(name, key)
            start = time.monotonic()
            if result is not None:
                o = Outcome(target, kid, name, result["status"], "up to date", result["summary"],
                            result.get("_seconds", 0.0), False, result)
            elif cached_only:
                return None
            else:
                reason = why_run(prev, parts, cache_why, forced)
                if opts.dry_run:
                    outcomes.append(Outcome(target, kid, name, "would-run", reason, ""))
                    stopped = f"{name} would run"
                    continue
                work = cache.new_entry(name)
                try:
                    held = {}
                    if uses_gpu and settings["backend"] == "gpu":
                        ctx["gpu_slot"] = lambda: _held(gpu_slot(opts.state_dir / "locks", opts.gpu_jobs), held)
                    result = run_fn(ctx, work)
                    ctx.pop("gpu_slot", None)
                    result.update(held)
                    result["_seconds"] = time.monotonic() - start
                    if result["status"] in TRANSIENT:
                        cache.discard(work)      # the next run asks the endpoint again
                    else:
                        cache.commit(name, key, work, result)
                except BaseException:
                    cache.discard(work)
                    raise
                o = Outcome(target, kid, name, result["status"], reason, result["summary"],
                            result["_seconds"], True, result)
            result["_dir"] = str(cache.path(name, key))
            ctx["upstream"][name] = result
            # An up-to-date target keeps the recorded reason it last ran for (`t2c explain`).
            if not opts.dry_run and (o.ran or not prev or (prev["key"], prev["status"]) != (key, o.status)):
                state.record(target, name, kid, key, o.status, o.reason, o.seconds, parts)
            outcomes.append(o)
            if events is not None and not opts.dry_run:
                events.put(o)
            if o.status != "ok":
                stopped = f"{name} {o.status}"
    except Exception:                       # a bug in t2c: report it against this kernel
        if cached_only:
            return None                     # (from the run that reports it)
        o = Outcome(f"{kid}:internal", kid, "internal", "internal", "exception",
                    traceback.format_exc().strip().splitlines()[-1])
        o.result = {"traceback": traceback.format_exc()}
        outcomes.append(o)
        if events is not None:
            events.put(o)
    finally:
        state.close()
    return outcomes
