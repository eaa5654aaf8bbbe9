"""`t2c batch`, `t2c explain`, `t2c clean`: settings, progress, reports, exit codes.

Exit codes (documented in docs/usage.md): 0 every kernel accepted (or, while later
stages are not built, every built stage ok), 1 a kernel failed, 2 usage error,
3 performance regression only, 4 internal error, 5 nothing matched, 130 interrupted (the
report holds the kernels that finished).
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import click

from .. import __version__, config
from ..errors import UserError
from ..report.basic import Row, details_from_stages, table, write_junit
from ..report.publish import publish
from ..runtime import gpu as gpu_info
from .batch import (Interrupted, Options, discover, kernel_ids, kernel_status, parse_shard, run_batch,
                    select)
from .executors import gpu_summary, make_executor
from .stages import STAGE_NAMES
from .store import ArtifactCache, StateDB

STATE_DIR = Path(".t2c")


def project_secret(state_dir: Path) -> int:
    """The test-data seed of this checkout: random once, kept in .t2c/, never given to generators."""
    path = state_dir / "secret-seed"
    if not path.exists():
        # Several batches may start at once in one checkout: each writes its own temporary file and
        # links it in place; the first link wins and every batch reads the winner's seed.
        state_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(str(secrets.randbits(48)))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    try:
        return int(path.read_text())
    except ValueError:
        raise UserError(f"the project's secret seed is not a number: {path.read_text()[:40]!r}", file=str(path),
                        hint="delete the file to draw a new secret (suites are then drawn anew)") from None


class Progress:
    """A live bar on a terminal; in CI logs one plain line per target and a heartbeat."""

    def __init__(self, total_kernels: int, stream=sys.stderr, heartbeat_s: float = 30.0):
        self.live = stream.isatty() and not os.environ.get("CI")
        self.stream, self.heartbeat_s, self.last = stream, heartbeat_s, time.monotonic()
        self.bar = None
        if self.live:
            from tqdm import tqdm
            self.bar = tqdm(total=total_kernels * len(STAGE_NAMES), unit="target", file=stream,
                            leave=False, dynamic_ncols=True)

    def event(self, o):
        if self.bar:
            self.bar.update(1)
            self.bar.set_postfix_str(f"{o.target} {o.status}")
            if o.status not in ("ok", "skipped"):
                self.bar.write(f"{o.status:8} {o.target}: {o.summary}"[:200])
            return
        if o.ran or o.status not in ("ok", "skipped"):
            self.stream.write(f"{o.status:8} {o.target} ({o.seconds:.1f} s) {o.summary}"[:240] + "\n")
            self.stream.flush()
            self.last = time.monotonic()

    def heartbeat(self, done, total, running):
        if not self.live and time.monotonic() - self.last > self.heartbeat_s:
            self.stream.write(f"... {done}/{total} kernels done; running: {', '.join(running[:6])}\n")
            self.stream.flush()
            self.last = time.monotonic()

    def close(self):
        if self.bar:
            self.bar.close()


def settings_for(dataset, backend, generator, seed, timeout, state_dir, llm=None, evolve=None) -> dict:
    """The batch's settings; `evolve`: (candidates, seconds) of the poly options search per kernel."""
    from ..generators import GENERATORS
    cfg = config.load()
    if generator not in GENERATORS:
        raise UserError(f"unknown generator '{generator}'", hint=f"use one of: {', '.join(GENERATORS)}")
    if backend == "auto":
        backend = "gpu" if gpu_info.gpu_present() else "emu"
    dataset = (dataset or cfg.dataset or ("LARGE" if backend == "gpu" else "MINI")).upper()
    settings = {"dataset": dataset, "backend": backend, "generator": generator,
                "seed": seed if seed is not None else project_secret(state_dir),
                "timeout": timeout or cfg.timeout, "ref_cflags": list(cfg.ref_cflags),
                "toolchain": gpu_info.toolchain(backend), "gpu": gpu_info.fingerprint()}
    if evolve:
        if generator != "poly":
            raise UserError("--evolve searches the poly generator's options",
                            hint=f"--generator {generator} always evolves against the ladder; drop --evolve")
        settings["evolve"] = {"candidates": int(evolve[0]), "seconds": float(evolve[1])}
    if generator in ("llm", "hybrid"):           # the settings only: the key stays in its variable
        llm_cfg = config.load_llm(llm)
        if not llm_cfg.model:
            raise UserError(f"--generator {generator} needs a model", hint="set --llm-model, "
                            "T2C_LLM_MODEL or `llm: {model: ...}` in t2c.yaml (docs/llm.md)")
        settings["llm"] = llm_cfg.to_dict()
    return settings


