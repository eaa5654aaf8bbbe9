"""The row of a report and its plain forms: console table, CSV, Markdown, JSON and JUnit XML.

A `Row` is one kernel x generator of a run: its status, the dataset, the figures
the bench and verify stages measured, and the paths of its evidence (evidence
card, IS, candidate `.cu`, logs).  Every field is JSON-able; `Row.from_dict`
reads a row back from results.json or a history line and ignores fields it does
not know, so older readers survive newer reports.

`write_junit(rows, path)` writes one JUnit file with a test case per kernel x
generator (classname = generator, name = kernel); the whole report folder is
`publish.publish`'s (it uses these writers).
"""
from __future__ import annotations

import csv
import dataclasses
import json
import math
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

# status -> (scoreboard category, JUnit outcome).  The engine today yields ok/failed/
# error/internal/unsupported/skipped; the later stages add the finer verdicts.
STATUSES = {
    "accepted": ("accepted", "pass"),
    "failed": ("wrong", "failure"),          # verified and wrong: the ladder rejected it
    "wrong": ("wrong", "failure"),
    "build_error": ("build error", "failure"),
    "timeout": ("timeout", "failure"),
    "unsupported": ("unsupported", "skipped"),
    "needs-llm": ("needs LLM", "skipped"),
    "error": ("error", "error"),             # the kernel's source is at fault (file:line:col)
    "internal": ("error", "error"),          # a bug in t2c
    "endpoint": ("endpoint failed", "error"),  # the model endpoint failed (exit 6), not cached
    "skipped": ("skipped", "skipped"),
    "ok": ("not verified", "skipped"),       # built stages ok, verify not built yet
}
#: Scoreboard order; the first six always show, the rest only when non-zero.
CATEGORIES = ("accepted", "wrong", "build error", "timeout", "unsupported", "needs LLM",
              "error", "endpoint failed", "skipped", "not verified")

#: results.csv columns, one row per kernel x generator.
COLUMNS = ("kernel", "generator", "status", "dataset", "kernel_ms", "kernel_p20_ms", "kernel_p80_ms",
           "e2e_ms", "cpu_ms", "speedup", "gbps", "tflops", "roofline_pct", "counts_bounded", "max_error", "seed",
           "ref_ms", "llm_calls", "llm_tokens_in", "llm_tokens_out", "llm_cost", "message")

#: What a row's `counts_bounded` means, where the reports mark its GB/s, TF/s and roofline %.
BOUNDED = ("counts are bounds: reads through data counted at whole extents (bytes at most), "
           "flops of loops bounded by data left out (flops at least)")


@dataclass
class Row:
    kernel: str
    generator: str
    status: str
    dataset: str
    message: str = ""
    ref_ms: float | None = None          # the host reference as the verifier ran it
    kernel_ms: float | None = None       # median kernel time (CUDA events around NAME_device)
    speedup: float | None = None         # cpu_ms / kernel_ms
    max_error: float | None = None       # worst error / bound the ladder measured, a failing case
                                         # included (> 1: rejected; empty: not a multiple of a bound)
    source: str = ""
    stages: dict = field(default_factory=dict)   # stage -> {status, reason, seconds, summary}
    kernel_p20_ms: float | None = None
    kernel_p80_ms: float | None = None
    e2e_ms: float | None = None          # NAME(...) on host pointers: copies included
    cpu_ms: float | None = None          # the reference C at gcc -O3 -march=native, same host
    gbps: float | None = None            # bytes moved / kernel time
    tflops: float | None = None          # flops / kernel time
    roofline_pct: float | None = None    # attained / roof at this arithmetic intensity
    counts_bounded: bool | None = None   # the three above rest on bounds: reads through data counted
                                         # at whole extents, flops of data-bounded loops left out
    seed: int | None = None              # test-data seed of the verification
    samples_ms: list = field(default_factory=list)   # kernel-time repetitions (regression test)
    evidence: str = ""                   # evidence card JSON (verify stage)
    candidate: str = ""                  # the generated .cu
    is_yaml: str = ""                    # the IS in YAML form
    build: dict = field(default_factory=dict)        # registers, spills, shared bytes, ...
    evolution: list = field(default_factory=list)    # [{step, kernel_ms, status}] in order
    logs: dict = field(default_factory=dict)         # name -> path of a log file
    llm_calls: int | None = None         # model answers used (IS + kernels), cached ones too
    llm_tokens_in: int | None = None     # prompt tokens of those answers
    llm_tokens_out: int | None = None    # completion tokens
    llm_cost: float | None = None        # at the configured prices (docs/llm.md)

    @classmethod
    def from_dict(cls, d: dict) -> "Row":
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def category(self) -> str:
        return STATUSES.get(self.status, ("error", "error"))[0]

    @property
    def e2e_speedup(self) -> float | None:
        return self.cpu_ms / self.e2e_ms if self.cpu_ms and self.e2e_ms else None

    @property
    def slug(self) -> str:
        """A file name for this kernel x generator (kernel ids may hold '/')."""
        safe = lambda s: "".join(c if c.isalnum() or c in "._-" else "_" for c in s)
        return f"{safe(self.kernel)}--{safe(self.generator)}"


