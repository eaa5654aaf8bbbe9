"""Regressions are called only when the ratio passes the threshold and the test agrees."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from t2c.errors import UserError
from t2c.report.basic import Row
from t2c.report.publish import publish
from t2c.report.compare import compare_runs, exit_code, gate, load_rows, parse_threshold

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def timed(kernel, ms, rng, n=20, sigma=0.02, generator="poly"):
    s = sorted(float(x) for x in ms * np.exp(rng.normal(0, sigma, n)))
    return Row(kernel, generator, "accepted", "LARGE", kernel_ms=float(np.median(s)), samples_ms=s)


@pytest.fixture
def runs():
    rng = np.random.default_rng(5)
    base = [timed(f"k{i}", 1.0 + i, rng) for i in range(12)]
    new = [timed(f"k{i}", 1.0 + i, rng) for i in range(12)]            # fresh noise only
    new[3] = timed("k3", 4.0 * 1.15, rng)                                # planted: 15% slower
    new[5] = timed("k5", 6.0 / 1.3, rng)                                 # planted: 30% faster
    # noisy: median 8% slower, but 5 samples that overlap the base's spread
    base[7] = Row("k7", "poly", "accepted", "LARGE", kernel_ms=8.0, samples_ms=[6.0, 7.0, 8.0, 9.0, 10.0])
    new[7] = Row("k7", "poly", "accepted", "LARGE", kernel_ms=8.64, samples_ms=[6.2, 7.5, 8.64, 9.6, 10.5])
    # no repetitions: a ratio alone is not evidence
    base[9] = Row("k9", "poly", "accepted", "LARGE", kernel_ms=10.0)
    new[9] = Row("k9", "poly", "accepted", "LARGE", kernel_ms=13.0)
    return base, new


def test_planted_regression_found_and_noise_ignored(runs):
    changes = compare_runs(*runs, threshold=0.05)
    kinds = {c.kernel: c.kind for c in changes}
    assert [c.kernel for c in changes if c.kind == "regression"] == ["k3"]
    assert [c.kernel for c in changes if c.kind == "improvement"] == ["k5"]
    assert kinds["k7"] == "noise" and kinds["k9"] == "noise"
    assert all(kinds[f"k{i}"] == "same" for i in (0, 1, 2, 4, 6, 8, 10, 11))
    reg = changes[0]
    assert reg.ratio == pytest.approx(1.15, abs=0.03) and reg.confidence > 0.99 and reg.n_new == 20
    assert exit_code(changes) == 3
    assert exit_code([c for c in changes if c.kind != "regression"]) == 0


def test_threshold_and_confidence_are_both_required(runs):
    assert not [c for c in compare_runs(*runs, threshold=0.25) if c.kind == "regression"]
    assert [c.kernel for c in compare_runs(*runs, threshold=0.05, confidence=0.9)
            if c.kind == "regression"] == ["k3"]


def test_rows_only_in_one_run_untimed_or_of_another_dataset_are_left_out():
    base = [Row("a", "poly", "accepted", "L", kernel_ms=1.0), Row("b", "poly", "failed", "L"),
            Row("c", "poly", "accepted", "MINI", kernel_ms=1.0)]
    new = [Row("a", "llm", "accepted", "L", kernel_ms=2.0), Row("b", "poly", "accepted", "L", kernel_ms=1.0),
           Row("c", "poly", "accepted", "L", kernel_ms=9.0)]
    assert compare_runs(base, new, 0.05) == []


def test_parse_threshold():
    assert parse_threshold("5%") == parse_threshold("0.05") == parse_threshold("5") == pytest.approx(0.05)
    with pytest.raises(UserError):
        parse_threshold("fast")


def write_run(folder, rows):
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps({"meta": {}, "rows": [r.to_dict() for r in rows]}))
    return folder


def test_cli_compare_exit_codes(runs, tmp_path):
    base, new = write_run(tmp_path / "base", runs[0]), write_run(tmp_path / "new", runs[1])
    cli = [sys.executable, "-m", "t2c.cli", "report", "compare"]
    r = subprocess.run([*cli, str(base), str(new), "--threshold", "5%"], capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert "regression  k3 [poly]" in r.stdout and "improvement k5" in r.stdout and "1 regression" in r.stdout
    r = subprocess.run([*cli, str(base), str(base / "results.json")], capture_output=True, text=True)
    assert r.returncode == 0 and "0 regression" in r.stdout
    r = subprocess.run([*cli, str(base), str(tmp_path / "missing")], capture_output=True, text=True)
    assert r.returncode == 2 and "no report at" in r.stderr and "Traceback" not in r.stderr


def test_gate_reads_a_history(runs, tmp_path):
    env = {"slug": "box-1234"}
    line = lambda run, day, dataset, rows: {"run": run, "time": f"2025-03-0{day}T02:00:00Z", "dataset": dataset,
                                            "environment": env, "rows": [r.to_dict() for r in rows]}
    lines = [line("nightly", 1, "LARGE", runs[0]), line("nightly", 2, "MINI", runs[1]),
             line("nightly", 3, "LARGE", runs[1])]
    (tmp_path / "box-1234.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines) + "{truncated")
    like = {"run": "nightly", "finished": "2025-03-03T02:00:00Z", "environment": env,
            "settings": {"dataset": "LARGE"}}
    rows, meta = load_rows(tmp_path / "box-1234.jsonl", like=like)
    assert len(rows) == 12 and rows[3].kernel_ms == runs[0][3].kernel_ms   # day 2 is MINI, day 3 is NEW
    changes, code = gate(tmp_path, runs[1], "5%", meta=like)      # the history folder: this machine's file
    assert code == 3 and [c.kernel for c in changes if c.kind == "regression"] == ["k3"]
    with pytest.raises(UserError, match="no history of this machine"):
        load_rows(tmp_path, like={"environment": {"slug": "other-0000"}})


def test_cli_compare_against_the_history_folder(published):
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "report", "compare", str(published["history"]),
                        str(published["dir"])], capture_output=True, text=True)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "regression  gemm [poly]" in r.stdout and "improvement jacobi-2d [llm]" in r.stdout
    assert "50 kernel(s) compared" in r.stdout


def test_first_night_has_nothing_to_compare(tmp_path):
    rows, meta = load_rows(FIXTURES / "run")
    publish(rows[:4], tmp_path / "reports" / "nightly", meta, env={})
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "report", "compare", str(tmp_path / "reports" / "history"),
                        str(tmp_path / "reports" / "nightly")], capture_output=True, text=True)
    assert r.returncode == 0 and "nothing to compare yet" in r.stdout, r.stdout + r.stderr
    assert gate(tmp_path / "reports" / "history", rows, "5%", meta=load_rows(tmp_path / "reports" / "nightly")[1]) == ([], 0)
