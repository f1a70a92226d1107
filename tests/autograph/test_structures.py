"""The structure library (autograph/operators/structures.py) and the runtime's rules over it
(runtime/nest.py): round trips, key orders, paths, dict subclasses, namedtuples, sequence
subclasses, keys and descriptions."""

import collections
import random

import pytest

from autograph.operators import structures
from runtime import nest
from runtime.core.tensor import TensorShape

Point = collections.namedtuple("Point", "x y")
Other = collections.namedtuple("Other", "x y")
RUNTIME = {"sort_keys": True, "sequence_subclasses": True}


class MyList(list):
    pass


class MyTuple(tuple):
    pass


class Attributed(dict):
    """A dict subclass with an attribute, which a rebuilt one keeps."""

    tag = None


def _identical(a, b) -> bool:
    """Same types, dict key orders, defaultdict factories, attributes, and leaves (by identity)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (list(a) == list(b) and all(_identical(a[k], b[k]) for k in a)
                and getattr(a, "default_factory", None) is getattr(b, "default_factory", None)
                and getattr(a, "tag", None) == getattr(b, "tag", None))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    return a is b


def _random_value(rng, depth=0):
    if depth > 3 or rng.random() < 0.3:
        return rng.choice([1, 2.5, None, "s", b"b", True, object()])
    n = rng.randrange(4)
    kids = [_random_value(rng, depth + 1) for _ in range(n)]
    keys = rng.sample(["b", "a", 3, 1, ("t", 1), 2.5, None], n)
    kind = rng.randrange(9)
    if kind == 0:
        return kids
    if kind == 1:
        return tuple(kids)
    if kind == 2:
        return dict(zip(keys, kids))
    if kind == 3:
        return Point(_random_value(rng, depth + 1), _random_value(rng, depth + 1))
    if kind == 4:
        return MyList(kids)
    if kind == 5:
        return TensorShape(kids)
    if kind == 6:
        d = collections.defaultdict(list)
        d.update(zip(keys, kids))
        return d
    if kind == 7:
        return collections.OrderedDict(zip(keys, kids))
    d = Attributed(zip(keys, kids))
    d.tag = rng.random()
    return d


# ---- round trips -------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", [{}, RUNTIME, {"sort_keys": True}, {"sequence_subclasses": True}],
                         ids=["autograph", "runtime", "sorted", "subclasses"])
def test_every_way_to_take_a_value_apart_and_rebuild_it_agrees(rules):
    rng = random.Random(0)
    for _ in range(2000):
        value = _random_value(rng)
        leaves, tree = structures.flatten(value, **rules)
        assert all(a is b for a, b in zip(structures.leaves(value, **rules), leaves, strict=True))
        assert _identical(structures.unflatten(tree, iter(leaves)), value)
        assert _identical(structures.pack_sequence_as(value, leaves, **rules), value)
        assert _identical(structures.copy(value, sequence_subclasses=rules.get(
            "sequence_subclasses", False)), value)
        assert _identical(structures.map_with_paths(lambda v, p: v, value, **rules), value)
        paths = [p for p, _ in structures.flatten_with_paths(value, "v", **rules)]
        assert paths == ["v" + p for p in tree.paths()]
        fresh = [object() for _ in leaves]
        assert all(a is b for a, b in zip(structures.leaves(
            structures.unflatten(tree, iter(fresh)), **rules), fresh, strict=True))


def test_a_rebuilt_value_has_new_containers_around_the_same_leaves():
    leaf = object()
    value = {"a": [leaf, (leaf,)], "b": Point([1], leaf)}
    copied = structures.copy(value)
    assert _identical(copied, value) and copied is not value
    assert copied["a"] is not value["a"] and copied["b"].x is not value["b"].x
    assert structures.copy(leaf) is leaf


def test_pack_sequence_as_refuses_more_or_fewer_leaves():
    with pytest.raises(ValueError, match="more leaves than the structure has"):
        structures.pack_sequence_as([1, (2,)], [1, 2, 3])
    with pytest.raises(StopIteration):
        structures.pack_sequence_as([1, (2,)], [1])


def test_leaves_of_a_deep_structure_need_no_recursion():
    value = leaf = object()
    for _ in range(5000):
        value = [value]
    assert structures.leaves(value) == [leaf]
    assert nest.flatten(value) == [leaf]


# ---- key orders --------------------------------------------------------------------------------
def test_key_order_is_insertion_order_unless_sorted():
    value = {"b": 1, "a": 2, 10: 3, 9: 4}
    assert structures.leaves(value) == [1, 2, 3, 4]
    assert structures.leaves(value, sort_keys=True) == [2, 1, 3, 4]  # by repr: 'a' < 10 < 9
    assert [k for k, _ in structures.items(value)] == ["b", "a", 10, 9]
    assert [k for k, _ in structures.items(value, sort_keys=True)] == ["a", "b", 10, 9]
    assert structures.sorted_keys(value) == ["a", "b", 10, 9]
    assert nest.flatten(value) == [2, 1, 3, 4]
    assert [k for k, _ in nest.items(value)] == ["a", "b", 10, 9]


def test_a_rebuilt_dict_keeps_its_own_key_order_whatever_the_leaf_order():
    value = collections.OrderedDict([("b", 1), ("a", 2)])
    for rules in ({}, RUNTIME):
        leaves, tree = structures.flatten(value, **rules)
        rebuilt = structures.unflatten(tree, iter(leaves))
        assert list(rebuilt) == ["b", "a"] and type(rebuilt) is collections.OrderedDict
        packed = structures.pack_sequence_as(value, leaves, **rules)
        assert list(packed.items()) == [("b", 1), ("a", 2)]
    assert list(nest.map_with_paths(lambda v, p: p, {"b": 1, "a": 2}, "d").items()) == [
        ("b", "d['b']"), ("a", "d['a']")]


def test_sorted_trees_of_dicts_in_another_order_rebuild_apart():
    _, ab = structures.flatten({"a": 1, "b": 2}, sort_keys=True)
    _, ba = structures.flatten({"b": 2, "a": 1}, sort_keys=True)
    assert ab.keys == ba.keys == ("a", "b")
    assert ab != ba  # the same leaf order, but not the same rebuilt value
    _, ab_own = structures.flatten({"a": 1, "b": 2})
    _, ba_own = structures.flatten({"b": 2, "a": 1})
    assert ab_own != ba_own and ab_own.keys == ("a", "b") and ba_own.keys == ("b", "a")


# ---- container rules ---------------------------------------------------------------------------
def test_which_values_are_containers():
    for value in ([], (), {}, Point(1, 2), collections.OrderedDict(), Attributed(),
                  collections.defaultdict(int)):
        assert structures.is_container(value)
        assert structures.is_container(value, sequence_subclasses=True)
        assert nest.is_nested(value)
    for value in (MyList([1]), MyTuple((1,)), TensorShape([2, 3])):
        assert not structures.is_container(value)  # autograph: a leaf
        assert structures.is_container(value, sequence_subclasses=True)  # the runtime: not
        assert nest.is_nested(value)
    for value in (None, 1, "ab", b"ab", {1}, frozenset(), range(3), object()):
        assert not structures.is_container(value, sequence_subclasses=True)
        assert not nest.is_nested(value)


def test_sequence_subclasses_are_leaves_or_containers_rebuilt_as_their_type():
    shape = TensorShape([2, 3])
    mine = MyList([1, 2])
    assert structures.leaves((shape, mine)) == [shape, mine]
    leaves, tree = structures.flatten((shape, mine), sequence_subclasses=True)
    assert leaves == [2, 3, 1, 2]
    rebuilt = structures.unflatten(tree, iter([4, 5, 6, 7]))
    assert type(rebuilt[0]) is TensorShape and rebuilt[0] == (4, 5)
    assert type(rebuilt[1]) is MyList and rebuilt[1] == [6, 7]
    assert tree.describe() == "a tuple of 2" and tree.children[0].describe() == "a TensorShape of 2"
    packed = nest.pack_sequence_as((shape, mine), [4, 5, 6, 7])
    assert type(packed[0]) is TensorShape and type(packed[1]) is MyList


def test_namedtuples_are_rebuilt_as_their_class_and_named_by_field():
    value = Point(1, [2, Point(3, 4)])
    leaves, tree = structures.flatten(value)
    assert leaves == [1, 2, 3, 4]
    assert tree.paths() == [".x", ".y[0]", ".y[1].x", ".y[1].y"]
    rebuilt = structures.unflatten(tree, iter("abcd"))
    assert rebuilt == Point("a", ["b", Point("c", "d")]) and type(rebuilt.y[1]) is Point
    assert structures.flatten(Other(1, 2))[1] != structures.flatten(Point(1, 2))[1]
    assert structures.flatten((1, 2))[1] != structures.flatten(Point(1, 2))[1]


def test_dict_subclasses_are_rebuilt_with_their_type_and_attributes():
    value = Attributed(a=1)
    value.tag = "kept"
    rebuilt = structures.unflatten(structures.flatten(value)[1], iter([2]))
    assert type(rebuilt) is Attributed and rebuilt.tag == "kept" and rebuilt == {"a": 2}
    assert rebuilt is not value and value == {"a": 1}
    packed = nest.pack_sequence_as(value, [3])
    assert type(packed) is Attributed and packed.tag == "kept" and packed == {"a": 3}


def test_a_defaultdict_keeps_its_factory_which_is_part_of_its_structure():
    lists = collections.defaultdict(list, {"a": 1})
    ints = collections.defaultdict(int, {"a": 1})
    rebuilt = structures.copy(lists)
    assert rebuilt.default_factory is list and rebuilt == {"a": 1} and rebuilt is not lists
    assert structures.flatten(lists)[1] != structures.flatten(ints)[1]
    assert structures.flatten(lists)[1] == structures.flatten(
        collections.defaultdict(list, {"a": 2}))[1]
    assert structures.flatten(lists)[1].describe() == "a defaultdict(list) with keys 'a'"
    assert nest.pack_sequence_as(ints, [5]).default_factory is int
    assert structures.mapping_like(ints, [("b", 2)]).default_factory is int


# ---- paths -------------------------------------------------------------------------------------
def test_paths_name_each_leaf_in_leaf_order():
    value = {"b": [1, (2, 3)], "a": Point(4, {"k": 5})}
    assert structures.flatten_with_paths(value, "v") == [
        ("v['b'][0]", 1), ("v['b'][1][0]", 2), ("v['b'][1][1]", 3), ("v['a'].x", 4),
        ("v['a'].y['k']", 5)]
    assert nest.flatten_with_paths(value, "v") == [
        ("v['a'].x", 4), ("v['a'].y['k']", 5), ("v['b'][0]", 1), ("v['b'][1][0]", 2),
        ("v['b'][1][1]", 3)]
    assert structures.flatten_with_paths(7, "v") == [("v", 7)]
    assert structures.flatten([])[1].paths() == []


def test_map_with_paths_runs_on_the_leaves_in_leaf_order():
    seen = []
    mapped = nest.map_with_paths(lambda v, p: seen.append(p) or v * 10, {"b": 1, "a": (2,)}, "x")
    assert seen == ["x['a'][0]", "x['b']"] and mapped == {"b": 10, "a": (20,)}


def test_replace_at_changes_one_place_and_copies_the_containers_on_the_way():
    inner = [1, 2]
    value = collections.OrderedDict([("b", 0), ("a", Point(inner, (inner,)))])
    changed = structures.replace_at(value, ("a", 1, 0), lambda v: "new")
    assert changed == {"b": 0, "a": Point(inner, ("new",))}
    assert type(changed) is collections.OrderedDict and list(changed) == ["b", "a"]
    assert type(changed["a"]) is Point and changed["a"].x is inner
    assert value["a"].y == (inner,)  # the original is as it was
    assert structures.replace_at(value, ("c",), lambda v: "new") is value
    unchanged = structures.replace_at(value, ("a", 5), lambda v: "new")
    assert _identical(unchanged, value) and unchanged["a"] is value["a"]
    shape = structures.replace_at(TensorShape([1, 2]), (0,), lambda v: 7)
    assert type(shape) is TensorShape and shape == (7, 2)


# ---- keys and descriptions ---------------------------------------------------------------------
def test_structure_keys_tell_container_types_and_keys_apart_but_not_dict_types():
    def key(value):
        return nest.structure_key(value, lambda leaf, path: (path, leaf), "v")

    assert key({"b": 1, "a": 2}) == key({"a": 2, "b": 1})  # sorted: the order of the leaves
    assert key({"a": 1}) == key(collections.OrderedDict(a=1)) == ("dict", (("a", ("v['a']", 1)),))
    assert key([1]) != key((1,)) and key((1, 2)) != key(Point(1, 2))
    assert key(Point(1, 2)) == (Point, (("v.x", 1), ("v.y", 2)))
    assert key(Point(1, 2)) != key(Other(1, 2))
    assert key(TensorShape([3])) == ("TensorShape", (("v[0]", 3),))
    assert structures.structure_key({"b": 1, "a": 2}, lambda leaf, path: leaf) == (
        "dict", (("b", 1), ("a", 2)))


def test_structure_str_sketches_the_shape():
    assert nest.structure_str((1, [None, {"b": 2, "a": 3}])) == "(_, [None, {'b': _, 'a': _}])"
    assert nest.structure_str((1,)) == "(_,)" and nest.structure_str(Point(1, 2)) == "(_, _)"
    assert nest.structure_str(TensorShape([1])) == "(_,)"
    assert structures.structure_str(TensorShape([1])) == "_"
    nest.assert_same_structure((1, [2]), Point(3, [4]), "cond")
    with pytest.raises(ValueError, match=r"cond: structures differ: \(_, \[_\]\) vs \(_, _\)"):
        nest.assert_same_structure((1, [2]), (3, 4), "cond")


def test_trees_describe_themselves():
    def described(value):
        return structures.flatten(value)[1].describe()

    assert described(1) == "a single value"
    assert described((1, 2)) == "a tuple of 2"
    assert described(Point(1, 2)) == "a Point of 2"
    assert described({"a": 1, "b": 2}) == "a dict with keys 'a', 'b'"
    assert described(collections.OrderedDict()) == "an empty OrderedDict"
    assert described(MyList([1])) == "a single value"
