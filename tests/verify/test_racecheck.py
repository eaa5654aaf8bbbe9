"""The gpu races rung's race check (t2c/verify/racecheck.py, issue #39): compute-sanitizer found
beside nvcc, and where there is none, emu's races rung on the same source.  No GPU is needed:
the GPU's repeat run is stood in for by outputs that agree with the reference (what `run_ahead`
leaves for the rung on a GPU), so the rung's verdict rests on the race check alone."""
from pathlib import Path

import pytest

from t2ctest import POLYBENCH, ROOT
from t2c import config
from t2c.frontends.c import read_c
from t2c.runtime.build import BuildError
from t2c.verify import racecheck, rungs
from t2c.verify.device import emu_available
from t2c.verify.harness import CandidateBuild
from t2c.verify.ladder import _limits
from t2c.verify.synth import build_suite

GEMM = read_c(POLYBENCH / "linear-algebra/blas/gemm/gemm.c")
TILED = ROOT / "tests/candidates/race/gemm_tiled.cu"
RACY = ROOT / "tests/candidates/race/gemm_tiled_race.cu"
WAR = ROOT / "tests/candidates/race/gemm_tiled_war.cu"     # the next tile's copy overwrites this one
needs_emu = pytest.mark.skipif(not emu_available(), reason="needs the emu backend (t2c.runtime.emu)")


