"""The batch run over a corpus (the first form: frontend + reference per kernel).

Takes paths (files, folders, globs); gives one `Row` per kernel.  A folder with a
`benchmark_list` is read in that order; otherwise every `.c` file below it except
`utilities/`.  Each kernel runs in its own worker process, so one that crashes or
hangs the reference costs that kernel only; a kernel whose source is wrong becomes
a row with status `error` and the one-line message, and the batch goes on.
Later stages (generate, verify, bench) are reported as not built yet.
"""
from __future__ import annotations

import glob
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError

STAGES_NOT_BUILT = ("generate", "verify", "bench")


@dataclass(frozen=True)
class Row:
    kernel: str
    source: str
    status: str              # ok | error | failed
    sizes: str = ""
    ref_ms: float | None = None
    fidelity: str = ""
    message: str = ""


def discover(paths) -> list[Path]:
    found: list[Path] = []
    for p in paths:
        matches = [Path(m) for m in sorted(glob.glob(str(p), recursive=True))] or [Path(p)]
        for m in matches:
            if m.is_dir():
                listing = m / "benchmark_list"
                if listing.exists():
                    found += [m / line.strip() for line in listing.read_text().splitlines()
                              if line.strip() and not line.startswith("#")]
                else:
                    found += sorted(f for f in m.rglob("*.c") if "utilities" not in f.parts)
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


def run_one(source: Path, dataset: str, seed: int) -> Row:
    from ..frontends.c import read_c
    from ..verify.fidelity import check_fidelity
    from ..verify.inputs import synthesize
    from ..verify.reference import ReferenceFailed, run_reference

    name = source.stem
    try:
        k = read_c(source)
        sizes = k.dataset_sizes(dataset)
        inputs = None if k.init else synthesize(k, sizes, seed)
        run = run_reference(k, sizes, inputs)
        fid = check_fidelity(k, source, dataset) if k.init else None
    except UserError as e:
        return Row(name, str(source), "error", message=str(e))
    except ReferenceFailed as e:
        return Row(name, str(source), "failed", message=str(e))
    sizes_text = " ".join(f"{n}={v}" for n, v in sizes.items())
    if fid is None:
        return Row(name, str(source), "ok", sizes_text, run.seconds * 1e3, "n/a (no main)")
    return Row(name, str(source), "ok" if fid.ok else "failed", sizes_text, run.seconds * 1e3,
               "identical" if fid.ok else "differs", "" if fid.ok else fid.detail)


def run_batch(sources: list[Path], dataset: str, jobs: int, seed: int, on_row=None) -> list[Row]:
    jobs = max(1, jobs or os.cpu_count() or 1)
    rows: dict[int, Row] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_one, s, dataset, seed): i for i, s in enumerate(sources)}
        for fut in _as_completed(futures):
            i = futures[fut]
            try:
                row = fut.result()
            except Exception as e:          # a worker died: costs this kernel only
                row = Row(sources[i].stem, str(sources[i]), "failed", message=f"worker failed: {e}")
            rows[i] = row
            if on_row:
                on_row(row)
    return [rows[i] for i in range(len(sources))]


def _as_completed(futures):
    from concurrent.futures import as_completed
    return as_completed(futures)


def table(rows: list[Row]) -> str:
    head = ("kernel", "status", "ref ms", "fidelity", "sizes / message")
    body = [(r.kernel, r.status, f"{r.ref_ms:.3f}" if r.ref_ms is not None else "-", r.fidelity or "-",
             r.message or r.sizes) for r in rows]
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(4)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  " + head[4]]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(b, widths)) + "  " + b[4] for b in body]
    return "\n".join(lines)
