"""Model-written code never sees the caller's secrets (issue #38, 3): the compilers that build
a candidate and its reference, and the processes that run them, get process.clean_env (PATH,
a scratch HOME, the CUDA and locale variables), never OPENAI_API_KEY.  Proven by reading the
children's environments: fake compilers dump theirs, and every run's environment is recorded."""
import shutil
import sys
from pathlib import Path

import pytest

from t2ctest import ROOT

sys.path.insert(0, str(ROOT / "tests" / "llm"))
from scripted import AXPY  # noqa: E402

SECRET = "sk-t2c-must-not-reach-compilers-1234"


def dumping(tool: str, folder: Path) -> Path:
    """A compiler that appends its environment to a file in `folder`, then is `tool`."""
    real = shutil.which(tool)
    script = folder / f"fake-{tool}"
    script.write_text(f"#!/bin/sh\nenv > {folder}/env-{tool}.$$\nexec {real} \"$@\"\n")
    script.chmod(0o755)
    return script


def test_builds_and_runs_of_model_code_get_a_clean_environment(tmp_path, monkeypatch):
    from t2c.frontends import read_kernel
    from t2c.runtime import process
    from t2c.verify import harness, reference
    from t2c.verify.ladder import ladder
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    for var in ("T2C_CACHE_DIR", "T2C_BUILD_CACHE", "T2C_EMU_CACHE"):       # fresh builds
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    monkeypatch.setenv("T2C_CC", str(dumping("gcc", tmp_path)))
    monkeypatch.setenv("T2C_CXX", str(dumping("g++", tmp_path)))
    runs = []
    real = process.run_process

    def recording(argv, **kw):
        runs.append(kw.get("env"))
        return real(argv, **kw)
    monkeypatch.setattr(harness, "run_process", recording)
    monkeypatch.setattr(reference, "run_process", recording)

    k = read_kernel(ROOT / "corpora" / "text2cuda" / "axpy.md")
    ev = ladder(k, AXPY, backend="emu", dataset="MINI", seed=5, bench=False)
    assert ev.accepted, ev.summary()

    dumps = {p.name.split(".")[0]: p.read_text() for p in tmp_path.glob("env-*")}
    assert {"env-gcc", "env-g++"} <= set(dumps), sorted(dumps)      # the reference and the candidate
    for p in tmp_path.glob("env-*"):
        text = p.read_text()
        assert SECRET not in text and "OPENAI_API_KEY" not in text, p.name
        home = next(line[5:] for line in text.splitlines() if line.startswith("HOME="))
        assert home != str(Path.home()) and Path(home).name.startswith("t2c-home-")
        assert any(line.startswith("PATH=") for line in text.splitlines())
    assert runs and all(env is not None and SECRET not in str(env) for env in runs)
    assert all(env["HOME"].rsplit("/", 1)[-1].startswith("t2c-home-") for env in runs)


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "T2C_TEST_KEY"])
def test_clean_env_keeps_only_what_tools_need(name, monkeypatch):
    from t2c.runtime.process import KEPT, clean_env
    monkeypatch.setenv(name, "secret")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    env = clean_env({"T2C_NONCE": "n"})
    assert name not in env and env["CUDA_VISIBLE_DEVICES"] == "1" and env["T2C_NONCE"] == "n"
    assert set(env) <= set(KEPT) | {"HOME", "T2C_NONCE"}
