"""A published report holds what the issue asks: scoreboard, charts, matrix, kernel pages, CSV,
JSON, JUnit, step summary and history."""
import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from junitparser import JUnitXml

from t2c.report.basic import COLUMNS, Row, details_from_stages, read_json
from t2c.report.publish import collect_artifacts, publish

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def scoreboard(html: str) -> dict[str, int]:
    cards = re.findall(r'<div class="count">(\d+)</div><div class="label">([^<]+)</div>', html)
    return {label: int(n) for n, label in cards}


def section(html: str, name: str) -> str:
    start = html.index(f'<section id="{name}"')
    return html[start:html.index("</section>", start)]


def test_scoreboard_counts(published):
    html = (published["dir"] / "index.html").read_text()
    assert scoreboard(html) == {"accepted": 50, "wrong": 4, "build error": 2, "timeout": 2,
                                "unsupported": 1, "needs LLM": 1}


def test_geomeans_and_changes(published):
    html = (published["dir"] / "index.html").read_text()
    geo = section(html, "scoreboard")
    assert re.search(r"<td>llm</td><td class=\"n\">25 / 30</td>\s*<td class=\"n\">[\d,.]+×", geo)
    changes = section(html, "changes")
    assert "against previous run 20250228-020000" in changes
    reg = changes[changes.index("Regressions (1)"):changes.index("Improvements")]
    assert "<td>gemm</td><td>poly</td>" in reg and re.search(r"\+1\d\.\d% ▲", reg) and "&gt;99.99%" in reg
    assert "<td>jacobi-2d</td><td>llm</td>" in changes[changes.index("Improvements (1)"):]
    assert changes.count('<svg class="spark"') == 2


def test_charts_are_inline_svg(published):
    html = (published["dir"] / "index.html").read_text()
    speed, roof = section(html, "speedup"), section(html, "roofline")
    assert '<svg' in speed and "speedup over gcc -O3 reference" in speed and "CPU reference = 1×" in speed
    assert "previous run" in speed                       # the history's markers are in the legend
    assert "<svg" in roof and "arithmetic intensity" in roof and "roof: 4020 GB/s" in roof
    assert "gemm" in speed and "jacobi-2d" in roof
    # self-contained: nothing is fetched
    assert not re.search(r'(src|href)="(https?:)?//', html) and "@import" not in html and "url(http" not in html


def test_correctness_matrix(published):
    m = section((published["dir"] / "index.html").read_text(), "matrix")
    assert m.index("<th>llm</th>") < m.index("<th>poly</th>")
    row = m[m.index('<td class="k">durbin</td>'):]
    row = row[:row.index("</tr>")]
    assert 'st-accepted" href="kernels/durbin--llm.html"' in row and 'st-wrong" href="kernels/durbin--poly.html"' in row
    assert m.count("<tr>") == 31


def test_kernel_page(published):
    page = (published["dir"] / "kernels" / "gemm--llm.html").read_text()
    assert "gemm <span class=\"muted\">[llm]</span>" in page
    ev = section(page, "evidence")
    assert "<td class=\"cell\">static</td>" in ev and "compute-sanitizer racecheck: clean" in ev
    assert '<span class="cu">__global__</span>' in section(page, "candidate")     # highlighted CUDA
    assert '<span class="key">name</span>: kernel_gemm' in section(page, "is")        # the IS
    assert "<svg" in section(page, "evolution") and "best so far" in page
    assert "registers" in section(page, "stages") and "ptxas info" in section(page, "logs")
    # stages in pipeline order, figures with p20/p80 and the seed
    st = section(page, "stages")
    assert st.index("<td>parse</td>") < st.index("<td>reference</td>") < st.index("<td>bench</td>")
    assert "(p20 " in page and "4242424242" in page
    failed = (published["dir"] / "kernels" / "durbin--poly.html").read_text()
    assert "failed" in section(failed, "evidence") and "C[3,11]" in failed
    bare = (published["dir"] / "kernels" / "trmm--poly.html").read_text()
    assert "none in this run" in bare and "No evidence card" in bare


