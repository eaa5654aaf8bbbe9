"""The feedback loop, measured against a scripted multi-round conversation (issue #38, 4).

The scripted model (scripted.loop_responder) answers axpy with a kernel that writes zeros, then
a racy one, then a fixed one, then, asked for speed, a faster one and a slower one.  The ladder
is the real one on emu; emu measures no speed and its races rung does not see this race, so
the test gives the racy kernel the verdict a GPU's races rung gives, and the accepted kernels
their GPU times (measures_speed=True): what is measured is the loop, not the ladder.  It shows
that each failure goes back to the model (the rung, the first wrong element, the race), that
the fastest accepted candidate is kept, and that the call budget stops it."""
import json
from dataclasses import replace

from scripted import AXPY, AXPY_FAST, AXPY_RACY, AXPY_SLOW, loop_responder
from t2c.frontends import read_kernel
from t2c.generators.llm.client import Client
from t2c.generators.llm.evolve import Evolution
from t2c.verify.ladder import ladder
from llmtest import SPECS

GPU_MS = {AXPY: 2.0, AXPY_FAST: 1.0, AXPY_SLOW: 3.0}
RACE = "race: write-write race on y[3] between blocks 0 and 1 (racecheck)"


def test_the_loop_feeds_failures_back_keeps_the_best_and_stops_at_its_budget(fake, cfg, env):
    fake.responder = loop_responder
    k = read_kernel(SPECS / "axpy.md")

    def check(source, slower_than=None):
        ev = ladder(k, source, backend="emu", dataset="MINI", seed=11, bench=False)
        if source == AXPY_RACY:
            ev.accepted, ev.rung, ev.reason, ev.feedback = False, "races", "race", RACE
        elif ev.accepted:
            ev.timings = {"kernel_ms": {"median": GPU_MS[source]}}
        return ev

    budget = replace(cfg, population=1, rounds=10, max_calls=5)
    evo = Evolution(k, Client(budget, env), check, budget, measures_speed=True)
    best = evo.run()

    assert [(c.origin, c.record()["status"]) for c in evo.lineage] == [
        ("model", "rejected at smoke"), ("repair of 0", "rejected at races"), ("repair of 1", "accepted"),
        ("faster than 2", "accepted"), ("faster than 3", "accepted")]
    sent = [r["body"]["messages"][-1]["content"] for r in fake.requests]
    assert "`smoke` step: output mismatch" in sent[1] and "y[0] is wrong (the first wrong element)" in sent[1]
    assert "`races` step: race" in sent[2] and "write-write race on y[3]" in sent[2]
    assert sent[3].startswith("This version is correct. Its kernel takes 2 ms")
    assert sent[4].startswith("This version is correct. Its kernel takes 1 ms")
    assert best.step == 3 and best.source == AXPY_FAST and best.kernel_ms == 1.0     # the fastest
    assert evo.stop_reason == "call budget spent (5 of 5 calls)" and len(fake.requests) == 5
    assert "expected" not in json.dumps(sent)                     # no compared value goes back
    assert any("feedback on step 1: The verifier rejected it at the `races` step" in line for line in evo.log)
