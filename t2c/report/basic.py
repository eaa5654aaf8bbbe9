"""Plain reports of a batch run: console table, CSV, Markdown, JSON and JUnit XML.

Takes one row per kernel (`Row`, built by `rows_from(outcomes)`); writes
`results.csv`, `results.md`, `results.json` under the report folder and, when
asked, a JUnit file with one test case per kernel x generator (classname =
generator, name = kernel) so CI systems show each kernel.
"""
from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

COLUMNS = ("kernel", "generator", "status", "dataset", "ref_ms", "kernel_ms", "speedup", "max_error",
           "message")


@dataclass
class Row:
    kernel: str
    generator: str
    status: str
    dataset: str
    message: str = ""
    ref_ms: float | None = None
    kernel_ms: float | None = None
    speedup: float | None = None
    max_error: float | None = None
    source: str = ""
    stages: dict = field(default_factory=dict)


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def table(rows: list[Row]) -> str:
    cols = ("kernel", "status", "ref_ms", "kernel_ms", "speedup", "max_error")
    body = [[_fmt(getattr(r, c)) for c in cols] + [r.message] for r in rows]
    head = [*cols, "message"]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(cols))]
    line = lambda xs: "  ".join(x.ljust(w) for x, w in zip(xs, widths)) + "  " + xs[-1]
    return "\n".join([line(head)] + [line(b) for b in body])


def write_all(rows: list[Row], folder: Path, meta: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([_fmt(getattr(r, c)) if c != "message" else r.message for c in COLUMNS])
    md = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    md += ["| " + " | ".join(_fmt(getattr(r, c)).replace("|", "\\|") for c in COLUMNS) + " |" for r in rows]
    (folder / "results.md").write_text("\n".join(md) + "\n")
    (folder / "results.json").write_text(json.dumps({"meta": meta, "rows": [asdict(r) for r in rows]},
                                                    indent=1, sort_keys=True, default=str))


def write_junit(rows: list[Row], path: Path, suite: str = "t2c") -> None:
    fails = sum(r.status in ("failed", "internal") for r in rows)
    errors = sum(r.status == "error" for r in rows)
    skipped = sum(r.status in ("skipped", "unsupported", "ok") for r in rows)
    ts = ET.Element("testsuite", name=suite, tests=str(len(rows)), failures=str(fails),
                    errors=str(errors), skipped=str(skipped))
    for r in rows:
        tc = ET.SubElement(ts, "testcase", classname=r.generator, name=r.kernel,
                           time=f"{sum(s.get('seconds', 0) for s in r.stages.values()):.3f}")
        if r.status in ("failed", "internal"):
            ET.SubElement(tc, "failure", message=r.message[:500]).text = r.message
        elif r.status == "error":
            ET.SubElement(tc, "error", message=r.message[:500]).text = r.message
        elif r.status != "accepted":
            ET.SubElement(tc, "skipped", message=r.message[:500] or r.status)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(ET.Element("testsuites")).getroot().append(ts)
    root = ET.Element("testsuites")
    root.append(ts)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
