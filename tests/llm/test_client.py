"""The client against a real HTTP server: retries, cut answers, garbage, cache modes, the limit."""
import json
import threading
import time
from dataclasses import replace

import pytest

from llmtest import KEY
from fakellm import FakeLLM
from t2c.errors import UserError
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
    with pytest.raises(LLMUnavailable, match="no answer from the model endpoint"):
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