def llm_totals(rows) -> dict:
    """The run's model use: the sum over its kernels."""
    from ..report.basic import LLM_FIGURES
    total = {f: sum(getattr(r, f) or 0 for r in rows) for f in LLM_FIGURES}
    return {"calls": total["llm_calls"], "tokens_in": total["llm_tokens_in"],
            "tokens_out": total["llm_tokens_out"], "cost": round(total["llm_cost"], 6)}


def rows_from(results: dict, picked, settings, missing: str = "not started (--fail-fast)") -> list[Row]:
    rows = []
    for src, kid in picked:
        outs = results.get(kid)
        if outs is None:
            rows.append(Row(kid, settings["generator"], "skipped", settings["dataset"],
                            missing, source=str(src)))
            continue
        status, message = kernel_status(outs)
        details = details_from_stages({o.stage: o.result for o in outs if o.result})
        kernel_ms, cpu_ms = details.get("kernel_ms"), details.get("cpu_ms")
        # Speedup only against the sequential -O3 reference timed in the same bench run.
        speedup = cpu_ms / kernel_ms if kernel_ms and cpu_ms else None
        details.pop("seed", None)
        rows.append(Row(kid, settings["generator"], status, settings["dataset"], message,
                        speedup=speedup, source=str(src), seed=settings["seed"],
                        stages={o.stage: {"status": o.status, "reason": o.reason, "seconds": o.seconds,
                                          "summary": o.summary, **_gpu_use(o)} for o in outs}, **details))
    return rows


def _gpu_use(o) -> dict:
    """A GPU stage that ran this time: its GPU, the seconds it held its slot and waited for it,
    whether a timed run held the GPU alone and the seconds it waited for that (part of the
    wait), and when (epoch seconds: the batch's GPU timeline)."""
    r = o.result or {}
    if not o.ran or r.get("gpu") is None:
        return {}
    return {k: round(r[k], 3) if isinstance(r[k], float) else r[k]
            for k in ("gpu", "gpu_s", "gpu_wait_s", "gpu_exclusive", "gpu_exclusive_wait_s", "gpu_from", "gpu_to")
            if k in r}


