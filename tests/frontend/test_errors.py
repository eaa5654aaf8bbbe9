"""The C frontend refuses malformed or unsupported C with one actionable line.

For every file under bad/: `read_c` raises `UserError` whose text starts with the
file as given, the exact line and column of the offending construct, and names
what is wrong; the CLI (`t2c is FILE`) prints that one line prefixed `t2c: `,
exits 2, and shows no traceback.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from t2c.cli import main
from t2c.errors import UnsupportedC, UserError
from t2c.frontends.c import read_c

HERE = Path(__file__).parent
BAD = HERE / "bad"


def case(line, col, *words, function=None, unsupported=False):
    return dict(line=line, col=col, words=words, function=function, unsupported=unsupported)


# file -> where the error points and the words its message must hold.  `unsupported`:
# valid C that t2c does not take (UnsupportedC) rather than a mistake in the input.
CASES = {
    "syntax_error.c": case(6, 1, "parse error", "before: }", "C99"),
    "not_c.c": case(2, 1, "does not parse as C"),
    "goto.c": case(5, 7, "goto is not supported", unsupported=True),
    "label.c": case(6, 1, "labels are not supported", unsupported=True),
    "recursion.c": case(5, 21, "recursive call to 'fact'", "loop", unsupported=True),
    "call_nonmath.c": case(8, 25, "call to 'helper' is not supported", "math functions",
                           unsupported=True),
    "function_pointer.c": case(1, 25, "parameter 'f' is a function pointer", unsupported=True),
    "global_variable.c": case(6, 12, "'scale_factor' is a global variable", "parameter",
                              unsupported=True),
    "struct_param.c": case(6, 34, "parameter 'p'", "struct", unsupported=True),
    "struct_pointer_param.c": case(6, 38, "'p' points at the struct 'struct params'", "different types (double, int)",
                                   "its own array", unsupported=True),
    "struct_typedef_array.c": case(3, 44, "'in' points at the struct 'vec3'", "different types (float, int)",
                                   unsupported=True),
    "struct_local.c": case(7, 5, "struct member access", "each field", unsupported=True),
    "modified_size.c": case(5, 5, "size parameter 'n' is modified", "local variable",
                            unsupported=True),
    "pointer_arithmetic.c": case(4, 20, "pointer dereference", "a[i] rather than *(a + i)",
                                 unsupported=True),
    "address_of.c": case(4, 18, "taking an address", unsupported=True),
    "unknown_extent.c": case(5, 12, "cannot tell the extent of pointer parameter 'x'",
                             "`// t2c: array x[n]`", "integer parameters: n"),   # its own names
    "extent_depends_on_sizes.c": case(6, 12, "largest subscript of 'x'", "sizes",
                                      "`// t2c: array x[n]`", "integer parameters: n, m"),
    "bad_annotation.c": case(2, 1, "cannot read the annotation 't2c: intent y sideways'",
                             "annotations"),
    "unknown_domain.c": case(4, 1, "domain of 'x' has kind 'gaussian'", "uniform"),
    "missing_function.c": case(1, 1, "no function named 'nope'", "functions here: present",
                               function="nope"),
    "missing_include.c": case(2, 10, "no_such_header.h", "No such file", "utilities/ folder"),
    "several_kernels.c": case(7, 1, "several candidate kernels: first, second", "--function"),
    "no_output.c": case(1, 1, "reads_only", "no output"),
    "unsized_dimension.c": case(1, 32, "array parameter 'a' has an unsized dimension",
                                unsupported=True),
    "variadic.c": case(1, 30, "variadic functions are not supported", unsupported=True),
    "pointer_to_pointer.c": case(1, 34, "parameter 'a' is a pointer to a pointer",
                                 unsupported=True),
    "returns_pointer.c": case(1, 9, "the kernel returns a pointer", unsupported=True),
    "long_double_param.c": case(2, 31, "'k' has the type 'long double'", "an integer type",
                                unsupported=True),
    "pool_divided_bound.c": case(6, 17, "cannot tell the extent of pointer parameter 'in'", "depends on 'r'",
                                 "divides by a parameter", "// t2c: array in["),
    "undeclared_size_t.c": case(4, 30, "parse error", "`size_t` is not declared here: include <stddef.h>"),
    "unsigned_countdown.c": case(5, 28, "`i >= 0` is always true", "'i' is declared size_t",
                                 "for (long i = n - 1; i >= 0; i--)", unsupported=True),
}


@pytest.fixture
def in_frontend_dir(monkeypatch):
    """Run from tests/frontend so that files are named relatively (bad/NAME.c), as a user
    would type them: every message must name the file the way it was given."""
    monkeypatch.chdir(HERE)


def test_every_bad_file_is_covered():
    files = {p.name for p in BAD.glob("*.c")}
    assert len(files) >= 12
    assert files == set(CASES)


@pytest.mark.parametrize("name", list(CASES))
def test_read_c_refuses(name, in_frontend_dir):
    c = CASES[name]
    given = f"bad/{name}"
    with pytest.raises(UserError) as info:
        read_c(given, c["function"])
    e, text = info.value, str(info.value)
    assert text.startswith(f"{given}:{c['line']}:{c['col']}: "), text
    assert (e.file, e.line or 1, e.col or 1) == (given, c["line"], c["col"])
    for w in c["words"]:
        assert w in text, f"{w!r} not in {text!r}"
    assert isinstance(e, UnsupportedC) == c["unsupported"], type(e).__name__
    assert "\n" not in text


def test_absolute_path_is_named_as_given():
    path = BAD / "goto.c"
    with pytest.raises(UserError) as info:
        read_c(path)
    assert str(info.value).startswith(f"{path}:5:7: goto is not supported; ")


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.c"
    with pytest.raises(UserError) as info:
        read_c(path)
    assert str(info.value).startswith(f"{path}:1:1: cannot read the file")


def test_annotation_fixes_unknown_extent(tmp_path):
    """The hint works: the same kernel with the suggested annotation reads."""
    text = (BAD / "unknown_extent.c").read_text()
    path = tmp_path / "annotated.c"
    path.write_text("// t2c: array x[2 * n]\n" + text)
    k = read_c(path)
    assert k.array("x").shape == ("2 * n",)
    assert k.array("y").shape == ("n",)


@pytest.mark.parametrize("name", list(CASES))
def test_cli_prints_one_line_and_exits_2(name, in_frontend_dir):
    c = CASES[name]
    given = f"bad/{name}"
    args = ["is", given] + (["--function", c["function"]] if c["function"] else [])
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    assert "Traceback" not in r.output
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"t2c: {given}:{c['line']}:{c['col']}: "), lines[0]


@pytest.mark.parametrize("name", ["struct_pointer_param.c", "no_output.c", "missing_include.c"])
def test_cli_process_has_no_traceback(name, in_frontend_dir):
    """The real command, in its own process: stderr is the one line, exit status 2."""
    env = dict(os.environ, PYTHONPATH=str(HERE.parent.parent))
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "is", f"bad/{name}"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(f"t2c: bad/{name}:")
