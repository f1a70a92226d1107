"""The small pyct-like helpers: templates, the namer, the parser and origins."""

import ast

import gast
import pytest

import autograph
from autograph import namer, origins, parser, templates
from autograph.anno import Anno, getanno


def unparse(nodes):
    return ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(
        gast.Module(body=nodes, type_ignores=[]))))


def test_replace_names_blocks_and_params():
    body = gast.parse("a += 1\nb = a").body
    out = templates.replace(
        "def fn(params):\n    body\n    return result",
        fn="loop_body", params=["a", "b"], body=body, result=templates.names_tuple(["a", "b"]),
    )
    assert unparse(out) == "def loop_body(a, b):\n    a += 1\n    b = a\n    return (a, b)"


def test_replace_fixes_store_context():
    target = gast.parse("x").body[0].value
    (stmt,) = templates.replace("target = 1", target=target)
    assert isinstance(stmt.targets[0].ctx, gast.Store)


def test_namer_is_deterministic_and_avoids_user_names():
    tree = gast.parse("def f(if_true):\n    loop_body = 1\n")
    n = namer.Namer.for_tree(tree)
    assert [n.new("if_true"), n.new("if_true"), n.new("loop_body"), n.new("print")] == [
        "if_true_1", "if_true_2", "loop_body_1", "print_1"]


def sample(x):
    """A docstring."""
    return x + 1


def test_parser_gives_function_def_with_origins():
    node, filename = parser.parse_function(sample)
    assert isinstance(node, gast.FunctionDef) and node.name == "sample"
    assert filename == __file__
    origin = getanno(node.body[1], Anno.ORIGIN)
    assert origin.lineno == sample.__code__.co_firstlineno + 2
    assert origin.text == "return x + 1"


def test_parser_lambda_and_missing_source():
    double = lambda v: v * 2  # noqa: E731
    node, _ = parser.parse_function(double)
    assert isinstance(node.body[0], gast.Return)
    namespace = {}
    exec("def made_by_exec(x):\n    return x", namespace)
    with pytest.raises(parser.SourceUnavailable):
        parser.parse_function(namespace["made_by_exec"])


def test_source_unavailable_warns_and_runs_unconverted():
    namespace = {}
    exec("def made_by_exec(x):\n    return x + 1", namespace)
    with pytest.warns(UserWarning, match="source code is not available"):
        converted = autograph.to_graph(namespace["made_by_exec"])
    assert converted(1) == 2


def test_user_location_maps_generated_lines():
    converted = autograph.to_graph(sample).__ag_converted__
    filename = converted.__code__.co_filename
    assert autograph.is_generated_file(filename)
    line = converted.__code__.co_firstlineno + 2  # `return x + 1` after the docstring
    assert autograph.user_location(filename, line) == (
        __file__, sample.__code__.co_firstlineno + 2, "return x + 1")
    assert autograph.user_location(__file__, 1) is None
    assert origins.REGISTRY.is_generated(filename)


def pass_through(fn, scale=1):
    return fn


def test_lambda_in_a_call_with_keywords_is_found_in_the_file():
    g = pass_through(lambda v: v * 2 if v > 0 else -v, scale=3)
    node, filename = parser.parse_function(g)
    assert filename == __file__ and isinstance(node.body[0], gast.Return)
    assert autograph.to_graph(g)(-4) == 4
