"""The red-team corpus: every cheating or broken candidate is rejected, at the right rung, for
the right reason (manifest.yaml).  Static-rung entries need no emulator; the others run the
whole ladder on the emu backend (skipped where t2c.runtime.emu is missing)."""
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from t2ctest import ROOT
from t2c.frontends.c import read_c
from t2c.verify.device import emu_available
from t2c.verify.static import check_static

HERE = Path(__file__).parent
MANIFEST = yaml.safe_load((HERE / "manifest.yaml").read_text())["candidates"]
SEED = 20240611          # fixed, so a failure here replays exactly


def rungs_of(entry) -> list[str]:
    r = entry["rung"]
    return [r] if isinstance(r, str) else list(r)


def verdict(entry) -> tuple[str | None, str]:
    """(rung that rejected or None, 'reason: feedback')."""
    k = read_c(ROOT / entry["kernel"])
    path = HERE / "candidates" / entry["file"]
    if rungs_of(entry) == ["static"]:
        st = check_static(k, path.read_text(), path.name)
        return (None, "") if st.ok else ("static", st.reason)
    from t2c.verify.ladder import ladder
    ev = ladder(k, path, backend="emu", seed=SEED, bench=False)
    return (None, "accepted") if ev.accepted else (ev.rung, f"{ev.reason}: {ev.feedback}")


@pytest.fixture(scope="session")
def results():
    """All runtime entries at once, two at a time (builds dominate and are subprocesses)."""
    os.environ.setdefault("T2C_VERIFY_RUN_TIMEOUT", "10")
    todo = [e for e in MANIFEST if rungs_of(e) != ["static"]] if emu_available() else []
    with ThreadPoolExecutor(2) as pool:
        done = dict(zip([e["file"] for e in todo], pool.map(verdict, todo)))
    return done


def test_manifest_is_complete():
    files = {p.name for p in (HERE / "candidates").glob("*.cu")}
    listed = [e["file"] for e in MANIFEST]
    assert sorted(listed) == sorted(files), "every red-team file is in the manifest, once"
    assert len(listed) >= 25
    assert {"static", "smoke"} <= {r for e in MANIFEST for r in rungs_of(e)}


@pytest.mark.parametrize("entry", [e for e in MANIFEST if rungs_of(e) == ["static"]], ids=lambda e: e["file"])
def test_static_cheat_is_rejected(entry):
    rung, why = verdict(entry)
    assert rung == "static", f"{entry['file']} was not rejected by the static rung"
    assert re.search(entry["reason"], why, re.I), f"{entry['file']}: wrong reason: {why}"


@pytest.mark.xdist_group("redteam-runs")        # one worker: the runs are made once
@pytest.mark.skipif(not emu_available(), reason="needs the emu backend (t2c.runtime.emu)")
@pytest.mark.parametrize("entry", [e for e in MANIFEST if rungs_of(e) != ["static"]], ids=lambda e: e["file"])
def test_runtime_cheat_is_rejected(entry, results):
    rung, why = results[entry["file"]]
    assert rung is not None, f"{entry['file']} was ACCEPTED"
    assert rung in rungs_of(entry), f"{entry['file']}: rejected at {rung}, expected {entry['rung']}: {why}"
    assert re.search(entry["reason"], why, re.I), f"{entry['file']}: wrong reason: {why}"
