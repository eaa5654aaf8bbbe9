"""Publishing a run: every file of a run folder (`.t2c/runs/<run>/`), the history line and the CI step summary.

    publish(rows, folder, meta, ...);  rerender(folder)

Takes a batch's rows and meta; gives a self-contained, relocatable report folder: meta completed
(run, finished, environment), each row's files copied under `kernels/` and pointed to
relatively, the comparison with the baseline or the machine's history, results.csv/.md/.json,
junit.xml and the HTML pages, the CI step summary when `$GITHUB_STEP_SUMMARY` is set, and a
history line (unless `record_history` is false). `rerender` redoes the HTML from results.json
alone: `t2c report render`. docs/reports.md.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from . import history
from .basic import Row, read_json, write_csv, write_json, write_junit, write_markdown
from .compare import DEFAULT_CONFIDENCE, Change, NoBaseline, compare_runs, load_rows
from .environment import environment
from .html import render
from .summary import append, markdown

MAX_COPIED = 2_000_000       # bytes of one artifact copied into the report (logs keep their tail)


def prepare_meta(meta: dict, folder: Path) -> dict:
    meta = dict(meta)
    meta.setdefault("run", folder.resolve().name)
    meta.setdefault("finished", history.now())
    meta["environment"] = environment(meta)
    return meta


def collect_artifacts(rows: list[Row], folder: Path) -> list[Row]:
    """Rows whose file fields point at copies under folder/kernels/<slug>/ (relative paths)."""
    out = []
    for r in rows:
        home = Path("kernels") / r.slug
        changes = {}
        for attr in ("evidence", "candidate", "is_yaml"):
            changes[attr] = _copy(getattr(r, attr), folder, home)
        changes["logs"] = {name: _copy(p, folder, home, f"log{i}-") for i, (name, p) in enumerate(sorted(r.logs.items()))}
        out.append(dataclasses.replace(r, **changes))
    return out


def _copy(path: str, folder: Path, home: Path, prefix: str = "") -> str:
    if not path:
        return path
    p = Path(path)
    if not p.is_absolute() and (folder / p).is_file():
        return path                                    # already inside the report
    if not p.is_file():
        return path                                    # gone: the page says "not available"
    dest = home / (prefix + p.name)
    (folder / home).mkdir(parents=True, exist_ok=True)
    data = p.read_bytes()
    (folder / dest).write_bytes(data if len(data) <= MAX_COPIED else data[-MAX_COPIED:])
    return dest.as_posix()


def publish(rows: list[Row], folder: Path, meta: dict, *, history_dir=None, record_history: bool = True,
            baseline=None, threshold: float = 0.05, confidence: float = DEFAULT_CONFIDENCE,
            env=os.environ) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    meta = prepare_meta(meta, folder)
    rows = collect_artifacts(rows, folder)
    hist = history.location(folder, history_dir)
    earlier = history.runs_like(hist, meta)
    if isinstance(baseline, (str, Path)):
        try:
            base_rows, base_meta = load_rows(baseline, like=meta)
            against = f"baseline {base_meta.get('run') or baseline}"
        except NoBaseline:
            base_rows, against = [], ""             # the first run on this machine
    elif baseline is not None:
        base_rows, against = list(baseline), "baseline"
    else:
        base_rows, against = history.latest_rows(earlier), (f"previous run {earlier[-1]['run']}" if earlier else "")
    changes = compare_runs(base_rows, rows, threshold, confidence) if base_rows else []
    meta["comparison"] = {"against": against, "threshold": threshold, "confidence": confidence,
                          "changes": [dataclasses.asdict(c) for c in changes],
                          "base_speedups": [[r.kernel, r.generator, r.speedup] for r in base_rows if r.speedup]}
    write_csv(rows, folder / "results.csv")
    write_markdown(rows, folder / "results.md")
    write_json(rows, meta, folder / "results.json")
    write_junit(rows, folder / "junit.xml")
    _render(folder, rows, meta, earlier, changes)
    if env.get("GITHUB_STEP_SUMMARY"):              # set by GitHub Actions for each step
        append(env["GITHUB_STEP_SUMMARY"], markdown(rows, meta, changes))
    if record_history:
        history.append(hist, history.record(rows, meta))
    return folder


def _render(folder: Path, rows: list[Row], meta: dict, earlier: list[dict], changes: list[Change]) -> Path:
    cmp = meta.get("comparison", {})
    base = {(k, g): s for k, g, s in cmp.get("base_speedups", [])}
    against = cmp.get("against", "")
    from_baseline = against.startswith("baseline")
    previous = {(r.kernel, r.generator): r.speedup for r in history.latest_rows(earlier) if r.speedup}
    if not previous and not from_baseline:
        previous = base
    return render(folder, rows, meta, earlier=earlier, changes=changes, against=against,
                  previous=previous, baseline=base if from_baseline else None)


def rerender(folder: Path, history_dir=None) -> Path:
    folder = Path(folder)
    if not (folder / "results.json").is_file():
        from ..errors import UserError
        raise UserError(f"no results.json in {folder}", hint="give the folder a run wrote (.t2c/runs/<run> or its --report-dir)")
    rows, meta = read_json(folder / "results.json")
    meta = prepare_meta(meta, folder)
    earlier = history.runs_like(history.location(folder, history_dir), meta)
    changes = [Change(**c) for c in meta.get("comparison", {}).get("changes", [])]
    return _render(folder, rows, meta, earlier, changes)
