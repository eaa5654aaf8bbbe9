"""Hostile input (tests/frontend/hostile/): every file is read or refused, never a traceback.

A refusal is one line `t2c: FILE:LINE:COL: what; what to do` and exit 2; a file t2c reads
gives a candidate.  Internal errors (exit 4) are failures of this test.
"""
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from t2c.cli import main

HOSTILE = Path(__file__).parent / "hostile"
FILES = sorted(HOSTILE.iterdir())

#: Refused where the fault is: the line t2c must name (the first line of the fault).
LINES = {"syntax_line_12.c": 12, "syntax_unbalanced_brace.c": 5, "latin1_comment.c": 3,
         "unicode_identifier.c": 3, "goto.c": 4, "inline_asm.c": 3, "calls_printf.c": 4,
         "missing_include.c": 1, "kr_style.c": 1, "scop_in_main.c": 1,
         "polybench_negative_dataset.c": 3, "polybench_nonnumeric_dataset.c": 8,
         "polybench_only_unknown_dataset.c": 2}


def test_the_hostile_corpus_is_large():
    assert len(FILES) >= 60


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_read_or_refused_in_one_line(path, tmp_path, monkeypatch):
    monkeypatch.chdir(HOSTILE)
    r = CliRunner().invoke(main, ["is", path.name], catch_exceptions=False)
    assert r.exit_code in (0, 2), r.output
    assert "Traceback" not in r.output and "internal error" not in r.output
    if r.exit_code == 2:
        lines = r.output.strip().splitlines()
        assert len(lines) == 1, r.output
        m = re.match(rf"t2c: {re.escape(path.name)}:(\d+):(\d+): \S", lines[0])
        assert m, lines[0]
        if path.name in LINES:
            assert int(m.group(1)) == LINES[path.name], lines[0]
    elif path.name != "many_nested_loops.c":             # its own test below: 20 s
        g = CliRunner().invoke(main, ["gen", path.name, "-o", str(tmp_path / "c.cu")], catch_exceptions=False)
        assert g.exit_code == 0 and (tmp_path / "c.cu").exists(), g.output


def test_bounds_and_sizes_are_checked_when_the_is_is_built():
    out = {}
    for name in ("one_past_end.c", "negative_index.c", "zero_extent.c", "negative_extent.c",
                 "annotation_negative_preset.c", "constraint_unknown_name.c", "constraint_on_a_scalar.c"):
        r = CliRunner().invoke(main, ["is", str(HOSTILE / name)])
        out[name] = (r.exit_code, r.output)
    assert all(code == 2 for code, _ in out.values()), out
    assert "writes a outside its extent [n], e.g. a[1] when n = 1" in out["one_past_end.c"][1]
    assert "a[-1]" in out["negative_index.c"][1]
    assert "MINI = -4; a size is at least 1" in out["annotation_negative_preset.c"][1]
    assert "names m, which is no size" in out["constraint_unknown_name.c"][1]
    # a scalar's valid values are its domain: the verifier checks constraints on the sizes it draws
    assert "names stride, a scalar" in out["constraint_on_a_scalar.c"][1] and "t2c: domain stride" in \
        out["constraint_on_a_scalar.c"][1]


def test_a_nest_too_deep_for_the_analysis_is_said_and_still_correct(tmp_path):
    r = CliRunner().invoke(main, ["gen", str(HOSTILE / "many_nested_loops.c"), "-o", str(tmp_path / "c.cu")])
    assert r.exit_code == 0, r.output
    assert "is 40 loops deep, past poly's 12" in (tmp_path / "c.cu").read_text()


def test_dataset_macros_are_checked_where_they_are_defined():
    """A dataset block's size is an integer constant >= 1 (through other macros too), and a file
    whose dataset macros are none of PolyBench's is refused rather than given one size for all."""
    out = {n: CliRunner().invoke(main, ["is", str(HOSTILE / n)]) for n in
           ("polybench_negative_dataset.c", "polybench_nonnumeric_dataset.c", "polybench_only_unknown_dataset.c")}
    assert all(r.exit_code == 2 for r in out.values()), {n: r.output for n, r in out.items()}
    assert "N is '-5' under MINI_DATASET" in out["polybench_negative_dataset.c"].output
    assert "N is 'big' under SMALL_DATASET" in out["polybench_nonnumeric_dataset.c"].output   # MINI's (2 * M) is read
    assert "(HUGE_DATASET) are none of PolyBench's" in out["polybench_only_unknown_dataset.c"].output
