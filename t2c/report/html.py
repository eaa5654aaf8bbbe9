"""The HTML report: `index.html` and one page per kernel x generator under `kernels/`.

    render(folder, rows, meta, earlier=..., changes=...)

Takes a report folder, its rows and meta (and earlier runs' figures); writes self-contained
pages: CSS inline, charts as inline SVG, no script, no network. Paths in rows are read relative
to `folder`; a file that is gone shows as "not available", so a report re-renders from
results.json long after its cache was cleaned. What the index and the kernel pages show:
docs/reports.md, "The pages".
"""
from __future__ import annotations

import json
from pathlib import Path

import jinja2
from markupsafe import Markup

from . import charts, highlight
from .basic import BOUNDED, CATEGORIES, STATUSES, Row
from .compare import Change
from .history import series
from .stats import geomean

TEMPLATES = Path(__file__).parent / "templates"
STAGE_ORDER = ("parse", "reference", "generate", "verify", "evolve", "bench", "internal")
MAX_SHOWN = 200_000          # characters of one file shown on a page (logs keep their tail)


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = num
    env.filters["when"] = lambda iso: str(iso)[:19].replace("T", " ") + " UTC" if iso else ""
    env.filters["cls"] = lambda status: "st-" + STATUSES.get(status, ("error",))[0].replace(" ", "-")
    env.globals["css"] = Markup((TEMPLATES / "style.css").read_text())
    env.globals["BOUNDED"] = BOUNDED
    return env


def num(v, digits: int = 3) -> str:
    """Figures as people read them: 3 significant digits, '–' when missing."""
    if v is None or v == "":
        return "–"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-3):
        return f"{v:.{digits - 1}e}"
    if abs(v) >= 10 ** digits:
        return f"{v:,.0f}"                 # 3624, not 3.62e+03
    return f"{v:.{digits}g}"


def resolve(folder: Path, path: str) -> Path | None:
    if not path:
        return None
    p = Path(path)
    p = p if p.is_absolute() else folder / p
    return p if p.is_file() else None


def read_text(folder: Path, path: str, tail: bool = False) -> str | None:
    p = resolve(folder, path)
    if p is None:
        return None
    text = p.read_text(errors="replace")
    if len(text) > MAX_SHOWN:
        cut = len(text) - MAX_SHOWN
        text = f"[... {cut} characters left out ...]\n" + text[-MAX_SHOWN:] if tail \
            else text[:MAX_SHOWN] + f"\n[... {cut} characters left out ...]"
    return text


# -- view models --------------------------------------------------------------------------

def scoreboard(rows: list[Row]) -> list[dict]:
    counts = {c: 0 for c in CATEGORIES}
    for r in rows:
        counts[r.category] = counts.get(r.category, 0) + 1
    return [{"label": c, "count": n, "cls": "st-" + c.replace(" ", "-")}
            for i, (c, n) in enumerate(counts.items()) if i < 6 or n]


def geomeans(rows: list[Row]) -> list[dict]:
    out = []
    gens = sorted({r.generator for r in rows})
    for g in gens + (["all"] if len(gens) > 1 else []):
        mine = [r for r in rows if r.status == "accepted" and (g == "all" or r.generator == g)]
        out.append({"generator": g, "accepted": len(mine),
                    "total": sum(1 for r in rows if g == "all" or r.generator == g),
                    "kernel": geomean(r.speedup for r in mine),
                    "e2e": geomean(r.e2e_speedup for r in mine),
                    "roofline": geomean(r.roofline_pct for r in mine)})
    return out


def matrix(rows: list[Row]) -> dict:
    kernels = list(dict.fromkeys(r.kernel for r in rows))
    gens = sorted({r.generator for r in rows})
    cell = {(r.kernel, r.generator): r for r in rows}
    return {"generators": gens,
            "lines": [{"kernel": k, "cells": [cell.get((k, g)) for g in gens]} for k in kernels]}


def evidence_view(card) -> dict:
    """An evidence card as a table of rungs plus key/value fields (any JSON is shown)."""
    if not isinstance(card, dict):
        return {"rungs": [], "columns": [], "fields": [("card", json.dumps(card, indent=1))]}
    raw = [r for r in card.get("rungs", []) if isinstance(r, dict)]
    columns = list(dict.fromkeys(k for r in raw for k in r))
    rungs = [{c: _plain(r[c]) if c in r else "" for c in columns} for r in raw]
    fields = [(k, _plain(v)) for k, v in card.items() if k != "rungs"]
    return {"rungs": rungs, "columns": columns, "fields": fields}


