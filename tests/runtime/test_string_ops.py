"""String tensors: `rt.strings.join` and `+`, eagerly, in compiled graphs and in the
interpreter (0-d strings are `bytes`, others object arrays of `bytes`)."""

import numpy as np
import pytest
from op_testing import check_op

import runtime as rt


def strings(*values):
    out = np.empty(len(values), dtype=object)
    out[:] = [v.encode() for v in values]
    return out


def test_constant_strings():
    assert rt.constant("hi").numpy() == b"hi"
    assert rt.constant("hi").dtype is rt.string
    t = rt.constant(["a", "bc"])
    assert t.shape == (2,) and t.numpy().tolist() == [b"a", b"bc"]


def test_join_scalars():
    out = check_op(lambda a, b: rt.strings.join([a, b], separator=", "),
                   lambda a, b: b"hello, world", b"hello", b"world")
    assert out.numpy() == b"hello, world"


def test_join_broadcasts_elementwise():
    check_op(lambda a, b: rt.strings.join([a, b, "!"], separator="-"),
             lambda a, b: strings("x-1-!", "y-1-!"), strings("x", "y"), b"1")
    check_op(lambda a: rt.strings.join([a]), lambda a: a, strings("p", "q"))


def test_plus_concatenates_strings():
    check_op(lambda a, b: a + b, lambda a, b: b"foobar", b"foo", b"bar")
    check_op(lambda a: a + "!", lambda a: strings("a!", "b!"), strings("a", "b"))
    check_op(lambda a: "<" + a, lambda a: b"<x", b"x")
    check_op(rt.add, lambda a, b: strings("ac", "bd"), strings("a", "b"), strings("c", "d"))


def test_string_equality():
    check_op(lambda a, b: a == b, lambda a, b: np.True_, b"ab", b"ab")
    check_op(rt.not_equal, lambda a, b: np.True_, b"ab", b"a")
    check_op(lambda a: rt.equal(a, "y"), lambda a: np.array([False, True]), strings("x", "y"))
    with pytest.raises(TypeError, match="string"):
        rt.less(rt.constant("a"), rt.constant("b"))


def test_string_errors():
    with pytest.raises(TypeError, match="string"):
        rt.strings.join([rt.constant("a"), rt.constant(1)])
    with pytest.raises(TypeError, match=r"rt\.cast|string"):
        rt.constant("a") + rt.constant(1)
    with pytest.raises(TypeError, match="string"):
        rt.constant("a") * 2
    with pytest.raises(rt.errors.InvalidArgumentError, match="broadcast"):
        rt.strings.join([rt.constant(["a", "b"]), rt.constant(["a", "b", "c"])])


def test_print_of_strings_decodes(capsys):
    @rt.function(autograph=False)
    def f(a):
        rt.print("got", a)
        return a

    f(rt.constant("héllo"))
    assert capsys.readouterr().out == "got héllo\n"
