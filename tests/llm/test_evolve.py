"""Intermediate-structured generation and the repair loop, against the fake server on emu.

The scripted model (scripted.py) fails first in the ways that matter: a build error, a wrong
result, a cheat, an answer without code, an IS t2c refuses.  Each test shows the ladder's
verdict feeding the next prompt and the loop ending on a correct candidate, and that no
prompt carries a seed or an expected value."""
import json
import re
from dataclasses import replace

import pytest

from t2c.errors import UserError
from t2c.frontends import read_kernel
from t2c.frontends.prose import load_spec
from t2c.generators.llm import evolution_seed, generate, write_is
from t2c.generators.llm.client import Client
from t2c.generators.llm.prompts import extract
from t2c.ir import to_yaml
from t2c.verify.ladder import ladder
from llmtest import SPECS

SEED = 987654321


def evolve(name, cfg, env, **kw):
    k = read_kernel(SPECS / f"{name}.md")
    got = generate(k, replace(cfg, population=1, **kw), backend="emu", dataset="MINI", seed=SEED,
                   client=Client(replace(cfg, **kw), env))
    return k, got


def prompts(fake) -> str:
    return json.dumps([r["body"]["messages"] for r in fake.requests])


def assert_no_test_data(fake):
    text = prompts(fake)
    for secret in (str(SEED), str(evolution_seed(SEED))):
        assert secret not in text
    assert not re.search(r"expected [-+]?[\d.]|\] = [-+]?[\d.]", text)      # no compared values


def test_a_build_error_is_repaired(fake, cfg, env):
    k, got = evolve("relu", cfg, env)
    assert [s["status"] for s in got.lineage] == ["rejected at build", "accepted"]
    assert got.lineage[1]["origin"] == "repair of 0"
    repair = fake.requests[1]["body"]["messages"][-1]["content"]
    assert "`build` step: compile error" in repair and "Compiler output" in repair
    assert ladder(k, got.source, backend="emu", dataset="MINI", seed=1, bench=False).accepted
    assert got.ledger.calls == 2 and got.ledger.tokens_in > 0
    assert_no_test_data(fake)


def test_a_wrong_result_is_repaired_without_showing_values(fake, cfg, env):
    _, got = evolve("axpy", cfg, env)
    assert [s["status"] for s in got.lineage] == ["rejected at smoke", "accepted"]
    repair = fake.requests[1]["body"]["messages"][-1]["content"]
    assert "output mismatch" in repair and "y[" in repair and "is wrong" in repair
    assert_no_test_data(fake)


def test_a_cheat_is_rejected_and_never_selected(fake, cfg, env):
    _, got = evolve("gemv", cfg, env, rounds=1)
    assert [s["status"] for s in got.lineage] == ["rejected at random"]
    assert got.stop_reason == "1 round(s) done"
    _, got = evolve("gemv", cfg, env)                       # with a round left, it is repaired
    assert [s["status"] for s in got.lineage] == ["rejected at random", "accepted"]
    assert "SMALL" not in got.source and "i >= 7" not in got.source


def test_an_answer_without_code_is_asked_again(fake, cfg, env):
    answers = iter([{"text": "Sure! CUDA is great."}])
    scripted = fake.responder
    fake.responder = lambda request: next(answers, None) or scripted(request)
    _, got = evolve("relu", cfg, env, rounds=3)
    assert [s["status"] for s in got.lineage] == ["no code", "accepted"]
    assert "no complete ```cuda block" in fake.requests[1]["body"]["messages"][-1]["content"]


def test_the_call_budget_stops_the_evolution(fake, cfg, env):
    _, got = evolve("relu", cfg, env, max_calls=1)
    assert got.ledger.calls == 1 and "call budget spent" in got.stop_reason
    assert got.source is not None and got.lineage[0]["status"] == "rejected at build"


def test_hybrid_starts_from_the_poly_candidate(fake, cfg, env):
    k = read_kernel(SPECS / "relu.md")
    got = generate(k, cfg, backend="emu", dataset="MINI", seed=SEED, hybrid=True, client=Client(cfg, env))
    assert got.lineage == [{"step": 0, "origin": "poly", "status": "accepted", "reason": "",
                            "kernel_ms": None}]
    assert not fake.requests                   # emu measures no speed: poly's correct one stands


def test_the_model_writes_the_is_of_a_prose_only_spec_and_t2c_checks_it(fake, cfg, env):
    got = write_is(load_spec(SPECS / "histogram.md"), cfg, Client(cfg, env))
    assert len(fake.requests) == 2
    refusal = fake.requests[1]["body"]["messages"][-1]["content"]
    assert "call to 'bzero' is not supported" in refusal
    assert "x[i] == v" in got.text and got.kernel.name == "histogram"
    assert [a.name for a in got.kernel.arrays] == ["x", "hist"] and "hist[v]" in to_yaml(got.kernel)
    assert "integers(0, 7)" in fake.requests[0]["body"]["messages"][-1]["content"]


def test_a_model_that_never_writes_a_valid_is_is_a_user_error(fake, cfg, env):
    fake.responder = lambda r: {"text": "```c\nint nothing;\n```"}
    with pytest.raises(UserError, match="did not write a usable IS"):
        write_is(load_spec(SPECS / "histogram.md"), replace(cfg, rounds=2), Client(cfg, env))
    assert len(fake.requests) == 2


def test_code_is_read_from_fenced_blocks_only():
    assert extract("```cuda\nint a;\n```", ("cuda",)) == "int a;\n"
    assert extract("text\n```\nint b;\n```\n", ("cuda",)) == "int b;\n"
    assert extract("```python\nx = 1\n```", ("cuda",)) is None
    assert extract("```cuda\nint cut_off_by_the_token_lim", ("cuda",)) is None
    assert extract("no code here", ("cuda",)) is None


def test_an_is_in_t2c_statements_is_read_with_the_spec_language(fake, cfg, env, tmp_path):
    spec = tmp_path / "relu.md"
    text = (SPECS / "relu.md").read_text()
    spec.write_text(text[:text.index("```t2c")])                   # prose only now
    fake.responder = lambda r: {"text": "```t2c\ny[i] = max(x[i], 0.0)\n```"}
    got = write_is(load_spec(spec), cfg, Client(cfg, env))
    assert got.kernel.key() == read_kernel(SPECS / "relu.md").key()