def details_from_stages(results: dict[str, dict]) -> dict:
    """Row fields from the stage results of one kernel (stage -> result dict with `_dir`).

    The bridge for `engine.run.rows_from`: figures come from the bench and verify
    results under the names of `Row`; files from the stage folders (parse: is.yaml,
    generate: candidate.cu, verify: evidence.json, any stage: *.log)."""
    out: dict = {}
    for stage in ("generate", "verify", "bench"):
        for k, v in (results.get(stage) or {}).items():
            if k in _FIGURES and v is not None:
                out[k] = v
    for stage in ("parse", "generate"):          # the model's answers: the IS, then kernels
        for k in LLM_FIGURES:
            v = (results.get(stage) or {}).get(k)
            if v is not None:
                out[k] = round(out.get(k, 0) + v, 6)
    for stage, name, attr in (("parse", "is.yaml", "is_yaml"), ("generate", "candidate.cu", "candidate"),
                              ("verify", "evidence.json", "evidence")):
        d = (results.get(stage) or {}).get("_dir")
        if d and Path(d, name).exists():
            out[attr] = str(Path(d, name))
    logs = {}
    for stage, res in results.items():
        if res and res.get("_dir") and Path(res["_dir"]).is_dir():
            logs.update({f"{stage}: {p.name}": str(p) for p in sorted(Path(res["_dir"]).glob("*.log"))})
    if logs:
        out["logs"] = logs
    return out


LLM_FIGURES = ("llm_calls", "llm_tokens_in", "llm_tokens_out", "llm_cost")
_FIGURES = ("kernel_ms", "kernel_p20_ms", "kernel_p80_ms", "e2e_ms", "cpu_ms", "gbps", "tflops",
            "roofline_pct", "counts_bounded", "max_error", "seed", "samples_ms", "build", "evolution")


# -- plain forms ----------------------------------------------------------------------------

def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _csv(v) -> str:
    """Machine-readable: empty for missing, full precision for floats."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    return repr(v) if isinstance(v, float) else str(v)


def table(rows: list[Row]) -> str:
    cols = ("kernel", "status", "cpu_ms", "kernel_ms", "speedup", "max_error")
    body = [[_fmt(getattr(r, c)) for c in cols] + [r.message] for r in rows]
    head = [*cols, "message"]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(cols))]
    line = lambda xs: "  ".join(x.ljust(w) for x, w in zip(xs, widths)) + "  " + xs[-1]
    return "\n".join([line(head)] + [line(b) for b in body])


def write_csv(rows: list[Row], path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([_csv(getattr(r, c)) for c in COLUMNS])


def write_markdown(rows: list[Row], path: Path) -> None:
    cols = [c for c in COLUMNS if c not in ("kernel_p20_ms", "kernel_p80_ms", "seed")]
    md = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    md += ["| " + " | ".join(_fmt(getattr(r, c)).replace("|", "\\|") for c in cols) + " |" for r in rows]
    path.write_text("\n".join(md) + "\n")


def write_json(rows: list[Row], meta: dict, path: Path) -> None:
    path.write_text(json.dumps({"meta": meta, "rows": [r.to_dict() for r in rows]},
                               indent=1, sort_keys=True, default=str))


def read_json(path: Path) -> tuple[list[Row], dict]:
    data = json.loads(Path(path).read_text())
    return [Row.from_dict(r) for r in data.get("rows", [])], data.get("meta", {})


def write_junit(rows: list[Row], path: Path, suite: str = "t2c") -> None:
    outcome = lambda r: STATUSES.get(r.status, ("error", "error"))[1]
    count = lambda kind: str(sum(outcome(r) == kind for r in rows))
    ts = ET.Element("testsuite", name=suite, tests=str(len(rows)), failures=count("failure"),
                    errors=count("error"), skipped=count("skipped"))
    for r in rows:
        tc = ET.SubElement(ts, "testcase", classname=r.generator, name=r.kernel,
                           time=f"{sum(s.get('seconds', 0) or 0 for s in r.stages.values()):.3f}")
        text = f"{r.status}: {r.message}" if r.message else r.status
        kind = outcome(r)
        if kind in ("failure", "error"):
            ET.SubElement(tc, kind, message=text[:500], type=r.status).text = text
        elif kind == "skipped":
            ET.SubElement(tc, "skipped", message=text[:500])
        figures = [f"{c}={_fmt(getattr(r, c))}" for c in COLUMNS[3:-1] if getattr(r, c) is not None]
        if figures:
            ET.SubElement(tc, "system-out").text = " ".join(figures)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    root = ET.Element("testsuites")
    root.append(ts)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
