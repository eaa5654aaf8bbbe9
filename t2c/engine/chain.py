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
import re
import threading
import time
import traceback
from contextlib import contextmanager, nullcontext
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


# -- GPU slots ------------------------------------------------------------------------------
#
# Slot i is the lock file `gpu<i>.lock` and runs on GPU i mod the number of GPUs; a GPU's
# gate `gpu<g>.alone` is held by the one holder that wants that GPU alone (a bench's timed
# run).  Lock order, the whole deadlock argument: a shared holder only ever *tries* locks
# (non-blocking) and gives its slot back when it finds the gate of its GPU taken; an
# exclusive holder holds no slot when it blocks on the gate, then blocks on the GPU's slots
# in ascending order.  Exclusive holders of one GPU thus queue on its gate, those of two GPUs
# take disjoint locks, and a shared holder never waits while it holds anything.

_HELD = threading.local()          # the slot this thread holds, per lock folder: nested asks reuse it


@dataclass
class _Slot:
    index: int
    file: object                   # the open lock file whose flock is the hold
    alone: bool = False            # its GPU's gate and every slot held too (`_alone`)


def _gpu_count() -> int:
    from ..runtime.gpu import gpus
    return max(1, len(gpus()))


def _gate_taken(lock_dir: Path, gpu: int) -> bool:
    """Whether an exclusive holder holds or waits for GPU `gpu`'s gate (a shared probe; no
    gate file yet: none ever did, and one that makes it now waits for the slot just taken)."""
    try:
        gate = open(lock_dir / f"gpu{gpu}.alone")
    except FileNotFoundError:
        return False
    with gate:
        try:
            fcntl.flock(gate, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(gate, fcntl.LOCK_UN)
        return False


def _slots_of(lock_dir: Path, gpu: int, n_gpus: int, slots: int) -> list[int]:
    """GPU `gpu`'s slots, ascending: this run's and any another run made (a second batch with
    more --gpu-jobs in the same project); one made after this look checks the gate first."""
    made = {int(m.group(1)) for p in lock_dir.glob("gpu*.lock") if (m := re.fullmatch(r"gpu(\d+)\.lock", p.name))}
    return sorted(i for i in made | set(range(max(1, slots))) if i % n_gpus == gpu)


@contextmanager
def _alone(lock_dir: Path, own: _Slot, n_gpus: int, slots: int):
    """Upgrade the held slot `own` to its whole GPU: release it, take the gate, then every slot
    of the GPU in ascending order, `own` among them on its own file (a second open of it would
    wait for itself).  Released and re-taken rather than kept: an exclusive holder waiting on
    the gate while it keeps a slot could wait for one that waits for that slot.  On leaving,
    `own` stays held (its shared hold goes on); the others and the gate are given back."""
    fcntl.flock(own.file, fcntl.LOCK_UN)
    gate = open(lock_dir / f"gpu{own.index % n_gpus}.alone", "a")
    others = []
    try:
        fcntl.flock(gate, fcntl.LOCK_EX)
        for i in _slots_of(lock_dir, own.index % n_gpus, n_gpus, slots):
            f = own.file if i == own.index else open(lock_dir / f"gpu{i}.lock", "a")
            if f is not own.file:
                others.append(f)
            fcntl.flock(f, fcntl.LOCK_EX)
        own.alone = True
        yield
    finally:
        own.alone = False
        for f in reversed(others):
            fcntl.flock(f, fcntl.LOCK_UN)
            f.close()
        fcntl.flock(gate, fcntl.LOCK_UN)
        gate.close()
        fcntl.flock(own.file, fcntl.LOCK_EX)     # held already unless the wait above was cut short


@contextmanager
def _shared(lock_dir: Path, slots: int, n_gpus: int):
    """The first free slot whose GPU no exclusive holder holds or waits for; polls while none is."""
    while True:
        for i in range(max(1, slots)):
            f = open(lock_dir / f"gpu{i}.lock", "a")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.close()
                continue
            if _gate_taken(lock_dir, i % n_gpus):    # checked after the slot: see _alone
                fcntl.flock(f, fcntl.LOCK_UN)
                f.close()
                continue
            old = os.environ.get("CUDA_VISIBLE_DEVICES")
            # More slots than GPUs share them round-robin (several jobs on one GPU).
            os.environ["CUDA_VISIBLE_DEVICES"] = str(i % n_gpus)
            try:
                yield _Slot(i, f)
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
def gpu_slot(lock_dir: Path, slots: int, exclusive: bool = False, n_gpus: int | None = None):
    """Hold a GPU slot (one of `slots` lock files; slot i runs on GPU i mod `n_gpus`, by default
    the GPUs nvidia-smi lists) and set CUDA_VISIBLE_DEVICES to its GPU; yields the slot.

    Shared (verification, builds' runs): other slots of the same GPU run beside it.
    `exclusive` (a bench's timed process): first a shared slot as above, which picks the GPU,
    then every slot of that GPU (`_alone`), so that nothing else of t2c runs on it meanwhile;
    shared holders of that GPU finish first, new ones go to other GPUs or wait.  Asked while
    this thread already holds a slot of `lock_dir`, it uses that slot (shared) or upgrades it."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    n_gpus = n_gpus or _gpu_count()
    held = getattr(_HELD, "slots", {})
    _HELD.slots = held
    own = held.get(lock_dir)
    if own is not None:
        with _alone(lock_dir, own, n_gpus, slots) if exclusive and not own.alone else nullcontext():
            yield own.index
        return
    with _shared(lock_dir, slots, n_gpus) as own:
        held[lock_dir] = own
        try:
            with _alone(lock_dir, own, n_gpus, slots) if exclusive else nullcontext():
                yield own.index
        finally:
            del held[lock_dir]


@contextmanager
def _held(slot, held: dict, exclusive: bool = False):
    """A GPU slot that notes which GPU it was and the seconds spent waiting for it and
    holding it (a stage takes it only around its GPU work: `ctx["gpu_slot"]`); an
    `exclusive` hold (the GPU alone: a timed run) notes that, and its wait apart too."""
    asked = time.monotonic()
    with slot as gpu:
        got = time.monotonic()
        held["gpu"] = gpu
        held["gpu_wait_s"] = held.get("gpu_wait_s", 0.0) + got - asked
        if exclusive:
            held["gpu_exclusive"] = True
            held["gpu_exclusive_wait_s"] = held.get("gpu_exclusive_wait_s", 0.0) + got - asked
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
                        ctx["gpu_slot"] = lambda exclusive=False: _held(
                            gpu_slot(opts.state_dir / "locks", opts.gpu_jobs, exclusive), held, exclusive)
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