def _plain(v, depth: int = 0) -> str:
    """A JSON value as short lines: 'key: value' per member, lists inline."""
    if isinstance(v, dict):
        pad = "  " * depth
        return "\n".join(f"{pad}{k}: " + (("\n" + _plain(x, depth + 1)) if isinstance(x, dict) and x
                                         else _plain(x, depth + 1)) for k, x in v.items())
    if isinstance(v, list):
        return ", ".join(_plain(x, depth + 1) if not isinstance(x, (dict, list)) else json.dumps(x) for x in v)
    return num(v) if isinstance(v, float) else ("–" if v is None else str(v))


def kernel_view(folder: Path, row: Row) -> dict:
    card_text = read_text(folder, row.evidence)
    card = None
    if card_text is not None:
        try:
            card = evidence_view(json.loads(card_text))
        except json.JSONDecodeError:
            card = {"rungs": [], "columns": [], "fields": [("unreadable card", card_text[:2000])]}
    build = dict(row.build)
    if card_text and not build:
        try:
            build = dict(json.loads(card_text).get("build") or {})
        except (json.JSONDecodeError, AttributeError):
            pass
    code = []
    for title, path in (("Intermediate structure (IS)", row.is_yaml), ("Generated CUDA", row.candidate)):
        text = read_text(folder, path)
        code.append({"title": title, "path": path,
                     "html": None if text is None else Markup(highlight.for_file(path, text)),
                     "lines": 0 if text is None else text.count("\n") + 1})
    logs = [{"name": name, "path": path, "text": read_text(folder, path, tail=True)}
            for name, path in sorted(row.logs.items())]
    return {"row": row, "card": card, "evidence_path": row.evidence, "build": build, "code": code,
            "logs": logs, "evolution": Markup(charts.evolution_chart(row)),
            "stages": sorted(row.stages.items(), key=lambda kv: (STAGE_ORDER.index(kv[0])
                                                                if kv[0] in STAGE_ORDER else 99))}


# -- pages --------------------------------------------------------------------------------

def render(folder: Path, rows: list[Row], meta: dict, *, earlier: list[dict] = (),
           changes: list[Change] = (), against: str = "", previous: dict | None = None,
           baseline: dict | None = None) -> Path:
    """Write index.html and kernels/*.html; `earlier` are history records, oldest first."""
    folder = Path(folder)
    env = _env()
    (folder / "kernels").mkdir(parents=True, exist_ok=True)
    trend = series(list(earlier), rows)
    change = {(c.kernel, c.generator): c for c in changes}
    settings = meta.get("settings", {})
    common = {"meta": meta, "settings": settings, "environment": meta.get("environment", {}),
              "title": f"t2c report {meta.get('run', folder.name)}"}
    index = env.get_template("index.html.j2").render(
        **common, rows=rows, scoreboard=scoreboard(rows), geomeans=geomeans(rows), matrix=matrix(rows),
        speedup_svg=Markup(charts.speedup_chart(rows, previous, baseline)),
        roofline_svg=Markup(charts.roofline_chart(rows, meta.get("ceilings") or settings.get("ceilings"))),
        charts_available=charts.available(),
        sparks={k: Markup(charts.sparkline(v)) for k, v in trend.items()}, change=change,
        regressions=[c for c in changes if c.kind == "regression"],
        improvements=[c for c in changes if c.kind == "improvement"],
        noise=[c for c in changes if c.kind == "noise"], compared=bool(changes) or bool(against),
        against=against, runs_in_history=len(earlier), threshold=meta.get("comparison", {}).get("threshold"),
        confidence=meta.get("comparison", {}).get("confidence"))
    (folder / "index.html").write_text(index)
    page = env.get_template("kernel.html.j2")
    for r in rows:
        (folder / "kernels" / f"{r.slug}.html").write_text(
            page.render(**common, k=kernel_view(folder, r), change=change.get((r.kernel, r.generator)),
                        spark=Markup(charts.sparkline(trend.get((r.kernel, r.generator), [])))))
    return folder / "index.html"
