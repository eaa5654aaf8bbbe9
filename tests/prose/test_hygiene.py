"""Spec hygiene (issue 36): what in a spec folder is a kernel, what a model reads, and
the error for a target subscript that is no index of its own."""
from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from t2c.cli import main
from t2c.engine.batch import discover
from t2c.errors import UserError
from t2c.frontends.prose import read_spec
from t2c.frontends.prose.spec import load_spec
from t2c.generators.llm.prompts import is_messages

AXPY = """\
---
name: axpy
sizes:
  n: {MINI: 8}
scalars:
  a: float
arrays:
  x: float[n] in
  y: float[n] inout
---
# AXPY

`y = a * x + y`.
<!-- reviewer: keep this out of the prompt -->
"""
FORMAL = "\n```t2c\ny[i] = a * x[i] + y[i]\n```\n"


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def test_markdown_without_front_matter_is_skipped_with_a_note(tmp_path):
    write(tmp_path / "axpy.md", AXPY + FORMAL)
    write(tmp_path / "NOTES.md", "# Notes\n\nNothing to compile.\n")
    write(tmp_path / "TRUTH.md", "<!-- answers -->\n| spec | value |\n")
    notes = []
    assert discover([tmp_path], note=notes.append) == [tmp_path / "axpy.md"]
    assert len(notes) == 2 and all("no spec front matter" in n for n in notes)
    assert "NOTES.md" in notes[0] and "TRUTH.md" in notes[1]


def test_a_comment_before_the_front_matter_is_no_part_of_the_spec(tmp_path):
    spec = write(tmp_path / "axpy.md", "<!-- license: MIT\n     second line -->\n\n" + AXPY + FORMAL)
    k = read_spec(spec)
    assert k.name == "axpy" and k.description == "`y = a * x + y`."
    bad = write(tmp_path / "bad.md", "<!-- c -->\n" + AXPY.replace("name: axpy", "name: 1x") + FORMAL)
    with pytest.raises(UserError) as e:         # lines keep their numbers past the comment
        read_spec(bad)
    assert e.value.line == 3


def test_the_model_reads_the_spec_without_its_comments(tmp_path):
    spec = write(tmp_path / "axpy.md", "<!-- draft: the answer is 42 -->\n" + AXPY)
    ask = is_messages(load_spec(spec))[1]["content"]
    assert "y = a * x + y" in ask and "name: axpy" in ask
    assert "<!--" not in ask and "42" not in ask and "reviewer" not in ask


def test_gen_show_prompt_prints_the_request_and_calls_no_model(tmp_path, monkeypatch):
    monkeypatch.setenv("T2C_LLM_BASE_URL", "http://127.0.0.1:9/v1")     # nothing answers there
    spec = write(tmp_path / "axpy.md", "<!-- secret -->\n" + AXPY)
    r = CliRunner().invoke(main, ["gen", str(spec), "--generator", "llm", "--show-prompt"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert r.output.startswith("--- system ---\n") and "--- user ---\n" in r.output
    assert "has no formal part yet" in r.output and "secret" not in r.output
    formal = write(tmp_path / "formal.md", AXPY + FORMAL)
    r = CliRunner().invoke(main, ["gen", str(formal), "--show-prompt"], catch_exceptions=False)
    assert r.exit_code == 0 and "axpy_device" in r.output and "```c" in r.output


def test_a_computed_target_subscript_names_the_form_that_works(tmp_path):
    spec = write(tmp_path / "t.md", AXPY.replace("y: float[n] inout", "y: float[n] inout\n  b: float[n] out")
                 + "\n```t2c\nb[j*n + i] = x[i]\n```\n")
    with pytest.raises(UserError) as e:
        read_spec(spec)
    text = str(e.value)
    assert "target 'b'" in text and "statement's own indices" in text and "b[j, i] = ..." in text


CSR = """\
---
name: spmv
sizes:
  n: {MINI: 8}
  nnz: {MINI: 20}
arrays:
  ptr: int[n + 1] in
  col: int[nnz] in
  val: float[nnz] in
  x: float[n] in
  y: float[n] out
domains:
  ptr: offsets(0, nnz)
  col: integers(0, n - 1)
---
CSR sparse matrix times vector.

```t2c
"""


def _refusal(tmp_path, statements: str) -> UserError:
    spec = write(tmp_path / "spmv.md", CSR + statements + "```\n")
    with pytest.raises(UserError) as e:
        read_spec(spec)
    return e.value


def test_a_range_bounded_by_data_names_its_place_and_the_forms_that_work(tmp_path):
    """A CSR row (`ptr[i]..ptr[i+1]`) said only "data-dependent subscript"; now file:line:col, the
    range as written, and what works: the masked sum (which the message spells for this
    statement), the masked loop, or the prose with --generator llm."""
    e = _refusal(tmp_path, "y[i] = sum(j in ptr[i]..ptr[i+1]: val[j] * x[col[j]])\n")
    text = str(e)
    assert text.startswith(f"{tmp_path / 'spmv.md'}:19:17: data-dependent range: 'j' runs over ptr[i]..ptr[i + 1]")
    assert "a range bounded by data (a CSR row's `ptr[i]..ptr[i+1]`) is not expressible" in text
    masked = "sum(j in 0..nnz: where(j >= ptr[i] && j < ptr[i + 1], val[j] * x[col[j]], 0))"
    assert masked in text and "`--generator llm`" in text and '"Ranges bounded by data"' in text
    loop = _refusal(tmp_path, "for i in 0..n:\n    y[i] = 0.0\n    for j in ptr[i]..ptr[i+1]:\n"
                              "        y[i] += val[j] * x[col[j]]\n")
    assert (loop.line, loop.col) == (21, 14)
    assert "`for j in 0..N:`" in str(loop) and "where(j >= ptr[i] && j < ptr[i + 1], ..., 0)" in str(loop)
    assert "`--generator llm`" in str(loop)


def test_the_masked_sum_the_message_names_computes_the_csr_product(tmp_path):
    import numpy as np
    from t2c.verify.inputs import synthesize
    from t2c.verify.reference import run_reference
    spec = write(tmp_path / "spmv.md", CSR + "y[i] = sum(j in 0..nnz: where(j >= ptr[i] && j < ptr[i + 1], "
                                              "val[j] * x[col[j]], 0))\n```\n")
    k = read_spec(spec)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=2))
    a = run.inputs
    want = [sum(a["val"][j] * a["x"][a["col"][j]] for j in range(a["ptr"][i], a["ptr"][i + 1])) for i in range(8)]
    np.testing.assert_allclose(run.outputs["y"], want, rtol=1e-5, atol=1e-6)
