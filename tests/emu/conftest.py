"""Shared fixtures for the emu tests: one build cache per test session (builds are
content-addressed, so a program compiled by one test is reused by the next), and a
helper that writes a CUDA snippet to a file and emulates it."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from t2c.runtime.emu import emulate

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@pytest.fixture(scope="session")
def emu_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("emu-cache")


@pytest.fixture
def run_cu(tmp_path, emu_cache):
    """run_cu(source, name='prog.cu', **emulate_kwargs) -> EmuOutcome"""
    def run(source: str, name: str = "prog.cu", **kw):
        path = tmp_path / name
        path.write_text(source)
        kw.setdefault("seeds", 1)
        kw.setdefault("timeout", 60)
        return emulate(path, cache_dir=emu_cache, **kw)
    return run
