"""The IS's facts: an IS may carry them (its YAML form keeps them); reading a kernel counts
nothing, and the bench counts its one case where it asks (verify.rungs._counts)."""
import dataclasses

import pytest

from t2ctest import POLYBENCH
from t2c.analysis import analyze, facts
from t2c.analysis.cost import counts
from t2c.engine.stages import parse_run
from t2c.frontends import read_kernel
from t2c.ir import Count, Facts, from_yaml, to_yaml
from t2c.verify import rungs
from t2c.verify.rungs import _counts

GEMM = POLYBENCH / "linear-algebra/blas/gemm/gemm.c"


def test_facts_count_each_preset_up_to_a_dataset():
    k = read_kernel(GEMM)
    an = analyze(k)
    f = facts(k, "SMALL")
    assert f.affine and "i@0" in f.parallel_loops
    assert f.counts == tuple(Count(d, *counts(an, k.dataset_sizes(d))) for d in ("MINI", "SMALL"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.counts = ()
    k = k.replace(facts=f)
    assert k.count_at(k.dataset_sizes("SMALL")) == f.counts[1]
    assert k.count_at(k.dataset_sizes("MEDIUM")) is None            # beyond that dataset: not counted
    assert k.key() == read_kernel(GEMM).key()                        # facts are not the contract


def test_facts_survive_the_yaml_form():
    k = read_kernel(GEMM)
    k = k.replace(facts=facts(k, "MINI"))
    assert from_yaml(to_yaml(k)).facts == k.facts


def test_reading_and_the_parse_stage_count_nothing(tmp_path, monkeypatch):
    """Counting walks isl points (seconds per kernel at LARGE), and only the bench on a GPU
    reports the counts: a parse that counted made every run pay, emu runs and tests too."""
    def no_counting(*_):
        raise AssertionError("counted at parse")
    monkeypatch.setattr("t2c.analysis.counts", no_counting)
    assert read_kernel(GEMM).facts is None
    ctx = {"source": str(GEMM), "settings": {"dataset": "LARGE", "generator": "poly"}}
    assert parse_run(ctx, tmp_path)["status"] == "ok"
    assert from_yaml((tmp_path / "is.yaml").read_text()).facts is None


def test_the_bench_counts_its_case_on_demand_or_reads_the_facts(monkeypatch):
    """A kernel without facts is counted at the bench case's sizes alone; one whose IS carries
    facts is never counted again: the bench's figures are the facts' numbers."""
    k = read_kernel(GEMM)
    mini = k.dataset_sizes("MINI")
    monkeypatch.setattr(rungs, "_LAST_COUNTS", {})
    assert _counts(k, mini) == dict(zip(("flops", "bytes"), counts(analyze(k), mini)))
    planted = k.replace(facts=Facts(affine=True, counts=(Count("MINI", 7, 11),)))
    assert _counts(planted, mini) == {"flops": 7, "bytes": 11}
    assert _counts(planted, k.dataset_sizes("SMALL")) == {}            # not counted for this run
    assert _counts(k.replace(facts=Facts(affine=False)), mini) == {}  # outside the model
