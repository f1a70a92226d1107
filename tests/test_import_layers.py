"""The import contract of the packages (issue 25), read from the source with `ast`:

- module-level imports form no cycle;
- the runtime's core (runtime/core/: tensors, dtypes, conversion, graphs, source locations; and
  errors, config, op definition) imports nothing of ours outside the core, not even in a
  function: the layers above provide what it needs from them when they load (the op library
  its operators and conversion's ops, the visualizer and the executor the views of a graph);
- the op library with its passes and executors (OP_LIBRARY) imports nothing above it (tracing,
  autodiff, the tools, saving, models), and never autograph (the converter), not even in a
  function;
- counting function-level imports too, there is no cycle either: a function-level import is
  only for an optional dependency's module or to load a module late, never to go around a
  cycle; there are at most FUNCTION_LEVEL_IMPORTS_LEFT of them between the packages' modules
  (a change may lower the number, never raise it).
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("autograph", "runtime")

# The layers, from the bottom; each imports only from its own layer and the ones below.
CORE = ("runtime.core", "runtime.errors", "runtime.config", "runtime.ops.registry")
OP_LIBRARY = CORE + ("runtime.ops.", "runtime.tensor_list", "runtime.variables", "runtime.passes",
                     "runtime.executor")
FUNCTION_LEVEL_IMPORTS_LEFT = 6  # the modules that import numba, jax or onnx: loaded when used


def _modules() -> dict:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _resolve(name: str, modules: dict):
    """The module of ours that importing `name` runs (the longest known prefix), or None."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(modules: dict):
    """module -> (set of modules imported at module level, list of those imported in
    functions); imports of a module's own ancestors (its packages) are left out."""
    graph = {}
    for module, path in modules.items():
        top, inner = set(), []
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]

        def visit(node, in_function, module=module, package=package, top=top, inner=inner):
            for child in ast.iter_child_nodes(node):
                nested = in_function or isinstance(child, (ast.FunctionDef,
                                                           ast.AsyncFunctionDef))
                names = []
                if isinstance(child, ast.Import):
                    names = [a.name for a in child.names]
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        parent = package.split(".")[:len(package.split(".")) - child.level + 1]
                        base = ".".join(parent + ([base] if base else []))
                    names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                             for a in child.names]
                for name in names:
                    target = _resolve(name, modules)
                    if target and target != module and not module.startswith(target + "."):
                        (inner.append(target) if nested else top.add(target))
                visit(child, nested)

        visit(ast.parse(path.read_text()), False)
        graph[module] = (top, inner)
    return graph


def _cycles(edges: dict) -> list:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in list(edges):
        if v not in index:
            strong(v)
    return found


GRAPH = _imports(_modules())


def test_module_level_imports_form_no_cycle():
    assert _cycles({m: top for m, (top, _) in GRAPH.items()}) == []


def _above(layer: tuple) -> dict:
    """The imports (module-level or in functions) of the modules in `layer` that leave it,
    other than of autograph."""
    found = {m: sorted(t for t in (*top, *inner)
                       if not t.startswith(layer) and not t.startswith("autograph"))
             for m, (top, inner) in GRAPH.items() if m.startswith(layer)}
    return {m: targets for m, targets in found.items() if targets}


def test_the_core_imports_only_the_core():
    assert _above(CORE) == {}


def test_the_op_library_and_its_executors_import_nothing_above_them():
    assert _above(OP_LIBRARY) == {}  # (not tracing, autodiff, the tools, saving or models)


def test_the_op_library_does_not_import_the_converter():
    """(runtime/nest.py, the runtime's rules over autograph's structure library, and
    traceback_filtering, which knows autograph's generated files, sit above it, with tracing.)"""
    offenders = {m: sorted(t for t in (*top, *inner) if t.startswith("autograph"))
                 for m, (top, inner) in GRAPH.items() if m.startswith(OP_LIBRARY)}
    assert {m: t for m, t in offenders.items() if t} == {}


def test_no_cycle_even_through_function_level_imports():
    edges = {m: top | set(inner) for m, (top, inner) in GRAPH.items()}
    assert _cycles(edges) == []
    count = sum(len(inner) for _, inner in GRAPH.values())
    assert count <= FUNCTION_LEVEL_IMPORTS_LEFT, count
