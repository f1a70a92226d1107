"""Activity, liveness, definedness and qualified names annotate; they never rewrite."""

import gast

from autograph import anno
from autograph.analysis import activity, definedness, liveness, qual_names
from autograph.anno import Anno


def parse(source):
    return gast.parse(source).body[0]


def test_activity_reads_and_modifies():
    fn = parse(
        "def f(a, b):\n"
        "    c = a + b\n"
        "    c += 1\n"
        "    b.attr = c\n"
        "    def g(x):\n"
        "        return x + a\n"
        "    ys = [y * c for y in a]\n"
    )
    activity.analyze(fn)
    assign, aug, attr, nested, comp = fn.body
    assert anno.getanno(assign, Anno.SCOPE) == ({"a", "b"}, {"c"})
    assert anno.getanno(aug, Anno.SCOPE) == ({"c"}, {"c"})
    assert anno.getanno(attr, Anno.SCOPE) == ({"b", "c"}, set())
    assert anno.getanno(nested, Anno.SCOPE) == ({"a"}, {"g"})
    assert anno.getanno(comp, Anno.SCOPE) == ({"a", "c"}, {"ys"})


def test_activity_of_if_branches():
    fn = parse("def f(x):\n    if x:\n        y = 1\n    else:\n        z = x\n")
    activity.analyze(fn)
    node = fn.body[0]
    assert anno.getanno(node, Anno.BODY_SCOPE).modified == {"y"}
    assert anno.getanno(node, Anno.ORELSE_SCOPE) == ({"x"}, {"z"})


def test_liveness_of_if_and_loop():
    fn = parse(
        "def f(x, n):\n"
        "    t = 0\n"
        "    if x:\n"
        "        t = 1\n"
        "        u = 2\n"
        "    i = 0\n"
        "    while i < n:\n"
        "        tmp = i * 2\n"
        "        i = i + 1\n"
        "    return t\n"
    )
    activity.analyze(fn)
    liveness.analyze(fn)
    if_node, loop = fn.body[1], fn.body[3]
    assert anno.getanno(if_node, Anno.LIVE_OUT) == {"t", "n"}
    assert "u" not in anno.getanno(if_node, Anno.LIVE_OUT)
    assert anno.getanno(loop, Anno.LIVE_IN) == {"i", "n", "t"}
    assert "tmp" not in anno.getanno(loop, Anno.LIVE_IN)


def test_definedness():
    fn = parse(
        "def f(x):\n"
        "    if x:\n"
        "        y = 1\n"
        "    for i in x:\n"
        "        pass\n"
        "    while x:\n"
        "        pass\n"
    )
    activity.analyze(fn)
    definedness.analyze(fn)
    first_if, loop, last = fn.body
    assert anno.getanno(first_if, Anno.DEFINED_IN) == {"x"}
    assert anno.getanno(loop, Anno.DEFINED_IN) == {"x", "y"}
    assert anno.getanno(last, Anno.DEFINED_IN) == {"x", "y", "i"}


def test_qualified_names():
    fn = parse("def f(a):\n    a.b.c(1)\n")
    qual_names.resolve(fn)
    call = fn.body[0].value
    assert anno.getanno(call.func, Anno.QN) == "a.b.c"
    assert qual_names.qn(call.func.value) == "a.b"
