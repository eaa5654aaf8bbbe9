"""The code highlighter shows exactly its input; the hand-drawn charts draw what they are given."""
import html
import re
from pathlib import Path

from t2c.report import charts, highlight
from t2c.report.basic import Row

CANDIDATE = Path(__file__).resolve().parents[1] / "candidates" / "kernel_gemm.cu"


def plain(marked: str) -> str:
    return html.unescape(re.sub(r"</?span[^>]*>", "", marked))


def test_highlight_round_trips_and_marks_tokens():
    src = CANDIDATE.read_text() + '\nconst char *s = "a<b & \\"c\\""; /* x < y */ float f = 1.5e-3f;\n'
    out = highlight.c(src)
    assert plain(out) == src and "a&lt;b &amp;" in out
    assert '<span class="cu">__global__</span>' in out and '<span class="kw">for</span>' in out
    assert '<span class="num">1.5e-3f</span>' in out and '<span class="com">/* x &lt; y */</span>' in out
    assert '<span class="pp">#include &lt;cuda_runtime.h&gt;</span>' in out
    y = "name: kernel_gemm  # c\nsizes:\n  ni:\n    MINI: 20\n- 'q'\n"
    assert plain(highlight.yaml(y)) == y and '<span class="key">    MINI</span>' in highlight.yaml(y)
    assert highlight.for_file("log.txt", "<x>") == "&lt;x&gt;"


def test_evolution_chart():
    evo = [{"step": 0, "kernel_ms": 3.0, "status": "accepted"}, {"step": 1, "kernel_ms": None, "status": "failed"},
           {"step": 2, "kernel_ms": 1.0, "status": "accepted"}, {"step": 3, "kernel_ms": 2.0, "status": "accepted"}]
    svg = charts.evolution_chart(Row("k", "llm", "accepted", "L", evolution=evo))
    assert svg.startswith('<svg class="chart evolution"') and svg.endswith("</svg>")
    assert svg.count("<circle") == 3 + 1 and "step 1: failed" in svg       # three accepted + the legend's
    assert charts.evolution_chart(Row("k", "llm", "accepted", "L")) == ""


def test_sparkline():
    assert charts.sparkline([1.0]) == "" and charts.sparkline([None, 2.0]) == ""
    svg = charts.sparkline([1.0, None, 2.0, 1.5])
    assert svg.count(",") == 3 and "1 → 2 → 1.5 ms" in svg