def _tool(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_compute_sanitizer_is_found_on_path_then_beside_nvcc(tmp_path):
    toolkit = tmp_path / "cuda-13.0"
    nvcc = _tool(toolkit / "bin/nvcc")
    assert config.find_compute_sanitizer(str(nvcc), path="") is None
    # the toolkit's own place, not linked into bin/
    beside = _tool(toolkit / "compute-sanitizer/compute-sanitizer")
    assert config.find_compute_sanitizer(str(nvcc), path="") == str(beside)
    # bin/ first, and PATH before either
    in_bin = _tool(toolkit / "bin/compute-sanitizer")
    assert config.find_compute_sanitizer(str(nvcc), path="") == str(in_bin)
    on_path = _tool(tmp_path / "elsewhere/compute-sanitizer")
    assert config.find_compute_sanitizer(str(nvcc), path=str(on_path.parent)) == str(on_path)
    assert config.find_compute_sanitizer(None, path="") is None


def test_compute_sanitizer_is_found_through_a_symlinked_or_wrapped_nvcc(tmp_path):
    toolkit = tmp_path / "cuda"
    nvcc = _tool(toolkit / "bin/nvcc")
    beside = _tool(toolkit / "compute-sanitizer/compute-sanitizer")
    (tmp_path / "bin").mkdir()
    link = tmp_path / "bin/nvcc"
    link.symlink_to(nvcc)
    assert config.find_compute_sanitizer(str(link), path="") == str(beside)
    wrapper = tmp_path / "local/nvcc"        # as /usr/local/bin/nvcc on some hosts
    _tool(wrapper).write_text(f'#!/bin/sh\nexec {nvcc} "$@"\n')
    assert config.find_compute_sanitizer(str(wrapper), path="") == str(beside)


def test_the_compute_sanitizer_setting(tmp_path):
    nvcc = _tool(tmp_path / "cuda/bin/nvcc")
    beside = _tool(tmp_path / "cuda/compute-sanitizer/compute-sanitizer")
    env = {"T2C_NVCC": str(nvcc), "PATH": ""}
    assert config.load(env).compute_sanitizer == str(beside)
    assert config.load({**env, "T2C_COMPUTE_SANITIZER": "off"}).compute_sanitizer is None
    assert config.load({**env, "T2C_COMPUTE_SANITIZER": str(nvcc)}).compute_sanitizer == str(nvcc)
    with pytest.raises(ValueError, match="T2C_COMPUTE_SANITIZER"):
        config.load({**env, "T2C_COMPUTE_SANITIZER": str(tmp_path / "missing")})


def _gpu_run(source: str, name: str) -> rungs.Run:
    """A gpu Run whose races repeat already ran and agreed with the reference: no GPU needed."""
    suite = build_suite(GEMM, 42, dataset="MINI", backend="gpu")
    run = rungs.Run(GEMM, "gpu", suite, CandidateBuild(Path("/no-gpu-build"), "", ()),
                    _limits(GEMM, suite, "gpu"), name, source=source)
    run.ahead["races"] = ([c.expected for _, c in rungs.races_calls(run)], None)
    return run


@needs_emu
@pytest.mark.parametrize("racy", [RACY, WAR], ids=["read-before-copy", "copy-before-read"])
def test_without_compute_sanitizer_the_gpu_rung_rejects_a_planted_race(monkeypatch, racy):
    """A tiled gemm that reads its shared tile before the barrier that completes the copy, whose
    GPU repeat agreed with the reference (as the issue's candidate did on an H200): agreement
    alone accepted it.  With no compute-sanitizer the rung now runs emu's races rung on the same
    source, which rejects it."""
    monkeypatch.setenv("T2C_COMPUTE_SANITIZER", "off")
    r = rungs.races(_gpu_run(racy.read_text(), racy.name))
    assert not r.ok and r.reason.startswith("race"), (r.reason, r.feedback)
    assert r.detail["race_check"].startswith("emu seeds") and "emulator" in r.feedback
    # its twin with the barrier passes, and the evidence says which check ran
    r = rungs.races(_gpu_run(TILED.read_text(), TILED.name))
    assert r.ok and r.detail["race_check"] == f"emu seeds {r.detail['emu_seeds']}", r.feedback
    assert len(r.detail["emu_seeds"]) == config.load().verify_race_seeds


@needs_emu
def test_a_candidate_emu_cannot_build_is_not_rejected_for_it(monkeypatch):
    """Emu refuses some inline PTX; that is a limit of the emulator, not a finding: the rung
    passes on agreement and the evidence says no race check was available, and why."""
    monkeypatch.setenv("T2C_COMPUTE_SANITIZER", "off")

    def refuse(*a, **kw):
        raise BuildError("the emulator does not model: inline PTX (asm)", "", [])
    monkeypatch.setattr(racecheck, "build_candidate", refuse)
    r = rungs.races(_gpu_run(TILED.read_text(), TILED.name))
    assert r.ok and r.detail["race_check"].startswith("none available (unsupported by the emulator")


def test_with_compute_sanitizer_its_tools_run_and_are_named(monkeypatch, tmp_path):
    """Where compute-sanitizer is found, memcheck and racecheck run (racecheck only for a
    candidate with shared memory) and the evidence names them; a racecheck finding rejects."""
    monkeypatch.setenv("T2C_COMPUTE_SANITIZER", str(_tool(tmp_path / "compute-sanitizer")))
    ran = []
    monkeypatch.setattr(racecheck, "sanitize", lambda run, s, tool, case: ran.append(tool) or (
        ("race", "compute-sanitizer racecheck: Error: Race reported") if tool == "racecheck" else None))
    r = rungs.races(_gpu_run(RACY.read_text(), RACY.name))
    assert ran == ["memcheck", "racecheck"] and not r.ok and r.reason == "race"
    assert r.detail["race_check"] == "compute-sanitizer racecheck+memcheck"
    ran.clear()
    plain = (ROOT / "tests/candidates/kernel_gemm.cu").read_text()
    r = rungs.races(_gpu_run(plain, "kernel_gemm.cu"))
    assert ran == ["memcheck"] and r.ok and r.detail["race_check"].startswith("compute-sanitizer memcheck")


def test_every_second_emu_race_seed_runs_the_blocks_at_once(monkeypatch):
    """A block reading another block's writes of the same launch without waiting for them reads
    them early only when both run at once: the races rung's second seed runs blocks on several
    OS threads (the chained substitution kernel without its flag wait fails there)."""
    envs = []
    monkeypatch.setattr(rungs, "_race_groups", lambda run: [[type("C", (), {"sizes": {"n": 1}})()]])
    monkeypatch.setattr(rungs, "_calls", lambda run, calls, env, *rest: envs.append(env))
    run = type("R", (), {"suite": type("S", (), {"seed": 7})(), "limits": None})()
    assert rungs.emu_races(run, 0.0).ok
    assert [e.get("T2C_EMU_BLOCK_THREADS") for e in envs] == [None, str(rungs.CONCURRENT_BLOCKS), None]
    assert len({e["T2C_EMU_SEED"] for e in envs}) == 3
