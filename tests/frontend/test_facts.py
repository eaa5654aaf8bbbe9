"""The IS's facts: filled once where a run parses the kernel, kept with the IS, read by the bench."""
import dataclasses

import pytest

from t2ctest import POLYBENCH
from t2c.analysis import analyze
from t2c.analysis.cost import counts
from t2c.engine.stages import parse_run
from t2c.frontends import read_kernel
from t2c.ir import Count, Facts, from_yaml, to_yaml
from t2c.verify.rungs import _counts

GEMM = POLYBENCH / "linear-algebra/blas/gemm/gemm.c"


def test_a_run_parse_fills_exact_counts_at_each_preset_up_to_its_dataset():
    k = read_kernel(GEMM, dataset="SMALL")
    an = analyze(k)
    assert k.facts.affine and "i@0" in k.facts.parallel_loops
    assert k.facts.counts == tuple(Count(d, *counts(an, k.dataset_sizes(d))) for d in ("MINI", "SMALL"))
    assert k.count_at(k.dataset_sizes("SMALL")) == k.facts.counts[1]
    assert k.count_at(k.dataset_sizes("MEDIUM")) is None            # beyond the run's dataset: not counted
    with pytest.raises(dataclasses.FrozenInstanceError):
        k.facts.counts = ()
    assert read_kernel(GEMM).facts is None                           # no run, no counting
    assert k.key() == read_kernel(GEMM).key()                        # facts are not the contract


def test_facts_survive_the_yaml_form():
    k = read_kernel(GEMM, dataset="MINI")
    assert from_yaml(to_yaml(k)).facts == k.facts


def test_the_parse_stage_keeps_the_facts_in_the_is(tmp_path):
    ctx = {"source": str(GEMM), "settings": {"dataset": "MINI", "generator": "poly"}}
    assert parse_run(ctx, tmp_path)["status"] == "ok"
    k = from_yaml((tmp_path / "is.yaml").read_text())
    assert [c.dataset for c in k.facts.counts] == ["MINI"]


def test_the_bench_reads_its_counts_from_the_facts():
    """A kernel with facts is never counted again: the bench's figures are the facts' numbers."""
    k = read_kernel(GEMM)
    mini = k.dataset_sizes("MINI")
    planted = k.replace(facts=Facts(affine=True, counts=(Count("MINI", 7, 11),)))
    assert _counts(planted, mini) == {"flops": 7, "bytes": 11}
    assert _counts(planted, k.dataset_sizes("SMALL")) == {}            # not counted for this run
    assert _counts(k.replace(facts=Facts(affine=False)), mini) == {}  # outside the model
