"""The CI step summary: a short Markdown digest of a run for GitHub's job page.

`markdown(rows, meta, changes)` gives the scoreboard, the geomean speedups, the
confirmed regressions and improvements, and the rows not accepted (capped so a
bad night stays readable).  `append(path, text)` adds it to the file GitHub
names in GITHUB_STEP_SUMMARY; the caller decides whether the variable is set.
"""
from __future__ import annotations

from pathlib import Path

from .basic import Row
from .compare import Change
from .html import geomeans, num, scoreboard

MAX_LISTED = 25


def markdown(rows: list[Row], meta: dict, changes: list[Change] = ()) -> str:
    s, env = meta.get("settings", {}), meta.get("environment", {})
    board = scoreboard(rows)
    out = [f"### t2c {meta.get('run', '')}: {len(rows)} kernel × generator rows",
           f"dataset {s.get('dataset', '?')}, backend {s.get('backend', '?')}, "
           f"{env.get('gpu', s.get('gpu', ''))}", "",
           "| " + " | ".join(b["label"] for b in board) + " |",
           "|" + "---:|" * len(board),
           "| " + " | ".join(str(b["count"]) for b in board) + " |", ""]
    speed = [g for g in geomeans(rows) if g["kernel"]]
    if speed:
        out += ["| generator | accepted | geomean speedup | end-to-end |", "|---|---:|---:|---:|"]
        out += [f"| {g['generator']} | {g['accepted']}/{g['total']} | {num(g['kernel'])}× | "
                f"{num(g['e2e'])}{'×' if g['e2e'] else ''} |" for g in speed]
        out.append("")
    cmp = meta.get("comparison", {})
    for kind, title in (("regression", "Regressions"), ("improvement", "Improvements")):
        hits = [c for c in changes if c.kind == kind]
        if hits:
            out.append(f"**{title}** against {cmp.get('against', 'the previous run')} "
                       f"(threshold {cmp.get('threshold', 0.05) * 100:.0f}%, confidence "
                       f"{cmp.get('confidence', 0.99)}):")
            out += [f"- `{c.kernel}` [{c.generator}] {num(c.base_ms)} → {num(c.new_ms)} ms "
                    f"({(c.ratio - 1) * 100:+.1f}%), " + (f"confidence {c.confidence_text} (p = {c.p_value:.2g})" if c.p_value is not None else "untested") for c in hits[:MAX_LISTED]]
            out.append("")
    bad = [r for r in rows if r.category not in ("accepted", "not verified", "skipped")]
    if bad:
        out += [f"<details><summary>{len(bad)} not accepted</summary>", "",
                "| kernel | generator | status | message |", "|---|---|---|---|"]
        out += [f"| {r.kernel} | {r.generator} | {r.status} | {_cell(r.message)} |" for r in bad[:MAX_LISTED]]
        if len(bad) > MAX_LISTED:
            out.append(f"| … | | | {len(bad) - MAX_LISTED} more in the report |")
        out += ["", "</details>", ""]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:160]


def append(path: str | Path, text: str) -> None:
    with open(path, "a") as f:
        f.write(text)
