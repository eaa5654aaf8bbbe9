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