def batch(paths, *, dataset=None, backend="auto", generator="poly", jobs=0, gpu_jobs=None,
          fail_fast=False, dry_run=False, force_all=False, rerun=(), only=(), exclude=(),
          shard=None, seed=None, timeout=None, report_dir=None, junit_xml=None,
          executor="local", baseline=None, fail_on_regression="5%", llm=None, evolve=None,
          out=click.echo) -> int:
    sources = discover(paths, note=lambda text: out(text, err=True))
    picked = select(sources, kernel_ids(sources), only, exclude, parse_shard(shard))
    if not picked:
        out(f"t2c: nothing matched {' '.join(paths)}" + (" with the selection" if sources else ""), err=True)
        return 5
    settings = settings_for(dataset, backend, generator, seed, timeout, STATE_DIR, llm, evolve)
    if gpu_jobs is None:
        gpu_jobs = max(1, len(gpu_info.gpus()))
    # One model budget for the whole run, shared by its workers through a file of its own.
    llm_run = (STATE_DIR / "llm-runs" / f"{os.getpid()}-{time.time_ns()}.json") if "llm" in settings else None
    opts = Options(jobs=jobs, gpu_jobs=gpu_jobs, fail_fast=fail_fast, dry_run=dry_run,
                   force_all=force_all, rerun=tuple(rerun),
                   cache_dir=config.load().cache_dir / "targets", state_dir=STATE_DIR, llm_run=llm_run)
    # A plan (-n) only reads the cache and the state: it needs no cluster.
    ex = make_executor("local" if dry_run else executor, opts, settings)
    out(f"t2c batch: {len(picked)} kernel(s), dataset {settings['dataset']}, backend "
        f"{settings['backend']}, generator {generator}, {opts.jobs or os.cpu_count()} job(s)"
        + (f", executor {ex.name}" if ex.name != "local" else ""), err=True)
    if settings.get("evolve") and settings["backend"] == "gpu" and not dry_run:
        from ..runtime.ceilings import ensure
        ensure(lambda text: out(f"t2c batch: {text}", err=True))
    progress = None if dry_run else Progress(len(picked))
    start = time.monotonic()
    interrupted = False
    try:
        results = run_batch(picked, settings, opts, on_event=progress and progress.event,
                            heartbeat=progress and progress.heartbeat, executor=ex)
    except Interrupted as e:                     # Ctrl-C: report what finished, then exit 130
        results, interrupted = e.results, True
    finally:
        if progress:
            progress.close()
    if dry_run:
        for _, kid in picked:
            for o in results.get(kid, []):
                out(f"{o.target:32} {o.status:10} {o.reason}")
        return 0
    rows = rows_from(results, picked, settings, "not finished (interrupted)" if interrupted
                     else "not started (--fail-fast)")
    out(table(rows))
    run_name = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    # A user's runs stay beside the run state, apart from reports published in a checkout's
    # reports/; --report-dir chooses the folder (a CI artifact, a published report).
    folder = Path(report_dir) if report_dir else STATE_DIR / "runs" / run_name
    for n in range(2, 100):                          # two runs within a second: two folders
        if report_dir or not folder.exists():
            break
        folder = STATE_DIR / "runs" / f"{run_name}-{n}"
    meta = {"t2c": __version__, "settings": settings, "seconds": time.monotonic() - start,
            "command": " ".join(sys.argv)}
    if settings.get("backend") == "gpu":
        from ..runtime.ceilings import cached
        if ceilings := cached():                     # measured by `make bench` (runtime/ceilings.py)
            meta["ceilings"] = ceilings
    if "llm" in settings:
        meta["llm"] = llm_totals(rows)
        from ..generators.llm.budget import RunBudget
        spent = RunBudget(config.LLMConfig.from_dict(settings["llm"]), llm_run)
        out(f"model use: {meta['llm']['calls']} call(s), {meta['llm']['tokens_in']} tokens in, "
            f"{meta['llm']['tokens_out']} out, cost {meta['llm']['cost']:g}; requests: {spent.summary()}",
            err=True)
        llm_run.unlink(missing_ok=True)
    sh = parse_shard(shard)
    if sh:
        meta["shard"] = f"{sh[0]}/{sh[1]}"
    fingerprint = report_fingerprint(results, settings)
    kept = None if (report_dir or baseline or interrupted) else unchanged_report(results, fingerprint)
    if kept:                                         # a no-op rerun: its report is the last one
        folder = kept
    elif baseline:
        from ..report.compare import parse_threshold
        threshold = parse_threshold(fail_on_regression)
        publish(rows, folder, meta, baseline=baseline, threshold=threshold)
    else:
        publish(rows, folder, meta)
        if not report_dir:
            LATEST.write_text(json.dumps({"fingerprint": fingerprint, "folder": str(folder)}))
    if junit_xml:
        write_junit(rows, Path(junit_xml))
    counts = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    out(f"\n{', '.join(f'{n} {s}' for s, n in sorted(counts.items()))} of {len(rows)} kernels "
        f"in {time.monotonic() - start:.1f} s; "
        + (f"nothing changed: the report is still {folder}" if kept else f"report in {folder}"))
    if settings["backend"] == "gpu":
        out(gpu_summary(results, len(gpu_info.gpus())))
    if interrupted:
        out(f"t2c batch: interrupted; {len(results)} of {len(rows)} kernel(s) finished and are in the report",
            err=True)
        return 130
    if any(r.status == "internal" for r in rows):
        return 4
    if any(r.status == "endpoint" for r in rows):
        out("t2c: the model endpoint failed (exit 6); those kernels are not cached: run again "
            "once it answers (docs/llm.md)", err=True)
        return 6                                     # the model endpoint failed: not the kernels' fault
    if any(r.status in ("failed", "error") for r in rows):
        return 1
    if baseline:
        from ..report.compare import gate
        changes, code = gate(baseline, rows, fail_on_regression, meta=meta)
        for c in changes:
            if getattr(c, "kind", "") in ("regression", "improvement"):
                p = "" if c.p_value is None else f", p = {c.p_value:.3g}"
                out(f"{c.kind}: {c.kernel} ({c.generator}) {c.base_ms:.4g} -> {c.new_ms:.4g} ms "
                    f"(x{c.ratio:.2f}{p})")
        return code                                  # 3: a performance regression only
    return 0


