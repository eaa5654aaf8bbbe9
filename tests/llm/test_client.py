"""The client against a real HTTP server: retries, cut answers, garbage, cache modes, the limit."""
import json
import threading
import time
from dataclasses import replace

import pytest

from llmtest import KEY
from fakellm import FakeLLM
from t2c.errors import EndpointFailed, UserError
from t2c.generators.llm.budget import RunBudget, RunBudgetSpent
from t2c.generators.llm.cache import ReplayMiss
from t2c.generators.llm.client import Client, LLMUnavailable

HELLO = [{"role": "user", "content": "say hello"}]


def test_429_is_retried_after_the_time_retry_after_asks(fake, cfg, env):
    fake.script = [{"status": 429, "headers": {"Retry-After": "1"}}, {"text": "hello"}]
    start = time.monotonic()
    reply = Client(cfg, env).complete(HELLO)
    assert reply.text == "hello" and not reply.cached
    assert len(fake.requests) == 2
    assert fake.requests[1]["time"] - fake.requests[0]["time"] >= 0.9
    assert time.monotonic() - start < 10
    assert reply.usage["completion_tokens"] == 1


def test_5xx_cut_bodies_and_garbage_are_retried(fake, cfg, env):
    fake.script = [{"status": 503, "headers": {"Retry-After": "0"}}, {"cut": True}, {"garbage": True},
                   {"text": "at last"}]
    reply = Client(replace(cfg, retries=4), env).complete(HELLO)
    assert reply.text == "at last" and len(fake.requests) == 4


def test_a_cut_stream_is_retried(fake, cfg, env):
    text = "x" * 1000
    fake.script = [{"text": text, "cut_after": 2}, {"text": text}]
    reply = Client(replace(cfg, stream=True), env).complete(HELLO)
    assert reply.text == text and reply.finish_reason == "stop" and len(fake.requests) == 2
    assert all(r["body"]["stream"] for r in fake.requests)


def test_an_endpoint_that_keeps_failing_is_a_user_error(fake, cfg, env):
    fake.script = [{"status": 500}] * 20
    with pytest.raises(LLMUnavailable, match="no usable answer from the model endpoint"):
        Client(replace(cfg, retries=1), env).complete(HELLO)


def test_a_refused_request_names_the_status_and_never_the_key(fake, cfg, env):
    fake.script = [{"status": 401, "message": f"bad key {KEY}"}]
    with pytest.raises(UserError) as e:
        Client(cfg, env).complete(HELLO)
    assert "401" in str(e.value) and KEY not in str(e.value)
    headers = {k.lower(): v for k, v in fake.requests[0]["headers"].items()}
    assert headers["authorization"] == f"Bearer {KEY}"            # the key is used, and only there


def test_cache_modes(fake, cfg, env, tmp_path):
    fake.responder = lambda request: {"text": f"answer {len(fake.requests)}"}
    first = Client(cfg, env).complete(HELLO)
    again = Client(cfg, env).complete(HELLO)                       # rw: a hit
    assert (first.text, again.text, again.cached, len(fake.requests)) == ("answer 1", "answer 1", True, 1)
    assert Client(replace(cfg, cache="replay"), env).complete(HELLO).text == "answer 1"
    with pytest.raises(ReplayMiss, match="replay mode"):
        Client(replace(cfg, cache="replay"), env).complete(HELLO, sample=1)
    assert len(fake.requests) == 1                                # replay never asks
    assert Client(replace(cfg, cache="refresh"), env).complete(HELLO).text == "answer 2"
    assert Client(cfg, env).complete(HELLO).text == "answer 2"      # refresh overwrote it
    off = Client(replace(cfg, cache="off", cache_dir=str(tmp_path / "off")), env)
    assert off.complete(HELLO).text == "answer 3" and not (tmp_path / "off").exists()
    entries = list((tmp_path / "llm-cache").rglob("*.json"))
    assert len(entries) == 1
    entry = json.loads(entries[0].read_text())
    assert entry["request"]["messages"] == HELLO and "base_url" not in json.dumps(entry)
    assert KEY not in entries[0].read_text()


