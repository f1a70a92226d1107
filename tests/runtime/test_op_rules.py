"""Every op has every rule kind, or says why not (see runtime/ops/registry.py)."""

import operator

import numpy as np
import pytest

import runtime  # noqa: F401 - defines every op
from runtime.ops.registry import (
    CONST,
    CONTROL_FLOW,
    ELEMENTWISE,
    FUSED,
    GRADIENT,
    JAX,
    KNOWN_VALUE,
    NUMBA,
    ONNX,
    PLACEHOLDER,
    REGISTRY,
    RULE_KINDS,
    define_op,
    lacks,
    register_rule,
)

OPS = sorted(REGISTRY.values(), key=lambda opdef: opdef.name)
# Kinds an op may simply not have: the op works without them (KNOWN_VALUE: nothing is known of
# the value while tracing).
OPTIONAL = (KNOWN_VALUE,)


def _status(opdef, kind):
    has, reason = opdef.rule(kind) is not None, opdef.lacking.get(kind)
    assert not (has and reason), f"{opdef.name} has a {kind} rule and says it lacks one"
    assert reason is None or (isinstance(reason, str) and len(reason) > 10), (opdef.name, kind)
    return has or reason is not None


def test_every_rule_kind_is_covered_by_this_test():
    assert set(RULE_KINDS) == {FUSED, KNOWN_VALUE, ONNX, GRADIENT, NUMBA, JAX}


@pytest.mark.parametrize("opdef", OPS, ids=lambda opdef: opdef.name)
def test_ops_have_a_numba_lowering_or_say_why_not(opdef):
    from runtime.executor import numba_rules  # noqa: F401 - registers the lowerings

    assert _status(opdef, NUMBA), f"{opdef.name}: no numba lowering and no reason"


@pytest.mark.parametrize("opdef", OPS, ids=lambda opdef: opdef.name)
def test_op_is_defined_completely(opdef):
    assert opdef.infer is not None or opdef is CONST  # a Const's value decides its output
    assert callable(opdef.kernel) or CONTROL_FLOW in opdef.groups  # the executor runs those
    assert opdef.verify is not None or CONTROL_FLOW not in opdef.groups


@pytest.mark.parametrize("opdef", OPS, ids=lambda opdef: opdef.name)
def test_elementwise_ops_have_a_fused_form_or_say_why_not(opdef):
    if ELEMENTWISE in opdef.groups:
        assert _status(opdef, FUSED), f"{opdef.name}: no fused form and no reason"
        form = opdef.rule(FUSED)
        assert form is None or all(isinstance(step[0], str) for step in form)
    else:
        assert opdef.rule(FUSED) is None and FUSED not in opdef.lacking


@pytest.mark.parametrize("opdef", OPS, ids=lambda opdef: opdef.name)
def test_ops_have_an_onnx_rule_or_say_why_not(opdef):
    pytest.importorskip("onnx")
    from runtime.onnx import rules  # noqa: F401 - registers the ONNX rules

    assert _status(opdef, ONNX), f"{opdef.name}: no ONNX rule and no reason"


@pytest.mark.parametrize("opdef", OPS, ids=lambda opdef: opdef.name)
def test_ops_have_a_gradient_rule_or_say_why_not(opdef):
    import runtime.autodiff  # noqa: F401 - registers the rules of If and While

    assert _status(opdef, GRADIENT), f"{opdef.name}: no gradient rule and no reason"
    assert opdef.rule(GRADIENT) is None or callable(opdef.rule(GRADIENT))


def test_optional_rules_are_callables():
    for opdef in OPS:
        for kind in OPTIONAL:
            assert opdef.rule(kind) is None or callable(opdef.rule(kind)), (opdef.name, kind)
    assert {opdef.name for opdef in OPS if opdef.rule(KNOWN_VALUE)} == {
        "Const", "Shape", "Cast", "Pack", "StridedSlice"}


@pytest.mark.parametrize("opdef", OPS, ids=lambda opdef: opdef.name)
def test_ops_have_a_jax_lowering_or_say_why_not(opdef):
    assert _status(opdef, JAX), f"{opdef.name}: no JAX lowering and no reason"


def test_rules_are_registered_once_against_known_kinds():
    with pytest.raises(ValueError, match="unknown rule kind"):
        register_rule("onnx_v2", PLACEHOLDER)
    with pytest.raises(ValueError, match="already has a fused rule"):
        lacks(FUSED, "a second word on the same op", REGISTRY["Sigmoid"])
    with pytest.raises(ValueError, match="defined twice"):
        define_op("Add", infer=None, kernel=None)


def test_rules_derived_from_a_declaration_yield_to_registered_ones():
    """An op declared as a ufunc gets the rules its declaration gives (runtime/ops/math_ops.py);
    a rule registered for the op, or `lacks`, takes precedence."""
    tanh, power, add = REGISTRY["Tanh"], REGISTRY["Pow"], REGISTRY["Add"]
    assert tanh.elementwise.ufunc == "tanh" and tanh.kernel is np.tanh
    assert tanh.rule(FUSED) == (("tanh", "a"),) and add.rule(FUSED) == (("add", "a", "b"),)
    assert power.rule(FUSED) is None and FUSED in power.lacking
    assert add.rule(JAX) is not None and add.kernel is operator.add