LATEST = STATE_DIR / "runs" / "latest.json"


def report_fingerprint(results: dict, settings: dict) -> str:
    """What a report shows follows from the settings and each target's status and cache key."""
    h = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode())
    for kid in sorted(results):
        for o in results[kid]:
            h.update(f"{o.target}\0{o.status}\0{(o.result or {}).get('_dir', '')}\n".encode())
    return h.hexdigest()[:24]


def unchanged_report(results: dict, fingerprint: str) -> Path | None:
    """The last default report folder when this run ran nothing and would report the same targets
    (so a no-op rerun adds no folder and no history line); None otherwise."""
    if any(o.ran for outs in results.values() for o in outs):
        return None
    try:
        last = json.loads(LATEST.read_text())
    except (OSError, ValueError):
        return None
    folder = Path(last.get("folder", ""))
    return folder if last.get("fingerprint") == fingerprint and (folder / "results.json").exists() else None


def explain(target: str) -> str:
    if not (STATE_DIR / "state.sqlite").exists():
        raise UserError("no run state here (.t2c/state.sqlite)", hint="run `t2c batch` first")
    db = StateDB(STATE_DIR / "state.sqlite")
    every = db.all()
    db.close()
    rows = [r for r in every if r["target"] == target or r["kernel"] == target]
    if not every:
        raise UserError("no run has recorded targets here (.t2c/state.sqlite is empty)",
                        hint="run `t2c batch` in this folder first")
    if not rows:
        kernels = sorted({r["kernel"] for r in every})
        raise UserError(f"no target named '{target}'", hint="use KERNEL or KERNEL:STAGE; kernels here: "
                        + ", ".join(kernels[:12]) + (" …" if len(kernels) > 12 else ""))
    order = {s: i for i, s in enumerate(STAGE_NAMES)}
    rows.sort(key=lambda r: order.get(r["stage"], 99))
    when = lambda t: datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return "\n".join(f"{r['target']}: {r['status']} — {r['reason']} (key {r['key']}, "
                     f"{r['seconds']:.2f} s, {when(r['finished'])})" for r in rows)


def clean(state: bool) -> str:
    n = ArtifactCache(config.load().cache_dir / "targets").clean()
    msg = f"removed {n} cached target(s)"
    if state and (STATE_DIR / "state.sqlite").exists():
        for f in STATE_DIR.glob("state.sqlite*"):
            f.unlink()
        msg += " and the run state"
    return msg
