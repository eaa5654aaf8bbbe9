"""What t2c says about a C kernel names the user's file and line, and typedef'd integer
types (size_t, ptrdiff_t, the file's own) read as the types they stand for.

The reference is t2c's reprint of the kernel (other lines, no typedefs); `Origin.lines` maps
each of its lines back to the file's."""
from __future__ import annotations

import importlib

import pytest
from pycparser import c_ast

from t2c.errors import UserError
from t2c.frontends.c import read_c
from t2c.ir.csyntax import kernel_definition, parse_c, walk

SIZE_T = """\
#include <stddef.h>
void twice(int n, double *a)
{
    for (size_t i = 0; i < n; i++)
        a[i] *= 2.0;
}
"""

TYPEDEFS = """\
#include <stddef.h>
typedef double real;
typedef long index_t;
/* t2c: array a[n] inout */
void shift(int n, real *a, const real *b)
{
    real s = 2.0;
    for (ptrdiff_t i = 0; i < n; i++) {
        index_t j = i;
        a[j] = s * b[i] + (real)j;
    }
}
"""


def _decl_types(k) -> dict[str, str]:
    fn = kernel_definition(parse_c(k.reference, "<reference>"))
    return {d.name: " ".join(d.type.type.names) for d in walk(fn.body)
            if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.TypeDecl)}


@pytest.mark.parametrize("text, types", [
    (SIZE_T, {"i": "unsigned long"}),
    (TYPEDEFS, {"s": "double", "i": "long", "j": "long"}),
], ids=["size_t", "typedefs"])
def test_typedef_locals_read_as_their_types(tmp_path, text, types):
    """A size_t counter once gave `twice.c:3:15: parse error` (a file that does not exist,
    the wrong line) for valid C: the reference kept the typedef name and was read without it."""
    path = tmp_path / "kernel.c"
    path.write_text(text)
    k = read_c(path)
    assert _decl_types(k) == types
    assert "size_t" not in k.reference and "ptrdiff_t" not in k.reference and "real" not in k.reference


def test_a_reference_t2c_cannot_read_back_names_the_users_line(tmp_path, monkeypatch):
    """Whatever the reference's re-reading refuses is named at the user's file and line."""
    normalize = importlib.import_module("t2c.frontends.c.normalize")   # the module, not the function
    monkeypatch.setattr(normalize, "resolve_typedefs", lambda node, typedefs: node)
    path = tmp_path / "Z2.c"
    path.write_text(SIZE_T)
    with pytest.raises(UserError) as info:
        read_c(path)
    assert (info.value.file, info.value.line) == (str(path), 4), str(info.value)
    assert "t2c bug" in info.value.message


def test_reference_lines_map_to_the_file(tmp_path):
    """Each line of the reference names the file's line it was printed from (0: a closing brace)."""
    path = tmp_path / "shift.c"
    path.write_text(TYPEDEFS)
    k = read_c(path)
    assert len(k.reference.splitlines()) == len(k.origin.lines)
    assert k.origin.lines == (5, 6, 7, 8, 8, 9, 10, 0, 0), k.reference


def test_another_reference_drops_the_line_map(tmp_path):
    """A mutant's or a variant's reference has other lines: the file's map no longer applies."""
    path = tmp_path / "shift.c"
    path.write_text(TYPEDEFS)
    k = read_c(path)
    assert k.replace(tolerances=()).origin.lines == k.origin.lines
    assert k.replace(reference="\n" + k.reference).origin.lines == ()


def test_the_line_map_survives_the_yaml_form(tmp_path):
    from t2c.ir.yaml_form import from_yaml, to_yaml
    path = tmp_path / "shift.c"
    path.write_text(TYPEDEFS)
    k = read_c(path)
    assert from_yaml(to_yaml(k)).origin == k.origin


def test_an_unsigned_counted_down_to_zero_is_refused_in_loops_only(tmp_path):
    """`u >= 0` never fails on an unsigned: as a loop's test the loop never ends in C (the model
    would read a finite loop), so it is refused there; elsewhere, or beside a test that ends
    the loop, it is only redundant."""
    path = tmp_path / "countdown.c"
    path.write_text("void countdown(int n, double *a)\n{\n  unsigned i = n;\n"
                    "  do {\n    i--;\n    a[i] *= 2.0;\n  } while (0 <= i);\n}\n")
    with pytest.raises(UserError) as info:
        read_c(path)
    assert (info.value.file, info.value.line) == (str(path), 7)
    assert "`0 <= i` is always true in C: 'i' is declared unsigned" in info.value.message
    path.write_text("/* t2c: array a[n] inout */\nvoid guarded(int n, double *a)\n{\n  for (size_t i = 0; i < n; i++)\n"
                    "    if (i >= 0)\n      a[i] *= 2.0;\n  for (unsigned j = n; j >= 0 && j > 0; j--)\n"
                    "    a[j - 1] += 1.0;\n}\n".replace("void", "#include <stddef.h>\nvoid", 1))
    assert "unsigned long i" in read_c(path).reference
