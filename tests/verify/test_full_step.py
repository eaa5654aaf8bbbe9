"""The emu's full rung at a smaller dataset than asked for is said where the verdict is (issue 36).

On emu the full rung steps down to the largest preset whose reference stays within
T2C_VERIFY_EMU_WORK loop iterations (synth.full_dataset). sort_keys, topk_rows and bottomk_rows
were "accepted" at SMALL with only `full ok ... MINI` on the card to tell: the decision is now a
record (`FullDataset`) whose line reaches the card's summary, its JSON, its rendering and the
batch's per-kernel lines, with the budget the target needs and the setting that gives it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from t2ctest import ROOT
from t2c.frontends.prose import read_spec
from t2c.generators.poly import generate
from t2c.verify.ladder import ladder
from t2c.verify.reference import run_reference
from t2c.verify.inputs import synthesize
from t2c.verify.synth import FullDataset, full_dataset

SCALE = """\
---
name: scale
sizes:
  n: {MINI: 8, SMALL: 3000}
arrays:
  x: float[n] in
  y: float[n] out
---
Twice x.

```t2c
y[i] = 2.0 * x[i]
```
"""


def _spec(tmp_path):
    (tmp_path / "specs").mkdir(exist_ok=True)
    path = tmp_path / "specs" / "scale.md"
    path.write_text(SCALE)
    return read_spec(path)


def _small_work(k) -> int:
    sizes = k.dataset_sizes("SMALL")
    return run_reference(k, sizes, synthesize(k, sizes, 0), checked_run=True).work


def test_the_step_down_is_a_record_with_the_budget_the_target_needs(tmp_path, monkeypatch):
    k = _spec(tmp_path)
    needs = _small_work(k)
    monkeypatch.setenv("T2C_VERIFY_EMU_WORK", str(needs - 1))
    got = full_dataset(k, "SMALL", "emu")
    assert got == FullDataset("SMALL", "MINI", needs - 1, "SMALL", needs)
    assert got.stepped_down and got.line() == (f"verified at MINI, not SMALL (SMALL needs an emu work budget of "
                                               f"{needs:,}; set T2C_VERIFY_EMU_WORK)")
    assert f"set T2C_VERIFY_EMU_WORK={needs} or more to verify at SMALL" in got.note()
    monkeypatch.setenv("T2C_VERIFY_EMU_WORK", str(needs))
    assert full_dataset(k, "SMALL", "emu") == FullDataset("SMALL", "SMALL", needs)
    assert full_dataset(k, "SMALL", "gpu") == FullDataset("SMALL", "SMALL")


def test_the_card_says_where_it_verified(tmp_path, monkeypatch):
    k = _spec(tmp_path)
    needs = _small_work(k)
    monkeypatch.setenv("T2C_VERIFY_EMU_WORK", "100")
    card = ladder(k, generate(k), backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.render()
    line = f"verified at MINI, not SMALL (SMALL needs an emu work budget of {needs:,}; set T2C_VERIFY_EMU_WORK)"
    assert card.summary().endswith(f"; {line}")
    assert line in card.render() and f"T2C_VERIFY_EMU_WORK={needs} or more" in card.render()
    step = json.loads(card.to_json())["suite"]["full_step"]
    assert (step["target"], step["ran"], step["budget"], step["needs"]) == ("SMALL", "MINI", 100, needs)
    monkeypatch.setenv("T2C_VERIFY_EMU_WORK", str(needs))
    card = ladder(k, generate(k), backend="emu", dataset="SMALL", seed=5)
    assert card.accepted and "verified at" not in card.summary() and card.suite["full_step"] is None


def test_the_batch_says_it_on_the_kernels_lines(tmp_path):
    _spec(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT), T2C_VERIFY_EMU_WORK="100", T2C_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "batch", "specs", "--backend", "emu", "--dataset", "SMALL",
                        "--seed", "5", "-j", "1"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    said = "verified at MINI, not SMALL (SMALL needs an emu work budget of"
    lines = (r.stdout + r.stderr).splitlines()
    assert any(l.startswith("ok") and "scale:verify" in l and said in l for l in lines), lines
    assert any(l.startswith("ok") and "scale:suite" in l and said in l for l in lines), lines
    assert any(l.startswith("scale") and "accepted" in l and said in l for l in lines), lines    # the table
