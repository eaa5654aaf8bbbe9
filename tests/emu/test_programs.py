"""The CUDA test programs under emu: outputs as recorded, planted bugs found at their line.

tests/cuda/programs/*.cu print deterministic output, recorded in <name>.expected.
tests/cuda/bugs/manifest.yaml lists planted bugs (expect: race | oob | divergent_barrier,
line) and their correct twins, which must run clean (several seeds, and sanitized).
All emulations start at once on a small thread pool (each is a separate process), so
the module costs about (builds + runs) / cores.
"""
from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from t2c.runtime.emu import emulate

from .conftest import needs_gxx

pytestmark = [needs_gxx, pytest.mark.xdist_group("emu-programs")]   # one worker: each program runs once

ROOT = Path(__file__).resolve().parents[1] / "cuda"
PROGRAMS = sorted((ROOT / "programs").glob("*.cu"))
MANIFEST_PATH = ROOT / "bugs" / "manifest.yaml"
MANIFEST = yaml.safe_load(MANIFEST_PATH.read_text()) if MANIFEST_PATH.exists() else []


class _Pool:
    """Emulations submitted together on first use, awaited per test."""

    def __init__(self, cache: Path):
        self.cache = cache
        self.pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
        self.jobs: dict[tuple, object] = {}

    def submit_all(self):
        for p in PROGRAMS:
            self._submit(p, seeds=2, sanitize=False)
        for entry in MANIFEST:
            bug = ROOT / "bugs" / entry["file"]
            self._submit(bug, seeds=3, sanitize=entry["expect"] == "oob",
                         race_check=entry["expect"] == "race")
            twin = ROOT / "bugs" / entry["twin"]
            self._submit(twin, seeds=3, sanitize=False)
            self._submit(twin, seeds=1, sanitize=True)

    def _submit(self, path: Path, **kw):
        key = (path, tuple(sorted(kw.items())))
        if key not in self.jobs:
            self.jobs[key] = self.pool.submit(emulate, path, cache_dir=self.cache, timeout=120, **kw)

    def result(self, path: Path, **kw):
        self._submit(path, **kw)
        return self.jobs[(path, tuple(sorted(kw.items())))].result()


@pytest.fixture(scope="module")
def runs(emu_cache):
    pool = _Pool(emu_cache)
    pool.submit_all()
    yield pool
    pool.pool.shutdown(wait=True)


@pytest.mark.skipif(not PROGRAMS, reason="no programs under tests/cuda/programs yet")
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_program_output_matches_expected(runs, program):
    out = runs.result(program, seeds=2, sanitize=False)
    assert out.status == "ok", out.message
    expected = program.with_suffix(".expected")
    if expected.exists():
        assert out.stdout == expected.read_text()


@pytest.mark.skipif(not MANIFEST, reason="no tests/cuda/bugs/manifest.yaml yet")
@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["file"].removesuffix(".cu"))
def test_planted_bug_is_reported(runs, entry):
    out = runs.result(ROOT / "bugs" / entry["file"], seeds=3, sanitize=entry["expect"] == "oob",
                      race_check=entry["expect"] == "race")
    assert out.status == entry["expect"], out.message
    if entry["expect"] != "race":
        assert out.line == entry["line"], out.message
        assert Path(out.file).name == entry["file"]
    elif out.line is not None:
        # A race involves several statements; the checker names the read it saw first
        # (and the others in the message), which may be a neighbour of the planted line.
        assert Path(out.file).name == entry["file"]
        involved = [out.line] + [int(m) for m in re.findall(r":(\d+)", out.message.split("also involved:")[-1])]
        assert any(abs(l - entry["line"]) <= 5 for l in involved), out.message


@pytest.mark.skipif(not MANIFEST, reason="no tests/cuda/bugs/manifest.yaml yet")
@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["twin"].removesuffix(".cu"))
def test_correct_twin_runs_clean(runs, entry):
    twin = ROOT / "bugs" / entry["twin"]
    for kw in (dict(seeds=3, sanitize=False), dict(seeds=1, sanitize=True)):
        out = runs.result(twin, **kw)
        assert out.status == "ok", f"{kw}: {out.message}"
        expected = twin.with_suffix(".expected")
        if expected.exists():
            assert out.stdout == expected.read_text()
