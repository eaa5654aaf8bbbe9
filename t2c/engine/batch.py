"""The batch engine: kernel x stage targets, run like `make`.

`plan_and_run(sources, settings, options)` walks every kernel's stages in pipeline
order (stages.py).  For each target it hashes the stage's key parts; when the
artifact cache holds a whole entry at that key the target is up to date, else it
runs and the reason is recorded (never built / which part changed / corrupt entry /
forced).  Kernels run in parallel worker processes (`jobs`); stages that need the
GPU take one of `gpu_jobs` slots (a lock file per GPU, so also across concurrent
t2c runs) with CUDA_VISIBLE_DEVICES set to that GPU.  A kernel whose stage fails
skips its later stages; the batch goes on (`fail_fast` stops starting new kernels).
Where the worker processes are is up to an executor (executors.py: local, or Dask).

Sharding: kernel i (in discovery order) belongs to shard (i mod N) + 1, so the
union of shards 1..N is the whole corpus.
"""
from __future__ import annotations

import fcntl
import fnmatch
import glob
import hashlib
import json
import os
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import NoKernel, UserError
from .executors import LocalExecutor
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


# -- discovery and selection --------------------------------------------------------------

#: Where a suite keeps its kernel list: PolyBench/C at utilities/benchmark_list, paths
#: relative to the suite's root (`./datamining/...`), `#` lines left out.
KERNEL_LISTS = ("utilities/benchmark_list", "benchmark_list")


def listed(root: Path) -> list[Path] | None:
    """The kernels a suite's list names, or None when the folder has no list."""
    for rel in KERNEL_LISTS:
        listing = root / rel
        if listing.is_file():
            out = []
            for no, line in enumerate(listing.read_text(errors="replace").splitlines(), 1):
                entry = line.strip()
                if not entry or entry.startswith("#"):
                    continue
                if not (root / entry).is_file():
                    raise UserError(f"the list names '{entry}', which is not a file under {root}",
                                    file=str(listing), line=no,
                                    hint="fix the path (relative to the suite's root) or comment the line with #")
                out.append(root / entry)
            return out
    return None


def not_a_kernel(path: Path) -> str | None:
    """Why a C file found in a folder without a list is no kernel (None: it is one).

    A program whose only function is `main`, or a file with several functions and none
    marked (`#pragma scop`, `kernel_*`), gives no kernel to read: a folder walk skips it."""
    from ..frontends.c import locate
    try:
        locate.choose(locate.locate(path.read_bytes(), str(path)), str(path), None)
    except NoKernel as e:
        return e.message
    return None


def not_a_spec(path: Path) -> str | None:
    """Why a Markdown file found in a folder walk is no kernel spec (None: it is one).

    A spec starts with YAML front matter (after blank lines and comments); notes, READMEs
    and other Markdown beside the specs have none, and a folder walk skips them."""
    from ..frontends.prose.spec import front_matter_line
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return None                          # reading it reports the problem, as a kernel
    if front_matter_line(text) is None:
        return "no spec front matter (a kernel spec starts with '---' and its declarations; docs/specs.md)"
    return None


def discover(paths, note=None) -> list[Path]:
    """Kernel files under `paths`: a folder's list when it has one, else its C files and specs.

    `note(text)` hears of each C or Markdown file a folder walk skips because it holds no kernel."""
    found: list[Path] = []
    for p in paths:
        matches = [Path(m) for m in sorted(glob.glob(str(p), recursive=True))] or [Path(p)]
        for m in matches:
            if m.is_dir():
                names = listed(m)
                if names is None:    # C kernels and prose specs; READMEs and utilities are not kernels
                    names = []
                    for f in sorted(f for f in m.rglob("*") if f.suffix in (".c", ".md")
                                    and "utilities" not in f.parts and f.name.lower() != "readme.md"):
                        why = not_a_kernel(f) if f.suffix == ".c" else not_a_spec(f)
                        if why and note:
                            note(f"t2c: skipped {f}: {why}")
                        if not why:
                            names.append(f)
                found += names
            elif m.exists():
                found.append(m)
            else:
                raise UserError(f"no such file or folder: {p}", hint="check the path")
    seen, out = set(), []
    for f in found:
        if f.resolve() not in seen:
            seen.add(f.resolve())
            out.append(f)
    return out


def kernel_ids(sources: list[Path]) -> list[str]:
    """Short unique names: the file stem, or more of the path where stems collide."""
    stems = [s.stem for s in sources]
    return [s.stem if stems.count(s.stem) == 1 else "/".join(s.with_suffix("").parts[-2:])
            for s in sources]


