"""The layers t2c states are the layers it has.

The packages follow the pipeline; each may import only the ones below it (top to bottom):

    cli                      the commands over everything
    engine                   batch targets, cache, executors
    generators | report      candidates and their search (uses the ladder) | reports (sibling, apart)
    verify                   inputs, the host reference, the ladder's rungs
    frontends                C and prose to the IS; the IS's facts are filled here
    analysis                 the polyhedral model of a reference (islpy only in isl_bridge)
    ir | runtime             the IS and the C-syntax helpers over its reference | builds and backends
    config, errors

The contracts live in pyproject.toml (`[tool.importlinter]`, checked by import-linter, which
counts imports inside functions too): those layers, no import cycle between the modules of any
package, and islpy imported by `t2c.analysis.isl_bridge` alone.  A name starting with `_` is its
module's own; no other module imports it (checked here over the syntax trees).
"""
from __future__ import annotations

import ast
from pathlib import Path

from click.testing import CliRunner
from importlinter.cli import lint_imports_command

from t2ctest import ROOT


def test_import_contracts_hold(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(lint_imports_command, ["pyproject.toml", "--no-cache", "--no-logo"])
    assert result.exit_code == 0, result.output


def private_imports(package: Path) -> list[str]:
    """`file:line: name` for each `from M import _name` (at any depth) where M is another module
    of the package tree rooted at `package`."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.level or node.module.split(".")[0] == package.name):
                found += [f"{path.relative_to(package.parent)}:{node.lineno}: {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_no_private_name_imported_from_another_module():
    found = private_imports(ROOT / "t2c")
    assert not found, ("a `_name` is its module's own: make it public in the lowest module that needs "
                       "it, or keep the use inside that module:\n" + "\n".join(found))


def test_private_imports_are_found(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("def _helper():\n    pass\n")
    (pkg / "b.py").write_text("import os\nfrom os import _exit\ndef f():\n    from .a import _helper, __doc__\n")
    assert private_imports(pkg) == ["pkg/b.py:4: _helper"]