def test_csv_columns(published):
    with open(published["dir"] / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == COLUMNS and len(rows) == 60
    assert {"kernel", "generator", "status", "dataset", "kernel_ms", "kernel_p20_ms", "kernel_p80_ms", "e2e_ms",
            "cpu_ms", "speedup", "gbps", "tflops", "roofline_pct", "max_error", "seed"} <= set(COLUMNS)
    gemm = next(r for r in rows if r["kernel"] == "gemm" and r["generator"] == "poly")
    assert float(gemm["kernel_p20_ms"]) <= float(gemm["kernel_ms"]) <= float(gemm["kernel_p80_ms"])
    adi = next(r for r in rows if r["kernel"] == "adi" and r["generator"] == "poly")
    assert adi["status"] == "build_error" and adi["kernel_ms"] == "" and adi["seed"] == "4242424242"


def test_json_holds_rows_environment_and_comparison(published):
    data = json.loads((published["dir"] / "results.json").read_text())
    meta = data["meta"]
    assert meta["environment"]["slug"] == "nvidia-h200-e4fe62d7" and meta["environment"]["gpu"].startswith("1x NVIDIA H200")
    assert meta["run"] == "20250301-020000" and meta["settings"]["dataset"] == "LARGE"
    kinds = {(c["kernel"], c["generator"]): c["kind"] for c in meta["comparison"]["changes"]}
    assert kinds[("gemm", "poly")] == "regression" and kinds[("jacobi-2d", "llm")] == "improvement"
    assert list(kinds.values()).count("regression") == 1
    rows = [Row.from_dict(r) for r in data["rows"]]
    assert len(rows) == 60 and all(len(r.samples_ms) == 20 for r in rows if r.status == "accepted")
    assert rows[4].evidence == "kernels/gemm--poly/evidence.json"


def test_junit_parses(published):
    suites = JUnitXml.fromfile(str(published["dir"] / "junit.xml"))
    suite = next(iter(suites))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (60, 8, 0, 2)
    cases = {(c.classname, c.name): c for c in suite}
    assert len(cases) == 60
    assert cases[("poly", "gemm")].is_passed and "speedup=" in cases[("poly", "gemm")].system_out
    assert cases[("poly", "durbin")].result[0].type == "failed"


def test_step_summary_appended(published):
    text = published["summary"].read_text()
    assert text.startswith("# earlier step\n") and "### t2c 20250301-020000: 60 kernel × generator rows" in text
    assert "| 50 | 4 | 2 | 2 | 1 | 1 |" in text and "`gemm` [poly]" in text and "**Regressions**" in text


def test_history_appended(published):
    lines = (published["history"] / "nvidia-h200-e4fe62d7.jsonl").read_text().splitlines()
    assert len(lines) == 7
    last = json.loads(lines[-1])
    assert last["run"] == "20250301-020000" and len(last["rows"]) == 60 and last["dataset"] == "LARGE"


def test_step_summary_only_when_the_variable_is_set(tmp_path, monkeypatch):
    rows, meta = read_json(FIXTURES / "early" / "results.json")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    publish(rows, tmp_path / "reports" / "r1", meta)
    assert [p.name for p in tmp_path.rglob("*.md")] == ["results.md"]
    assert (tmp_path / "reports" / "history").is_dir()          # default history: next to the run
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    publish(rows, tmp_path / "reports" / "r2", meta)
    assert f"{len(rows)} kernel × generator rows" in (tmp_path / "summary.md").read_text()


def test_early_run_renders_without_figures(tmp_path):
    """What today's engine produces (parse and reference only) renders too."""
    rows, meta = read_json(FIXTURES / "early" / "results.json")
    publish(rows, tmp_path / "run", meta, history_dir=tmp_path / "h", env={})
    html = (tmp_path / "run" / "index.html").read_text()
    assert scoreboard(html)["not verified"] == len(rows)
    assert "No speedups measured" in html and "nothing to compare with yet" in html
    page = (tmp_path / "run" / "kernels" / f"{rows[0].slug}.html").read_text()
    assert "reference" in section(page, "stages")


def test_artifacts_are_copied_into_the_report(tmp_path):
    work = tmp_path / "cache"
    work.mkdir()
    (work / "candidate.cu").write_text("__global__ void k() {}\n")
    (work / "build.log").write_text("x" * 10)
    r = Row("k", "poly", "accepted", "MINI", candidate=str(work / "candidate.cu"), evidence=str(work / "gone.json"),
            logs={"verify: build.log": str(work / "build.log")})
    (c,) = collect_artifacts([r], tmp_path / "report")
    assert c.candidate == "kernels/k--poly/candidate.cu" and (tmp_path / "report" / c.candidate).is_file()
    assert c.evidence == str(work / "gone.json")                          # missing: left for the page to say
    assert c.logs == {"verify: build.log": "kernels/k--poly/log0-build.log"}


def test_details_from_stages(tmp_path):
    for st, name in (("parse", "is.yaml"), ("generate", "candidate.cu"), ("verify", "evidence.json")):
        (tmp_path / st).mkdir()
        (tmp_path / st / name).write_text("x")
    (tmp_path / "verify" / "nvcc.log").write_text("ptxas")
    d = details_from_stages({"parse": {"_dir": str(tmp_path / "parse")},
                             "generate": {"_dir": str(tmp_path / "generate")},
                             "verify": {"_dir": str(tmp_path / "verify"), "max_error": 0.5, "summary": "s"},
                             "bench": {"kernel_ms": 1.5, "samples_ms": [1.4, 1.5], "gbps": 10.0}})
    assert d["max_error"] == 0.5 and d["kernel_ms"] == 1.5 and d["samples_ms"] == [1.4, 1.5]
    assert d["candidate"].endswith("generate/candidate.cu") and d["logs"] == {"verify: nvcc.log": str(tmp_path / "verify" / "nvcc.log")}
    assert "summary" not in d
    Row("k", "poly", "accepted", "MINI", **d)


def test_cli_render_rewrites_html_from_results_json(published, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(published["dir"], run)
    (run / "index.html").unlink()
    shutil.rmtree(run / "kernels" / "gemm--poly", ignore_errors=True)         # an artifact gone since
    (run / "kernels" / "gemm--poly.html").unlink()
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "report", "render", str(run),
                        "--history", str(published["history"])], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    html = (run / "index.html").read_text()
    assert scoreboard(html)["accepted"] == 50 and "Regressions (1)" in html
    page = (run / "kernels" / "gemm--poly.html").read_text()
    assert "not available (kernels/gemm--poly/candidate.cu)" in page
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "report", "render", str(tmp_path / "nothing")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no results.json" in r.stderr


def test_report_without_matplotlib(tmp_path, monkeypatch):
    """matplotlib is optional at run time: the page says so and everything else is there."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)                 # import fails
    shutil.copytree(FIXTURES / "run", tmp_path / "run")
    rows, meta = read_json(tmp_path / "run" / "results.json")
    publish(rows[:6], tmp_path / "run", meta, history_dir=tmp_path / "h", env={})
    html = (tmp_path / "run" / "index.html").read_text()
    assert "matplotlib is not installed" in html and scoreboard(html)["accepted"] == 6
    assert "<svg" not in section(html, "speedup")


def test_a_reused_report_dir_still_compares_with_the_previous_run(tmp_path):
    """`--report-dir reports/nightly` every night: runs are told apart by time, not name."""
    rows, meta = read_json(FIXTURES / "run" / "results.json")
    meta = {k: v for k, v in meta.items() if k not in ("run", "finished")}
    rows = [r for r in rows if r.kernel in ("gemm", "atax")]
    publish(rows, tmp_path / "reports" / "nightly", meta, env={})
    slower = [Row.from_dict(dict(r.to_dict(), samples_ms=[x * 1.3 for x in r.samples_ms],
                                 kernel_ms=r.kernel_ms * 1.3)) if r.status == "accepted" else r for r in rows]
    publish(slower, tmp_path / "reports" / "nightly", meta, env={})
    data = json.loads((tmp_path / "reports" / "nightly" / "results.json").read_text())
    assert [c["kind"] for c in data["meta"]["comparison"]["changes"]] == ["regression"] * 4
    (history,) = (tmp_path / "reports" / "history").glob("*.jsonl")
    assert len(history.read_text().splitlines()) == 2


def test_publish_against_a_baseline(tmp_path):
    rows, meta = read_json(FIXTURES / "run" / "results.json")
    meta = {k: v for k, v in meta.items() if k not in ("run", "finished")}
    rows = [r for r in rows if r.kernel in ("gemm", "atax", "2mm")]
    new = [Row.from_dict(dict(r.to_dict(), samples_ms=[x * 1.3 for x in r.samples_ms], kernel_ms=r.kernel_ms * 1.3,
                              speedup=r.speedup / 1.3)) if r.kernel == "gemm" else r for r in rows]
    publish(new, tmp_path / "new", meta, baseline=FIXTURES / "run", history_dir=tmp_path / "h", env={})
    html = (tmp_path / "new" / "index.html").read_text()
    assert "Changes against baseline 20250301-020000" in html and "Regressions (2)" in html
    assert "(baseline)" in section(html, "speedup")                # hollow diamonds in the chart's legend


def test_rates_on_bounded_counts_are_marked(tmp_path):
    """Reads through data make the counts bounds (analysis.cost): the report marks GB/s, TF/s and
    roofline % of such a row and says why; a row of exact counts carries no mark."""
    rows = [Row("spmv_csr", "poly", "accepted", "LARGE", kernel_ms=1.0, gbps=280.0, tflops=0.0,
                roofline_pct=9.0, counts_bounded=True),
            Row("gemm", "poly", "accepted", "LARGE", kernel_ms=1.0, gbps=10.0, tflops=1.0, roofline_pct=5.0)]
    publish(rows, tmp_path / "run", {}, history_dir=tmp_path / "h", env={})
    table = section((tmp_path / "run" / "index.html").read_text(), "kernels")
    spmv, gemm = (next(tr.split("</tr>")[0] for tr in table.split("<tr>") if f"kernels/{name}--" in tr)
                  for name in ("spmv_csr", "gemm"))
    assert spmv.count("†") == 3 and "†" not in gemm
    assert "† counts are bounds: reads through data counted at whole extents" in table
    page = (tmp_path / "run" / "kernels" / f"{rows[0].slug}.html").read_text()
    assert "reads through data counted at whole extents" in section(page, "figures")
    with open(tmp_path / "run" / "results.csv") as f:
        assert [r["counts_bounded"] for r in csv.DictReader(f)] == ["True", ""]