def select(sources, ids, only=(), exclude=(), shard: tuple[int, int] | None = None):
    picked = []
    for i, (src, kid) in enumerate(zip(sources, ids)):
        names = (kid, str(src))
        if only and not any(fnmatch.fnmatch(n, g) for g in only for n in names):
            continue
        if any(fnmatch.fnmatch(n, g) for g in exclude for n in names):
            continue
        if shard and i % shard[1] != shard[0] - 1:
            continue
        picked.append((src, kid))
    return picked


def parse_shard(text: str | None, env=os.environ) -> tuple[int, int] | None:
    if not text and env.get("CI_NODE_INDEX") and env.get("CI_NODE_TOTAL"):
        text = f"{env['CI_NODE_INDEX']}/{env['CI_NODE_TOTAL']}"
    if not text:
        return None
    try:
        k, n = (int(x) for x in text.split("/"))
        if not 1 <= k <= n:
            raise ValueError
    except ValueError:
        raise UserError(f"--shard '{text}' is not K/N with 1 <= K <= N", hint="e.g. --shard 2/4") from None
    return k, n


# -- one kernel's chain (runs in a worker process) ----------------------------------------

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


# -- the whole batch ----------------------------------------------------------------------

class Interrupted(Exception):
    """Ctrl-C during a batch; `results` holds the kernels that finished (their report is kept)."""

    def __init__(self, results: dict):
        super().__init__("interrupted")
        self.results = results


def run_batch(picked, settings: dict, opts: Options, on_event=None, heartbeat=None,
              executor=None) -> dict[str, list[Outcome]]:
    """Run every picked kernel's chain on `executor` (executors.py; default: local processes)."""
    ex = executor or LocalExecutor(opts, settings)
    emit = on_event or (lambda o: None)
    if hasattr(ex, "live"):
        ex.live = emit
    results: dict[str, list[Outcome]] = {}
    pending, todo, stop = {}, [], False
    try:
        # Kernels whose every stage is cached are read here, so a no-op rerun starts no workers
        # (an executor given its own task runs every kernel through it).
        settled = not opts.dry_run and getattr(ex, "task", None) is None
        for src, kid in picked:
            done = run_kernel(str(src), kid, settings, opts, cached_only=True) if settled and not stop else None
            if done is None:
                todo.append((src, kid))
                continue
            results[kid] = done
            for o in done:
                emit(o)
            stop = opts.fail_fast and _failed(done)
        todo = [] if stop else todo
        ex.open(len(todo))
        while todo or pending:
            while todo and len(pending) < ex.width and not stop:
                src, kid = todo.pop(0)
                pending[ex.submit(str(src), kid, settings, opts)] = kid
            if not pending:
                break
            done = ex.wait(pending, 0.2)
            for o in ex.events():
                emit(o)
            for fut in done:
                kid = pending.pop(fut)
                try:
                    results[kid] = fut.result()
                except Exception as e:                   # the worker process died
                    o = Outcome(f"{kid}:internal", kid, "internal", "internal", "worker died", str(e))
                    results[kid] = [o]
                    emit(o)
                else:
                    if not ex.streams_events:            # outcomes arrive with the kernel's result
                        for o in results[kid]:
                            emit(o)
                if opts.fail_fast and _failed(results[kid]):
                    stop, todo = True, []
            if heartbeat:
                heartbeat(len(results), len(picked), sorted(pending.values()))
        for o in ex.events():
            emit(o)
    except KeyboardInterrupt:
        for fut in pending:
            fut.cancel()
        raise Interrupted(dict(results)) from None
    finally:
        ex.close()
    return results


#: Stage statuses that say nothing about the kernel, only about this run: never cached.
TRANSIENT = ("endpoint",)


def _failed(outcomes: list[Outcome]) -> bool:
    return any(o.status in ("failed", "error", "internal", "endpoint") for o in outcomes)


def kernel_status(outcomes: list[Outcome]) -> tuple[str, str]:
    """(status, message) of a kernel from its stage outcomes."""
    for o in outcomes:
        if o.status in ("failed", "error", "internal", "endpoint", "unsupported", "needs-llm"):
            return o.status, f"{o.stage}: {o.summary}"
    verify = next((o for o in outcomes if o.stage == "verify"), None)
    if verify and verify.status == "ok":
        return "accepted", verify.summary
    last = [o for o in outcomes if o.status == "ok"]
    return ("ok", f"{last[-1].stage}: {last[-1].summary}") if last else ("skipped", "")
