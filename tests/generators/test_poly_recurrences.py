"""Loops that carry a value from one iteration to the next, as poly prints them (issue 35).

A recurrence kept in a register hoists its loop's header out of the `for` (`int i = 1;`):
the printed candidate must still compile (no redeclaration of the kernel's `int i;`) and,
as the only body of an outer loop, must not lose that loop's braces (a DP loop read an
uninitialized `j`).  Every sample under samples/ compiles, and the ladder accepts it on emu.
`t2c gen` never writes a candidate that does not compile: it exits 4 naming the first error.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from t2c.cli import main
from t2c.frontends.c import read_c
from t2c.generators.poly import generate

SAMPLES = Path(__file__).parent / "samples"
KERNELS = sorted(p.stem for p in SAMPLES.glob("*.c"))


@pytest.fixture(scope="module")
def emu():
    try:
        from t2c.runtime.emu.build import check_compiles
    except ImportError:
        pytest.skip("the emu backend is not available")
    return check_compiles


@pytest.mark.parametrize("name", KERNELS)
def test_candidate_compiles(name, emu):
    text = generate(read_c(SAMPLES / f"{name}.c"))
    got = emu(text, f"{name}.cu")
    assert got.ok, got.log[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNELS)
def test_ladder_accepts_on_emu(name, emu):
    """Correct first: the register form computes what the reference computes (a lost brace
    reads an uninitialized loop variable, a wrong answer even where it compiles)."""
    from t2c.verify.ladder import ladder
    k = read_c(SAMPLES / f"{name}.c")
    card = ladder(k, generate(k), backend="emu", dataset="MINI", seed=35)
    assert card.accepted, card.summary()


def test_gen_exits_4_on_a_candidate_that_does_not_compile(tmp_path, monkeypatch, emu):
    """A poly candidate is t2c's own text: one that does not compile is t2c's bug (exit 4,
    the first error named, nothing written), never exit 0."""
    import t2c.generators.poly as poly
    broken = lambda k, options=None: "__global__ void k()\n{\n  int i;\n  int i = 1;\n}\n"
    monkeypatch.setattr(poly, "generate", broken)
    out = tmp_path / "x.cu"
    r = CliRunner().invoke(main, ["gen", str(SAMPLES / "prefix_sum.c"), "-o", str(out)])
    assert r.exit_code == 4, r.output
    assert "does not compile" in r.output and "x.cu:4:7: error: redeclaration" in r.output
    assert "Traceback" not in r.output and not out.exists()


def test_gen_writes_a_candidate_that_compiles(tmp_path, emu):
    out = tmp_path / "x.cu"
    r = CliRunner().invoke(main, ["gen", str(SAMPLES / "tridiag_elimination.c"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert emu(out.read_text(), "x.cu").ok
