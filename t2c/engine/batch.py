"""The batch engine: kernel x stage targets, run like `make`.

    discover(paths) -> sources;  select(sources, ids, only, exclude, shard);  run_batch(picked, settings, opts)

Takes kernel sources, settings and options; walks every kernel's stages in pipeline order
(stages.py), running a target only when the artifact cache holds no whole entry at its key and
recording why (never built, which part changed, corrupt entry, forced). Kernels run in parallel
through an executor (executors.py), each kernel's chain in chain.py; GPU stages take one of
`gpu_jobs` lock-file slots. A failing stage skips its kernel's later stages; the batch goes on
(`fail_fast` stops starting new kernels). Kernel i belongs to shard (i mod N) + 1.
docs/usage.md, "The batch engine".
"""
from __future__ import annotations

import fnmatch
import glob
import os
import time
from pathlib import Path

from ..errors import NoKernel, UserError
from .chain import Options, Outcome, run_kernel
from .executors import LocalExecutor
from .stages import STAGE_NAMES


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
        return f"{e.message}; {e.hint}" if e.hint else e.message
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


# -- the whole batch ----------------------------------------------------------------------

class Interrupted(Exception):
    """Ctrl-C during a batch; `results` holds the kernels that finished (their report is kept)."""

    def __init__(self, results: dict):
        super().__init__("interrupted")
        self.results = results


def running(kids: list[str], at: dict[str, tuple[str, float]], now: float) -> list[str]:
    """`kernel stage 4m05s` for each running kernel: the stage it is in (where the executor streams
    each stage's outcome as it ends) and how long that has taken, else how long the kernel has."""
    def took(s: float) -> str:
        return f"{int(s) // 60}m{int(s) % 60:02d}s" if s >= 60 else f"{s:.0f}s"
    return [" ".join(x for x in (kid, at[kid][0], took(now - at[kid][1])) if x) if kid in at else kid
            for kid in kids]


def run_batch(picked, settings: dict, opts: Options, on_event=None, heartbeat=None,
              executor=None) -> dict[str, list[Outcome]]:
    """Run every picked kernel's chain on `executor` (executors.py; default: local processes)."""
    ex = executor or LocalExecutor(opts, settings)
    at: dict[str, tuple[str, float]] = {}       # a running kernel's stage ("" unknown) and its start
    send = on_event or (lambda o: None)

    def emit(o):
        nxt = STAGE_NAMES.index(o.stage) + 1 if o.stage in STAGE_NAMES and o.status == "ok" else 0
        if o.kernel in at and 0 < nxt < len(STAGE_NAMES):
            at[o.kernel] = (STAGE_NAMES[nxt], time.monotonic())
        send(o)
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
                at[kid] = (STAGE_NAMES[0] if ex.streams_events else "", time.monotonic())
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
                heartbeat(len(results), len(picked), running(sorted(pending.values()), at, time.monotonic()))
        for o in ex.events():
            emit(o)
    except KeyboardInterrupt:
        for fut in pending:
            fut.cancel()
        raise Interrupted(dict(results)) from None
    finally:
        ex.close()
    return results


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
