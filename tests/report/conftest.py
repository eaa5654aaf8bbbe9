"""Fixtures of the report tests: the fixture run published once per session, shard splits, Chromium."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from t2c.report.basic import read_json
from t2c.report.publish import publish

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def published(tmp_path_factory):
    """The nightly fixture run published into a temporary folder, with its history and a step summary."""
    base = tmp_path_factory.mktemp("published")
    shutil.copytree(FIXTURES / "run", base / "run")
    shutil.copytree(FIXTURES / "history", base / "history")
    summary = base / "step-summary.md"
    summary.write_text("# earlier step\n")
    rows, meta = read_json(base / "run" / "results.json")
    publish(rows, base / "run", meta, history_dir=base / "history", env={"GITHUB_STEP_SUMMARY": str(summary)})
    return {"dir": base / "run", "history": base / "history", "summary": summary, "rows": rows, "meta": meta}


@pytest.fixture
def shards(tmp_path):
    return split_shards(tmp_path / "shards")


def split_shards(tmp: Path, n: int = 2) -> list[Path]:
    """Shard reports of the fixture run as the engine would write them: kernel i in shard i mod n + 1."""
    data = json.loads((FIXTURES / "run" / "results.json").read_text())
    kernels = list(dict.fromkeys(r["kernel"] for r in data["rows"]))
    out = []
    for k in range(1, n + 1):
        mine = {kid for i, kid in enumerate(kernels) if i % n == k - 1}
        folder = tmp / f"shard{k}"
        rows = [r for r in data["rows"] if r["kernel"] in mine]
        for r in rows:
            src = FIXTURES / "run" / "kernels" / f"{r['kernel']}--{r['generator']}"
            if src.is_dir():
                shutil.copytree(src, folder / "kernels" / src.name)
        meta = dict(data["meta"], shard=f"{k}/{n}", seconds=data["meta"]["seconds"] / n)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}))
        out.append(folder)
    return out


@pytest.fixture(scope="session")
def chromium():
    """Debian's chromium; installed with apt when missing and we are root, else the test skips."""
    found = shutil.which("chromium") or (Path("/usr/bin/chromium").exists() and "/usr/bin/chromium")
    if not found and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        try:
            subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=300)
            subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env, capture_output=True,
                           timeout=900)
        except (OSError, subprocess.TimeoutExpired):
            pass
        found = shutil.which("chromium") or (Path("/usr/bin/chromium").exists() and "/usr/bin/chromium")
    if not found:
        pytest.skip("no chromium: not installed, and `apt-get install -y chromium` is not possible here "
                    "(needs root and a reachable Debian mirror)")
    return str(found)


@pytest.fixture
def artifacts(tmp_path):
    """Where tests leave files for people to look at: $T2C_ARTIFACTS when set, else the test's tmp dir."""
    where = Path(os.environ["T2C_ARTIFACTS"]) if os.environ.get("T2C_ARTIFACTS") else tmp_path / "artifacts"
    where.mkdir(parents=True, exist_ok=True)
    return where
