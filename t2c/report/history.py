"""Run history per machine fingerprint: one JSON line per run in `<history>/<slug>.jsonl`.

A record keeps what nightly regression detection and sparklines need: the run's
name and time, dataset, backend, the environment, and per kernel x generator the
status, median kernel time with p20/p80, speedup and the kernel-time samples.
Records are only appended (a partial last line from a killed writer is skipped
on reading), so concurrent runs on one machine cannot corrupt older ones.

Where the history lives: the `history_dir` argument, else `config.load().history_dir`
when the configuration has that knob, else `<report folder>/../history` (so the
default `.t2c/runs/<run>/` layout gives `.t2c/runs/history/`).
"""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

from .basic import Row

KEPT = ("kernel", "generator", "status", "dataset", "kernel_ms", "kernel_p20_ms", "kernel_p80_ms",
        "speedup", "e2e_ms", "cpu_ms", "samples_ms")


def location(report_folder: Path, history_dir: Path | str | None = None) -> Path:
    if history_dir:
        return Path(history_dir)
    from .. import config
    configured = getattr(config.load(), "history_dir", None)
    return Path(configured) if configured else Path(report_folder).resolve().parent / "history"


def record(rows: list[Row], meta: dict) -> dict:
    s = meta.get("settings", {})
    return {"run": meta.get("run", ""), "time": meta.get("finished") or now(),
            "dataset": s.get("dataset"), "backend": s.get("backend"),
            "environment": meta.get("environment", {}),
            "rows": [{k: getattr(r, k) for k in KEPT} for r in rows]}


def now() -> str:
    # microseconds: two runs published within one second must still be ordered
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def append(folder: Path, rec: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{rec['environment'].get('slug', 'unknown')}.jsonl"
    line = json.dumps(rec, sort_keys=True, default=str) + "\n"
    # one write() of an O_APPEND file: lines of concurrent writers do not interleave
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
    return path


def load(path: Path) -> list[dict]:
    if not Path(path).exists():
        return []
    out = []
    for line in Path(path).read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue                       # a line cut short by a killed writer
    return out


def runs_like(folder: Path, meta: dict, last: int = 20) -> list[dict]:
    """The last `last` runs on this machine with the same dataset and backend that finished
    before this one, oldest first.  By time, not by name: `--report-dir nightly` reuses a name."""
    env, s = meta.get("environment", {}), meta.get("settings", {})
    before = str(meta.get("finished") or "~")
    recs = [r for r in load(folder / f"{env.get('slug', 'unknown')}.jsonl")
            if r.get("dataset") == s.get("dataset") and r.get("backend") == s.get("backend")
            and str(r.get("time", "")) < before]
    return recs[-last:]


def rows_of(rec: dict) -> list[Row]:
    return [Row.from_dict(r) for r in rec.get("rows", [])]


def series(recs: list[dict], rows: list[Row], field: str = "kernel_ms") -> dict[tuple, list]:
    """(kernel, generator) -> that field over the earlier runs then this one (None where missing)."""
    per_run = [{(r["kernel"], r["generator"]): r.get(field) for r in rec.get("rows", [])} for rec in recs]
    return {(r.kernel, r.generator): [p.get((r.kernel, r.generator)) for p in per_run] + [getattr(r, field)]
            for r in rows}


def latest_rows(recs: list[dict]) -> list[Row]:
    """Per kernel x generator, its row in the latest record holding it (shards and --only runs
    leave the other kernels' latest figures in place)."""
    latest = {}
    for rec in recs:
        for r in rows_of(rec):
            latest[(r.kernel, r.generator)] = r
    return list(latest.values())
