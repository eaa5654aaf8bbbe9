"""Merging shard reports gives the full run back: rows in discovery order, meta, files, pages."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from t2c.errors import UserError
from t2c.report.basic import read_json
from t2c.report.merge import merge_reports, merge_runs

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_merge_of_two_shards_equals_the_full_run(shards, tmp_path):
    out = merge_reports([shards[1], shards[0]], tmp_path / "merged", env={})      # any order
    rows, meta = read_json(out / "results.json")
    full_rows, full_meta = read_json(FIXTURES / "run" / "results.json")
    assert [r.to_dict() for r in rows] == [r.to_dict() for r in full_rows]
    assert meta["settings"] == full_meta["settings"] and meta["environment"] == full_meta["environment"]
    assert meta["ceilings"] == full_meta["ceilings"] and meta["seconds"] == full_meta["seconds"] / 2
    assert [s["shard"] for s in meta["shards"]] == ["2/2", "1/2"] and meta["run"] == "merged"
    html = (out / "index.html").read_text()
    assert "merged from 2 shards" in html and '<div class="count">50</div><div class="label">accepted' in html
    assert (out / "kernels" / "gemm--poly" / "candidate.cu").is_file()
    assert "__global__" in (out / "kernels" / "gemm--poly.html").read_text()
    assert not (tmp_path / "history").exists()                 # shards already recorded their parts


def test_overlapping_shards_must_agree(shards):
    rows, _ = merge_runs([shards[0], shards[0]])               # the same shard twice: identical, kept once
    assert len(rows) == len(read_json(shards[0] / "results.json")[0])
    data = json.loads((shards[0] / "results.json").read_text())
    data["rows"][0]["kernel_ms"] = 123.0
    (shards[1] / "results.json").write_text(json.dumps(data))
    with pytest.raises(UserError, match="in two shards with different results"):
        merge_runs(shards)


def test_runs_of_two_generators_merge_into_one_matrix(tmp_path):
    data = json.loads((FIXTURES / "run" / "results.json").read_text())
    dirs = []
    for gen in ("poly", "llm"):
        d = tmp_path / gen
        d.mkdir()
        meta = dict(data["meta"], settings=dict(data["meta"]["settings"], generator=gen))
        (d / "results.json").write_text(json.dumps(
            {"meta": meta, "rows": [r for r in data["rows"] if r["generator"] == gen]}))
        dirs.append(d)
    rows, meta = merge_runs(dirs)
    assert len(rows) == 60 and meta["settings"]["generator"] == ["llm", "poly"]


def test_cli_merge(shards, tmp_path):
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "report", "merge", *map(str, shards),
                        "-o", str(tmp_path / "out"), "--history", str(tmp_path / "hist")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "index.html").is_file() and (tmp_path / "out" / "junit.xml").is_file()
    assert len(list((tmp_path / "hist").glob("*.jsonl"))) == 1
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "report", "merge", str(tmp_path / "none"), "-o",
                        str(tmp_path / "o2")], capture_output=True, text=True)
    assert r.returncode == 2 and "no results.json" in r.stderr
