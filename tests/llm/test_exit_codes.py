"""`t2c gen` and `t2c batch` with `--generator llm|hybrid` against the eight fake endpoints of
issue #38 (scripted.SCENARIOS): each run exits with the code cli.py documents (0 accepted,
1 no candidate passed the ladder, 6 the model endpoint failed), `gen` writes a file only
when the ladder accepted it, and a failing endpoint costs 1 + retries requests."""
import json
import socket

import pytest

from fakellm import FakeLLM
from scripted import SCENARIOS
from t2ctest import ROOT, t2c_cli

AXPY = ROOT / "corpora" / "text2cuda" / "axpy.md"
#: One request and one retry, no waiting to speak of; the slow scenario answers after 4 s.
FLAGS = ("--llm-cache", "off", "--llm-retries", "1", "--llm-backoff", "0.01", "--llm-timeout", "1",
         "--llm-population", "1", "--llm-rounds", "2")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """One build cache for every scenario: the reference and a good candidate are built once."""
    return tmp_path_factory.mktemp("t2c-cache")


t2c = t2c_cli


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_gen_exit_codes(scenario, tmp_path, cache_dir):
    script, responder, code = SCENARIOS[scenario]
    out = tmp_path / "out.cu"
    with FakeLLM(responder=responder, script=script) as fake:
        r = t2c(["gen", AXPY, "--generator", "llm", "--backend", "emu", "--llm-base-url", fake.base_url,
                 "--llm-model", scenario, *FLAGS, "-o", out], tmp_path, cache_dir)
    assert r.returncode == code, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    assert out.exists() == (code == 0)                    # only an accepted candidate is written
    assert "model requests:" in r.stderr and "of 200 request(s)" in r.stderr
    if code == 1:
        rung = {"no-compile": "rejected at build: compile error",
                "zeros": "rejected at smoke: output mismatch"}[scenario]
        assert f"no candidate passed the ladder on emu (2 round(s) done); best attempt: step 0 (model), {rung}" \
            in r.stderr
        assert not list(tmp_path.glob("*.rejected.cu"))
    if code == 6:
        assert len(fake.requests) == 2 and "after 2 request(s) (1 + 1 retries)" in r.stderr


def test_gen_keep_rejected_keeps_the_best_attempt_under_a_name_that_says_so(tmp_path, cache_dir):
    script, responder, _ = SCENARIOS["zeros"]
    with FakeLLM(responder=responder, script=script) as fake:
        r = t2c(["gen", AXPY, "--generator", "llm", "--backend", "emu", "--llm-base-url", fake.base_url,
                 "--llm-model", "zeros", *FLAGS, "-o", tmp_path / "axpy.cu", "--keep-rejected"], tmp_path, cache_dir)
    assert r.returncode == 1 and not (tmp_path / "axpy.cu").exists()
    assert "y[i] = 0.0f;" in (tmp_path / "axpy.rejected.cu").read_text()
    assert "kept in" in r.stderr and "axpy.rejected.cu" in r.stderr


def test_gen_against_a_dead_endpoint_exits_6_after_one_attempt(tmp_path, cache_dir):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))                            # bound, never listening: refused
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        r = t2c(["gen", AXPY, "--generator", "llm", "--backend", "emu", "--llm-base-url", url,
                 "--llm-model", "dead", "--llm-backoff", "300", "-o", tmp_path / "out.cu"], tmp_path, cache_dir)
    assert r.returncode == 6 and "cannot connect to the model endpoint" in r.stderr
    assert "1 of 200 request(s)" in r.stderr and not (tmp_path / "out.cu").exists()


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_batch_exit_codes(scenario, tmp_path, cache_dir):
    script, responder, code = SCENARIOS[scenario]
    with FakeLLM(responder=responder, script=script) as fake:
        r = t2c(["batch", ROOT / "corpora" / "text2cuda", "--only", "axpy", "--generator", "llm",
                 "--backend", "emu", "--dataset", "MINI", "--seed", "7", "-j", "1", "--report-dir", tmp_path / "report",
                 "--llm-base-url", fake.base_url, "--llm-model", scenario, *FLAGS], tmp_path, cache_dir)
    assert r.returncode == code, (r.stdout + r.stderr)[-3000:]
    assert "Traceback" not in r.stderr and "of 200 request(s)" in r.stderr
    row = json.loads((tmp_path / "report" / "results.json").read_text())["rows"][0]
    status = {0: "accepted", 1: "failed", 6: "endpoint"}[code]
    assert row["status"] == status, row["message"]
    if code == 6:
        assert len(fake.requests) == 2 and "model endpoint failed (exit 6)" in r.stderr
    if scenario == "zeros":      # issue #38, 5: the column shows what the ladder measured
        assert row["max_error"] and row["max_error"] > 1, row


def test_batch_does_not_cache_an_endpoint_failure(tmp_path, cache_dir):
    """The second run, with the server back, asks again instead of replaying the failure."""
    args = ["batch", ROOT / "corpora" / "text2cuda", "--only", "axpy", "--generator", "llm", "--backend", "emu",
            "--dataset", "MINI", "--seed", "7", "-j", "1", "--llm-model", "flaky", *FLAGS]
    with FakeLLM(responder=SCENARIOS["500-always"][1]) as down:
        assert t2c([*args, "--llm-base-url", down.base_url], tmp_path, cache_dir).returncode == 6
    with FakeLLM(responder=SCENARIOS["correct"][1]) as up:
        r = t2c([*args, "--llm-base-url", up.base_url], tmp_path, cache_dir)
    assert r.returncode == 0, r.stderr[-2000:]
    assert len(up.requests) == 1


@pytest.mark.parametrize("spec, code, asked", [("axpy", 0, 0), ("histogram", 6, 2)])
def test_hybrid_batch_exit_codes_against_a_failing_endpoint(spec, code, asked, tmp_path, cache_dir):
    """hybrid on emu: poly's accepted axpy needs no model (0, no request); histogram is prose
    only, its IS must come from the model, which fails (6)."""
    with FakeLLM(responder=SCENARIOS["500-always"][1]) as fake:
        r = t2c(["batch", ROOT / "corpora" / "text2cuda", "--only", spec, "--generator", "hybrid",
                 "--backend", "emu", "--dataset", "MINI", "--seed", "7", "-j", "1", "--llm-base-url",
                 fake.base_url, "--llm-model", "500-always", *FLAGS], tmp_path, cache_dir)
    assert r.returncode == code, (r.stdout + r.stderr)[-3000:]
    assert len(fake.requests) == asked
