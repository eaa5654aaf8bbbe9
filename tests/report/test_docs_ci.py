"""The CI examples in docs/ci.md are valid YAML and every t2c command in them parses."""
import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from t2c.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", DOC.read_text(), re.S)


def t2c_commands(node) -> list[str]:
    """Every `... t2c ARGS` up to a shell operator, from all strings of a YAML document."""
    if isinstance(node, dict):
        return [c for v in node.values() for c in t2c_commands(v)]
    if isinstance(node, list):
        return [c for v in node for c in t2c_commands(v)]
    if isinstance(node, str):
        return [m.group(1) for m in re.finditer(r"(?:\.venv/)?bin/t2c (\w[^|;&\n]*)", node)]
    return []


def test_yaml_blocks_parse():
    docs = [yaml.safe_load(b) for b in blocks()]
    assert len(docs) == 5
    nightly = docs[0]
    steps = nightly["jobs"]["nightly"]["steps"]
    assert any("upload-artifact" in s.get("uses", "") for s in steps)
    assert docs[3]["t2c:report"]["allow_failure"] == {"exit_codes": [3]}


@pytest.mark.parametrize("command", sorted({c for b in blocks() for c in t2c_commands(yaml.safe_load(b))}))
def test_t2c_commands_parse(command):
    args = shlex.split(command)
    ctx = click.Context(main, info_name="t2c")
    cmd, args = main.get_command(ctx, args[0]), args[1:]
    while isinstance(cmd, click.Group):
        cmd, args = cmd.get_command(ctx, args[0]), args[1:]
    assert cmd is not None, command
    cmd.make_context(cmd.name, args, parent=ctx)             # raises on an unknown option


def test_commands_found():
    found = {c.split()[0] + " " + c.split()[1] for b in blocks() for c in t2c_commands(yaml.safe_load(b))
             if len(c.split()) > 1}
    assert {"batch corpora/polybench", "report compare", "report merge"} <= found
