"""The IS: frozen, keyed by content, validated, and its YAML form round-trips."""
import dataclasses

import pytest

from t2c.ir import Array, Domain, ISError, Kernel, Origin, Scalar, Size, from_yaml, to_yaml, validate

REF = "void axpy(int n, double a, double x[n], double y[n])\n{\n  for (int i = 0; i < n; i++)\n    y[i] += a * x[i];\n}\n"


def axpy(**changes) -> Kernel:
    k = Kernel(name="axpy", params=("n", "a", "x", "y"),
               sizes=(Size("n", (("MINI", 10), ("LARGE", 1000))),),
               scalars=(Scalar("a", "double"),),
               arrays=(Array("x", "double", ("n",), "in"), Array("y", "double", ("n",), "inout")),
               reference=REF, constraints=("n >= 1",),
               domains=(Domain("x", "uniform", -1.0, 1.0),),
               origin=Origin("axpy.c", "axpy", 3))
    return validate(k.replace(**changes))


def test_frozen_and_replace():
    k = axpy()
    with pytest.raises(dataclasses.FrozenInstanceError):
        k.name = "other"
    assert k.replace(description="y := a x + y").description == "y := a x + y"
    assert k.name == "axpy"


def test_key_covers_semantics_not_origin():
    k = axpy()
    assert k.key() == axpy(origin=Origin("elsewhere.c", "axpy", 99)).key()
    assert k.key() != axpy(reference=REF.replace("+=", "-=")).key()
    assert k.key() != axpy(sizes=(Size("n", (("MINI", 11),)),)).key()
    assert len(k.key()) == 20 and k.key() == axpy().key()


def test_yaml_round_trip():
    k = axpy()
    text = to_yaml(k)
    assert "reference: |" in text
    back = from_yaml(text)
    assert back == k and back.key() == k.key() and back.origin == k.origin


def test_dataset_sizes_and_missing_preset():
    k = axpy()
    assert k.dataset_sizes("MINI") == {"n": 10}
    with pytest.raises(ISError, match="no SMALL preset"):
        k.dataset_sizes("SMALL")


@pytest.mark.parametrize("change, message", [
    (dict(params=("n", "a", "x")), "do not match"),
    (dict(arrays=(Array("x", "double", ("n",), "in"), Array("y", "quad", ("n",), "inout"))), "element type"),
    (dict(arrays=(Array("x", "double", ("n",), "in"), Array("y", "double", ("n",), "sideways"))), "intent"),
    (dict(arrays=(Array("x", "double", ("n",), "in"), Array("y", "double", ("n",), "in"))), "no output"),
    (dict(domains=(Domain("x", "gaussian"),)), "kind"),
    (dict(domains=(Domain("zz", "uniform"),)), "not a parameter"),
])
def test_validation_names_the_fault(change, message):
    with pytest.raises(ISError, match=message):
        axpy(**change)


def test_inputs_and_outputs():
    k = axpy()
    assert [x.name for x in k.inputs] == ["a", "x", "y"]
    assert [x.name for x in k.outputs] == ["y"]


def test_domain_text_reads_back_to_the_same_bounds():
    """A bound `%g` would round (uint32's whole range, 4294967295 -> 4.29497e+09, past
    the type) is written with every digit; short bounds stay short."""
    assert Domain("x", "uniform", -1.0, 1.0).text() == "uniform(-1, 1)"
    assert Domain("p", "integers", 0.0, 4294967295.0).text() == "integers(0, 4294967295)"
    assert Domain("s", "uniform", 0.0, 0.123456789).text() == "uniform(0, 0.123456789)"
    assert Domain("i", "integers", 0.0, "v - 1").text() == "integers(0, v - 1)"