def test_the_concurrency_limit_holds_per_endpoint(fake, cfg, env):
    fake.delay = 0.3
    fake.responder = lambda request: {"text": "ok"}
    client = Client(replace(cfg, concurrency=1, cache="off"), env)
    threads = [threading.Thread(target=client.complete, args=(HELLO, i)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(fake.requests) == 3 and fake.max_in_flight == 1


def test_no_model_is_a_user_error(cfg, env):
    with pytest.raises(UserError, match="needs a model"):
        Client(replace(cfg, model=None), env)


def test_the_server_helper_speaks_openai(fake):
    with FakeLLM(script=[{"text": "hi"}]) as other:
        assert other.base_url != fake.base_url


# -- one retry policy, a bounded budget (issue #38) -------------------------------------------

def test_one_retry_policy_a_failing_call_costs_retries_plus_one_requests(fake, cfg, env):
    """The SDK's own retries are off: 500 always costs 1 + retries requests, spaced by a
    doubling backoff, and the message counts what was sent."""
    fake.responder = lambda request: {"status": 500}
    with pytest.raises(EndpointFailed, match=r"after 4 request\(s\) \(1 \+ 3 retries\)"):
        Client(replace(cfg, retries=3, backoff=0.05), env).complete(HELLO)
    assert len(fake.requests) == 4
    gaps = [b["time"] - a["time"] for a, b in zip(fake.requests, fake.requests[1:])]
    assert gaps[0] >= 0.05 and gaps[1] >= 0.1 and gaps[2] >= 0.2       # 0.05, 0.1, 0.2


def test_a_429_without_retries_is_sent_once(fake, cfg, env):
    fake.responder = lambda request: {"status": 429}
    with pytest.raises(EndpointFailed, match="HTTP 429"):
        Client(replace(cfg, retries=0), env).complete(HELLO)
    assert len(fake.requests) == 1


def test_retry_after_is_honoured_up_to_backoff_max(fake, cfg, env):
    fake.script = [{"status": 429, "headers": {"Retry-After": "3600"}}, {"text": "hello"}]
    reply = Client(replace(cfg, backoff=0.01, backoff_max=0.3), env).complete(HELLO)
    gap = fake.requests[1]["time"] - fake.requests[0]["time"]
    assert reply.text == "hello" and 0.25 <= gap < 60


def test_a_dead_endpoint_is_reported_after_its_first_connection_failure(cfg, env):
    """Nothing listens on the port: no retry (a backoff of minutes would show), exit 6's class."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]                  # bound, never listening: refused
        dead = replace(cfg, base_url=f"http://127.0.0.1:{port}/v1", retries=4, backoff=120)
        start = time.monotonic()
        with pytest.raises(EndpointFailed, match="cannot connect to the model endpoint"):
            Client(dead, env).complete(HELLO)
    assert time.monotonic() - start < 60


def test_an_answer_without_choices_is_retried_then_an_endpoint_failure(fake, cfg, env):
    fake.responder = lambda request: {"no_choices": True}
    with pytest.raises(EndpointFailed, match="no choices"):
        Client(replace(cfg, retries=1), env).complete(HELLO)
    assert len(fake.requests) == 2


def test_a_slow_endpoint_times_out_per_request(fake, cfg, env):
    fake.responder = lambda request: {"text": "late", "delay": 3}
    with pytest.raises(EndpointFailed, match=r"no answer within 0.5 s"):
        Client(replace(cfg, retries=1, timeout=0.5), env).complete(HELLO)
    assert len(fake.requests) == 2


def test_the_run_budget_bounds_requests_across_clients(fake, cfg, env, tmp_path):
    """Two clients (two kernels of a batch) share one budget file; retries count."""
    fake.responder = lambda request: {"status": 503}
    tight = replace(cfg, retries=10, max_run_requests=3, cache="off")
    run = RunBudget(tight, tmp_path / "run.json")
    with pytest.raises(RunBudgetSpent, match=r"run request budget spent \(3 of 3"):
        Client(tight, env, run=run).complete(HELLO)
    with pytest.raises(RunBudgetSpent):
        Client(tight, env, run=RunBudget(tight, tmp_path / "run.json")).complete(HELLO)
    assert len(fake.requests) == 3 and run.totals()["requests"] == 3


def test_the_run_budget_counts_fresh_tokens_only(fake, cfg, env):
    fake.responder = lambda request: {"text": "x" * 400}
    run = RunBudget(replace(cfg, max_run_tokens=150))
    client = Client(replace(cfg, max_run_tokens=150), env, run=run)
    client.complete(HELLO)                                   # 2 + 100 tokens
    assert run.totals() == {"requests": 1, "tokens": 102}
    client.complete(HELLO)                                   # cached: free
    client.complete(HELLO, sample=1)                         # 204 tokens: now over
    with pytest.raises(RunBudgetSpent, match="run token budget spent"):
        client.complete(HELLO, sample=2)
    assert len(fake.requests) == 2
