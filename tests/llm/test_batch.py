"""`t2c batch corpora/text2cuda --generator llm|hybrid` end to end on emu against the fake server.

Four specs keep it quick: relu (a build error repaired), axpy (a wrong result repaired),
gemv (a cheat rejected, then repaired) and histogram (prose only: the model writes its IS).
A second run in replay mode, from a fresh project and engine cache and with no server,
must reproduce the report byte for byte once timings are removed; the key the first run
sent must appear nowhere on disk or in the output."""
import json
import os
import subprocess
import sys

import pytest

from llmtest import KEY
from t2ctest import ROOT

SPECS = ("relu", "axpy", "gemv", "histogram")
SEED = "424242"


def batch(tmp_path, run: str, generator: str, base_url: str, llm_cache, *extra):
    home = tmp_path / run
    home.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), T2C_CACHE_DIR=str(home / "cache"), T2C_TEST_KEY=KEY)
    env.pop("CI", None)
    only = [a for s in SPECS for a in ("--only", s)]
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "batch", str(ROOT / "corpora" / "text2cuda"), *only,
                        "--generator", generator, "--backend", "emu", "--dataset", "MINI", "--seed", SEED,
                        "-j", "2", "--report-dir", str(home / "report"), "--llm-base-url", base_url,
                        "--llm-model", "fake-coder", "--llm-api-key-env", "T2C_TEST_KEY",
                        "--llm-cache-dir", str(llm_cache), *extra],
                       capture_output=True, text=True, env=env, cwd=home, timeout=600)
    (home / "output.log").write_text(r.stdout + r.stderr)
    report = json.loads((home / "report" / "results.json").read_text())
    return r.returncode, report, r.stdout + r.stderr


def without_timings(report: dict) -> dict:
    rows = json.loads(json.dumps(report["rows"]))
    for row in rows:
        for stage in row["stages"].values():
            stage.pop("seconds")
    llm = dict(report["meta"]["settings"]["llm"], cache=None, base_url=None)
    return {"rows": rows, "llm": report["meta"]["llm"], "settings": dict(report["meta"]["settings"], llm=llm)}


def test_llm_batch_runs_end_to_end_and_replays_byte_for_byte(fake, tmp_path):
    code, report, output = batch(tmp_path, "record", "llm", fake.base_url, tmp_path / "llm-cache")
    rows = {r["kernel"]: r for r in report["rows"]}
    assert code == 0, output[-3000:]
    assert {k: r["status"] for k, r in rows.items()} == dict.fromkeys(SPECS, "accepted")
    steps = lambda k: [s["status"] for s in rows[k]["evolution"]]
    assert steps("relu")[0] == "rejected at build" and steps("relu")[-1] == "accepted"
    assert steps("axpy")[0] == "rejected at smoke" and steps("axpy")[-1] == "accepted"
    assert steps("gemv")[0] == "rejected at random" and steps("gemv")[-1] == "accepted"
    assert rows["histogram"]["stages"]["parse"]["summary"].startswith("histogram: IS written by the model")
    assert all(r["llm_calls"] > 0 and r["llm_tokens_in"] > 0 for r in rows.values())
    assert report["meta"]["llm"]["calls"] == sum(r["llm_calls"] for r in rows.values())
    assert "llm_tokens_out" in (tmp_path / "record" / "report" / "results.csv").read_text().splitlines()[0]
    asked = len(fake.requests)
    assert asked == report["meta"]["llm"]["calls"]

    # CI: replay from the recorded answers, nothing else shared, no server at all.
    code2, replayed, output2 = batch(tmp_path, "replay", "llm", "http://127.0.0.1:9/v1", tmp_path / "llm-cache",
                                     "--llm-cache", "replay")
    assert code2 == 0, output2[-3000:]
    assert len(fake.requests) == asked
    assert json.dumps(without_timings(replayed), sort_keys=True) == json.dumps(without_timings(report),
                                                                               sort_keys=True)

    # The key went to the server, and nowhere else.
    assert all(KEY in json.dumps(r["headers"]) for r in fake.requests)
    leaks = [str(p) for p in tmp_path.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert not leaks and KEY not in output + output2


def test_replay_without_a_recorded_answer_is_an_error_not_a_call(fake, tmp_path):
    code, report, _ = batch(tmp_path, "miss", "llm", fake.base_url, tmp_path / "empty", "--llm-cache", "replay",
                            "--only", "relu")
    assert code == 1 and not fake.requests
    assert all("replay mode: no cached model answer" in r["message"] for r in report["rows"])


def test_hybrid_batch_seeds_with_poly_and_runs_end_to_end(fake, tmp_path):
    code, report, output = batch(tmp_path, "hybrid", "hybrid", fake.base_url, tmp_path / "llm-cache")
    rows = {r["kernel"]: r for r in report["rows"]}
    assert code == 0, output[-3000:]
    assert {k: r["status"] for k, r in rows.items()} == dict.fromkeys(SPECS, "accepted")
    assert all(r["evolution"][0]["origin"] == "poly" for r in rows.values())
    assert rows["histogram"]["llm_calls"] == 2 and rows["relu"]["llm_calls"] == 0   # the IS only


@pytest.mark.full
@pytest.mark.parametrize("generator", ["llm", "hybrid"])
def test_the_whole_corpus_through_the_model_path(fake, tmp_path, generator, monkeypatch):
    """Every spec of corpora/text2cuda, the prose-only ones included: the model writes their
    IS, then the kernels (the scripted model answers unscripted kernels with poly's candidate)."""
    monkeypatch.setattr(sys.modules[__name__], "SPECS", ())
    code, report, output = batch(tmp_path, generator, generator, fake.base_url, tmp_path / "llm-cache",
                                 "--llm-population", "1")
    rows = {r["kernel"]: r for r in report["rows"]}
    specs = sorted(p.stem for p in (ROOT / "corpora" / "text2cuda").glob("*.md") if p.stem != "README")
    assert code == 0, output[-3000:]
    assert sorted(rows) == specs and len(specs) >= 30
    assert {k: r["status"] for k, r in rows.items()} == dict.fromkeys(specs, "accepted")
    for prose_only in ("histogram", "stream_compaction"):
        assert rows[prose_only]["stages"]["parse"]["summary"].startswith(f"{prose_only}: IS written by the model")
    origin = "poly" if generator == "hybrid" else "model"
    assert all(r["evolution"][0]["origin"] == origin for r in rows.values())


def test_a_missing_model_is_a_usage_error(tmp_path):
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "batch", str(ROOT / "corpora" / "text2cuda"),
                        "--only", "relu", "--generator", "llm", "--backend", "emu"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env={k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "T2C_LLM_"))}
                       | {"PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and "needs a model" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("generator", ["llm"])
def test_gen_writes_a_candidate_with_the_model(fake, tmp_path, generator):
    out = tmp_path / "relu.cu"
    env = dict(os.environ, PYTHONPATH=str(ROOT), T2C_CACHE_DIR=str(tmp_path / "cache"), T2C_TEST_KEY=KEY)
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "gen", str(ROOT / "corpora/text2cuda/relu.md"),
                        "--generator", generator, "--backend", "emu", "-o", str(out), "--llm-base-url",
                        fake.base_url, "--llm-model", "fake-coder", "--llm-api-key-env", "T2C_TEST_KEY",
                        "--llm-population", "1"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "relu_device" in out.read_text() and "2 candidate(s), 2 model call(s)" in r.stderr
