"""Merging shard reports into one: rows united, meta merged, artifacts gathered, HTML re-rendered.

    merge_runs(folders) -> (rows, meta);  merge_reports(folders, out, history_dir=None)

Takes shard report folders; rows are interleaved back into discovery order when every shard's
meta says `shard: "K/N"`, else concatenated; the same kernel x generator twice is kept once when
identical and refused otherwise (overlapping shards are a mistake). Settings that differ become
the list of their values, `seconds` is the longest shard's. `merge_reports` also copies the
shards' `kernels/` files and publishes the merged report, recording history only when asked.
docs/reports.md, "Shards".
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from ..errors import UserError
from .basic import Row
from .compare import load_rows
from .history import now
from .publish import publish


def merge_runs(folders) -> tuple[list[Row], dict]:
    loaded = []
    for f in folders:
        if not (Path(f) / "results.json").is_file():
            raise UserError(f"no results.json in {f}", hint="give the report folders the shards wrote")
        loaded.append((Path(f), *load_rows(f)))
    if not loaded:
        raise UserError("nothing to merge", hint="give at least one report folder")
    return _rows(loaded), _meta(loaded)


def _shard(meta: dict) -> tuple[int, int] | None:
    try:
        k, n = (int(x) for x in str(meta.get("shard", "")).split("/"))
        return k, n
    except ValueError:
        return None


def _rows(loaded) -> list[Row]:
    shards = [_shard(m) for _, _, m in loaded]
    lists = [rows for _, rows, _ in loaded]
    if all(shards) and len({n for _, n in shards}) == 1 and len({k for k, _ in shards}) == len(shards):
        lists = [rows for _, rows in sorted(zip(shards, lists), key=lambda x: x[0][0])]
        # round robin over the shards restores discovery order, kernel by kernel
        by_kernel = [list(dict.fromkeys(r.kernel for r in rows)) for rows in lists]
        order, i = [], 0
        while any(i < len(ks) for ks in by_kernel):
            order += [(s, ks[i]) for s, ks in enumerate(by_kernel) if i < len(ks)]
            i += 1
        merged = [r for s, k in order for r in lists[s] if r.kernel == k]
    else:
        merged = [r for rows in lists for r in rows]
    seen: dict[tuple, Row] = {}
    out = []
    for r in merged:
        key = (r.kernel, r.generator)
        if key in seen:
            if seen[key].to_dict() != r.to_dict():
                raise UserError(f"{r.kernel} [{r.generator}] is in two shards with different results",
                                hint="merge each shard once; shards must not overlap")
            continue
        seen[key] = r
        out.append(r)
    return out


def _meta(loaded) -> dict:
    metas = [m for _, _, m in loaded]
    settings: dict = {}
    for key in dict.fromkeys(k for m in metas for k in m.get("settings", {})):
        values = [m.get("settings", {}).get(key) for m in metas]
        distinct = list({json.dumps(v, sort_keys=True): v for v in values}.values())
        settings[key] = distinct[0] if len(distinct) == 1 else \
            sorted(distinct, key=lambda v: json.dumps(v, sort_keys=True))
    envs = {json.dumps(m.get("environment") or {}, sort_keys=True): m.get("environment") for m in metas}
    if len(envs) == 1:
        environment = next(iter(envs.values()))
    else:
        slugs = sorted({(e or {}).get("slug", "unknown") for e in envs.values()})
        environment = {"gpu": "mixed: " + ", ".join(sorted({str((e or {}).get("gpu")) for e in envs.values()})),
                       "slug": "mixed", "shards": slugs}
    meta = {"t2c": metas[0].get("t2c", ""), "settings": settings,
            "seconds": max((m.get("seconds") or 0) for m in metas),
            "finished": max((m.get("finished") or "") for m in metas) or now(),
            "command": "t2c report merge " + " ".join(str(f) for f, _, _ in loaded),
            "shards": [{"dir": str(f), "rows": len(rows), **{k: m.get(k) for k in
                        ("run", "shard", "seconds", "command", "finished") if m.get(k) is not None}}
                       for f, rows, m in loaded]}
    if environment:
        meta["environment"] = environment
    ceilings = next((m["ceilings"] for m in metas if m.get("ceilings")), None)
    if ceilings:
        meta["ceilings"] = ceilings
    return meta


def merge_reports(folders, out: Path, *, history_dir=None, env=None) -> Path:
    rows, meta = merge_runs(folders)
    out = Path(out)
    for f in folders:
        src = Path(f) / "kernels"
        if src.is_dir() and src.resolve() != (out / "kernels").resolve():
            for d in src.iterdir():
                if d.is_dir():           # the per-kernel files; pages are rendered again
                    shutil.copytree(d, out / "kernels" / d.name, dirs_exist_ok=True)
    return publish(rows, out, meta, history_dir=history_dir, record_history=history_dir is not None,
                   env=env if env is not None else os.environ)
