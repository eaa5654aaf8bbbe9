"""Poly prints what its plan says: no regex substitution over generated code, no eval of C text.

A printer that renames, inserts or evaluates by `re.sub`/`pattern.sub` or `eval` over printed
text decides after printing what the plan should have said (issue 34: a register's name, a
staged operand's reference, a kernel's first line).  These checks read the syntax trees of
`t2c/generators/poly`; the few regex substitutions left read names out of text and print
nothing (ALLOWED, each with its reason).
"""
from __future__ import annotations

import ast

from t2ctest import ROOT

POLY = ROOT / "t2c" / "generators" / "poly"

#: (module, function) -> why its substitution is not over generated code
ALLOWED = {
    ("forms.py", "_name"): "a launch's name from its arrays' names: non-word characters become _",
    ("ctext.py", "names_used"): "drops `.x` of blockIdx.x before reading the names a body uses",
    ("scan.py", "array_ref"): "a subscript without spaces or parentheses: a key to compare, never printed",
}


def substitutions(source: str) -> list[tuple[str, int, str]]:
    """(enclosing function, line, what) of each `X.sub(...)`/`X.subn(...)` call and each call of
    `eval`/`exec` in a module's source."""
    found = []

    def visit(node, where):
        for kid in ast.iter_child_nodes(node):
            here = kid.name if isinstance(kid, (ast.FunctionDef, ast.AsyncFunctionDef)) else where
            if isinstance(kid, ast.Call):
                f = kid.func
                if isinstance(f, ast.Attribute) and f.attr in ("sub", "subn"):
                    found.append((here, kid.lineno, f".{f.attr}("))
                elif isinstance(f, ast.Name) and f.id in ("eval", "exec"):
                    found.append((here, kid.lineno, f"{f.id}("))
            visit(kid, here)
    visit(ast.parse(source), "<module>")
    return found


def test_finds_the_patterns_it_forbids():
    src = ("import re\nP = re.compile('x')\n"
           "def f(t):\n    return re.sub('a', 'b', t)\n"
           "def g(t):\n    return P.sub(lambda m: 'y', t) + str(eval(t))\n")
    assert substitutions(src) == [("f", 4, ".sub("), ("g", 6, ".sub("), ("g", 6, "eval(")]


def test_poly_prints_without_patching_text():
    bad = [f"{path.name}:{line}: {what} in {fn}"
           for path in sorted(POLY.glob("*.py"))
           for fn, line, what in substitutions(path.read_text())
           if (path.name, fn) not in ALLOWED]
    assert not bad, "text patched after printing (decide it in the plan and print it):\n" + "\n".join(bad)


def test_allowed_substitutions_still_exist():
    """An entry of ALLOWED whose substitution is gone goes too (the list stays the exceptions)."""
    live = {(path.name, fn) for path in sorted(POLY.glob("*.py")) for fn, _, _ in substitutions(path.read_text())}
    assert set(ALLOWED) <= live, set(ALLOWED) - live
