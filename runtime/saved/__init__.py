"""`rt.saved`: save traced functions to a directory, load and run them without their source.

    rt.saved.save(f, "model_dir")     # every traced signature of f, and the variables it uses
    g = rt.saved.load("model_dir")    # call g like f; g.concrete_functions, g.variables

A saved function is two files: `saved_function.json` (format version, parameters, one graph per
signature, variable specs) and `arrays.npz` (constants and variable values). Loading never runs
code from the files: no pickle (`allow_pickle=False`), no eval, no import by name; op types are
looked up in the op registry and every graph is checked before it is compiled. Missing,
corrupted, truncated or tampered files raise `LoadError`, which names what is wrong.

Loading a hostile directory ends, quickly and in bounded memory, with a `LoadError` or a
function; the limits:
  * Only regular files are read (symlinks are followed to them; FIFOs, sockets, devices,
    directories, dangling links are refused without blocking): `saved_function.json` up to
    `storage.MAX_JSON_BYTES` (16 MiB), `arrays.npz` up to `storage.MAX_ARRAYS_BYTES` (1 GiB),
    sizes checked before reading.
  * `arrays.npz` holds at most `storage.MAX_ARRAYS` (65536) uncompressed `.npy` entries whose
    headers match their sizes, so its arrays never take more memory than the file; an array
    backs at most one variable (variables copy their values), and string arrays hold at most
    `values.MAX_STRING_ITEMS` (2**20) items in all (each item is a Python object).
  * Shapes in the file have at most 64 dims, and huge declared dims allocate nothing: no kernel
    runs while a file is checked.
  * No kernel runs while loading: a file holds each graph as the optimizing passes left it
    (before fusion), so loading only checks it, fuses big elementwise chains and compiles it;
    what a graph computes runs (or fails) when the function is called.
The limits are module constants that a program trusting bigger files can raise.
"""

from __future__ import annotations

import inspect
import os
import re

import numpy as np

from runtime import nest
from runtime.core.graph import Graph
from runtime.core.tensor import EagerTensor
from runtime.core.tensor_conversion import constant
from runtime.module import Module
from runtime.passes import compile_ready, fusion, optimize_graph
from runtime.saved import modules, storage
from runtime.saved.errors import LoadError, SaveError
from runtime.saved.graphs import GraphDecoder, GraphEncoder, expect_keys, expect_list
from runtime.saved.loaded import (
    LoadedFunction,
    OutputMarker,
    mark_outputs,
    outputs_match,
    unmark_outputs,
)
from runtime.saved.modules import LoadedModule
from runtime.saved.values import (
    ArrayReader,
    ArrayWriter,
    _short,
    decode,
    decode_dtype,
    decode_shape,
    encode,
)
from runtime.tracing.concrete_function import ConcreteFunction
from runtime.tracing.function import Function
from runtime.tracing.signature import TensorSpec
from runtime.variables import Variable

_DOCUMENT_KEYS = {"format", "version", "arrays_sha256", "name", "parameters",
                  "converts_python_values", "variables", "functions"}
_FUNCTION_KEYS = {"name", "arg_names", "inputs", "outputs", "python_numbers", "optimize",
                  "custom_gradients", "graph"}
_VARIABLE_KEYS = {"name", "dtype", "shape", "value", "trainable"}
_PARAMETER_KINDS = {k.name: k for k in (
    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD,
)}


# ---- save --------------------------------------------------------------------------------------

def save(function: Function | ConcreteFunction | Module,
         directory: str | os.PathLike[str]) -> None:
    """Saves every traced signature of `function` (an `rt.function` or a ConcreteFunction) and
    the current values of the variables it uses into `directory` (created if needed). An
    `rt.Module` is saved with its traced `rt.function` methods and all its variables
    (runtime/saved/modules.py)."""
    if modules.is_module(function):
        modules.save_module(function, directory, save)
        return
    concretes, converts = _traces(function)
    arrays = ArrayWriter()
    encoder = GraphEncoder(arrays)
    document = {
        "name": concretes[0].name,
        "parameters": _encode_parameters(function, concretes[0], arrays),
        "converts_python_values": converts,
        "functions": [_encode_concrete(c, encoder, arrays) for c in concretes],
    }
    document["variables"] = [_encode_variable(v, arrays) for v in encoder.variables.values()]
    storage.write(directory, document, arrays.arrays)


def _traces(function) -> tuple[list, bool]:
    if isinstance(function, ConcreteFunction):
        return [function], False
    if not isinstance(function, Function):
        raise SaveError(f"rt.saved.save takes an rt.function or a ConcreteFunction, got "
                        f"{type(function).__name__}.")
    current = function.current_traces()
    unique = list({id(c): c for c in current}.values())
    if not unique:
        raise SaveError(f"rt.function '{function.__name__}' has not been traced, so it has no "
                        "signature to save; call it or use get_concrete_function(...) first.")
    return unique, function.input_signature is not None


def _encode_parameters(function, concrete, arrays) -> list:
    signature = function.python_signature if isinstance(function, Function) else None
    if signature is None or function.input_signature is not None:
        return [{"name": n, "kind": "POSITIONAL_OR_KEYWORD"} for n in concrete.arg_names]
    parameters = []
    for p in signature.parameters.values():
        entry = {"name": p.name, "kind": p.kind.name}
        if p.default is not p.empty:
            try:
                entry["default"] = encode(p.default, arrays, lambda v: _encode_tensor(v, arrays))
            except SaveError:
                pass  # not plain data: callers of the loaded function must pass it
        parameters.append(entry)
    return parameters


def _encode_tensor(value, arrays):
    """An eager tensor in a default value: its dtype and its value."""
    if isinstance(value, EagerTensor):
        return {"tensor": [value.dtype.name, encode(value.numpy(), arrays)]}
    return None


def _decode_tensor(tag, payload, arrays):
    if tag != "tensor" or type(payload) is not list or len(payload) != 2:
        return None
    value = decode(payload[1], arrays)
    if not isinstance(value, (np.ndarray, np.generic)):
        raise LoadError(f"a saved tensor holds {_short(payload[1])}, not an array.")
    return constant(value, decode_dtype(payload[0]))


def _signature_leaf(value):
    if isinstance(value, TensorSpec):
        return {"tensor_spec": [value.dtype.name, list(value.shape), value.name]}
    if isinstance(value, OutputMarker):
        return {"output": value.index}
    return None


def _encode_concrete(concrete, encoder: GraphEncoder, arrays) -> dict:
    inputs = []
    for name, spec in zip(concrete.arg_names, concrete.structured_input_signature):
        try:
            inputs.append(encode(spec, arrays, _signature_leaf))
        except SaveError as e:
            raise SaveError(f"{concrete.name}: argument '{name}' cannot be saved: {e}") from None
    try:
        outputs = encode(mark_outputs(concrete.structured_outputs), arrays, _signature_leaf)
    except SaveError as e:
        raise SaveError(f"{concrete.name}: its return value cannot be saved: {e}") from None
    return {"name": concrete.name, "arg_names": list(concrete.arg_names), "inputs": inputs,
            "outputs": outputs, "python_numbers": list(concrete.python_number_outputs),
            "optimize": concrete.optimized,
            "custom_gradients": list(concrete.traced_graph.custom_gradients),
            "graph": encoder.encode(_portable_graph(concrete))}


def _portable_graph(concrete) -> Graph:
    """The graph to save: the traced graph after the optimizing passes but fusion, so loading
    needs no pass but fusion (whose FusedElementwise kernels are never read from a file). Its
    outputs stand where the traced graph's stand, as in `concrete.graph`. A loaded function
    saves the graph it was loaded from. When folding made an op that the loader's checks would
    refuse (a constant that only a branch never taken reads, such as negative dims), the graph
    as traced is saved instead: it loads, and runs without the optimizations."""
    if concrete.saved_graph is not None:
        return concrete.saved_graph
    if not concrete.optimized:
        return concrete.traced_graph
    graph = concrete.traced_graph.copy()
    optimize_graph(graph, fuse=fusion.NONE)
    return graph if _infers_again(graph) else concrete.traced_graph


def _infers_again(graph: Graph) -> bool:
    """Whether every op's inference accepts its inputs and attrs as they are now."""
    for op in graph.walk():
        if op.opdef.infer is None or not op.inputs:
            continue
        try:
            op.opdef.infer(op.inputs, **op.attrs)
        except Exception:  # noqa: BLE001 - whatever inference raises, the loader would too
            return False
    return True


def _encode_variable(variable, arrays) -> dict:
    return {"name": variable.name, "dtype": variable.dtype.name, "shape": list(variable.shape),
            "value": arrays.add(np.asarray(variable.value_, dtype=variable.dtype.np_dtype)),
            "trainable": bool(variable.trainable)}


# ---- load --------------------------------------------------------------------------------------

def load(directory: str | os.PathLike[str]) -> LoadedFunction | LoadedModule:
    """The function (a LoadedFunction) or module (a LoadedModule) saved in `directory`, ready
    to call; raises LoadError for bad files."""
    try:
        if os.path.lexists(os.path.join(directory, modules.MODULE_FILE)):
            return modules.load_module(directory, _load)
        return _load(directory)
    except LoadError as e:
        raise LoadError(f"Cannot load the saved function in {directory}: {e}") from None
    except RecursionError:
        raise LoadError(f"Cannot load the saved function in {directory}: its JSON nests too "
                        "deeply.") from None


def _load(directory, shared_variables=None) -> LoadedFunction:
    """The function in `directory`; its variables are taken from `shared_variables` ({saved
    name: Variable}, of a module's other functions) when there, else made (and added)."""
    document, arrays = storage.read(directory)
    expect_keys(document, _DOCUMENT_KEYS, storage.JSON_FILE)
    name, converts = document["name"], document["converts_python_values"]
    if not isinstance(name, str) or type(converts) is not bool:
        raise LoadError("malformed 'name' or 'converts_python_values'.")
    variables = {}
    shared = {} if shared_variables is None else shared_variables
    for entry in expect_list(document["variables"], "variables"):
        saved_name, variable = _decode_variable(entry, arrays)
        if saved_name in shared:
            if (shared[saved_name].dtype, shared[saved_name].shape) != (variable.dtype,
                                                                        variable.shape):
                raise LoadError(f"variable {saved_name!r} has another dtype or shape in "
                                "another function of the module.")
            variable = shared[saved_name]
        shared[saved_name] = variables[saved_name] = variable
    signature = _decode_parameters(document["parameters"], arrays)
    decoder = GraphDecoder(arrays, variables)
    functions = expect_list(document["functions"], "functions")
    if not functions:
        raise LoadError("it holds no functions.")
    concretes = [_decode_concrete(entry, decoder, arrays) for entry in functions]
    return LoadedFunction(name, signature, concretes, variables.values(), converts)


def _decode_variable(entry, arrays: ArrayReader):
    expect_keys(entry, _VARIABLE_KEYS, "a variable")
    saved_name, trainable = entry["name"], entry["trainable"]
    if not isinstance(saved_name, str) or type(trainable) is not bool:
        raise LoadError(f"variable {_short(saved_name)} is malformed.")
    dtype, shape = decode_dtype(entry["dtype"]), decode_shape(entry["shape"], allow_unknown=False)
    arrays.claim(entry["value"])
    value = decode(entry["value"], arrays)
    if dtype.is_list or not isinstance(value, np.ndarray) or value.shape != shape or (
        value.dtype != dtype.np_dtype
    ):
        raise LoadError(f"the value of variable {saved_name!r} is not {dtype.name}{list(shape)}.")
    base = re.sub(r"_\d+$", "", saved_name) or "Variable"
    return saved_name, Variable(value, dtype=dtype, name=base, trainable=trainable)


def _decode_parameters(data, arrays) -> inspect.Signature:
    parameters = []
    for entry in expect_list(data, "parameters"):
        if not isinstance(entry, dict) or not {"name", "kind"} <= set(entry) <= {
            "name", "kind", "default"
        }:
            raise LoadError(f"malformed parameter {_short(entry)}.")
        kind = _PARAMETER_KINDS.get(entry["kind"]) if isinstance(entry["kind"], str) else None
        if kind is None:
            raise LoadError(f"unknown parameter kind {_short(entry['kind'])}.")
        if not isinstance(entry["name"], str) or not entry["name"].isidentifier():
            raise LoadError(f"parameter name {_short(entry['name'])} is not an identifier.")
        default = inspect.Parameter.empty
        if "default" in entry:
            default = decode(entry["default"], arrays,
                             lambda tag, payload: _decode_tensor(tag, payload, arrays))
        try:
            parameters.append(inspect.Parameter(entry["name"], kind, default=default))
        except (TypeError, ValueError) as e:
            raise LoadError(f"bad parameter {entry['name']!r}: {e}.") from None
    try:
        return inspect.Signature(parameters)
    except (TypeError, ValueError) as e:
        raise LoadError(f"bad parameter list: {e}.") from None


def _decode_leaf(tag, payload):
    if tag == "tensor_spec" and isinstance(payload, list) and len(payload) == 3 and isinstance(
        payload[2], (str, type(None))
    ):
        return TensorSpec(decode_shape(payload[1]), decode_dtype(payload[0]), payload[2])
    if tag == "output" and type(payload) is int:
        return OutputMarker(payload)
    return None


def _decode_concrete(entry, decoder: GraphDecoder, arrays) -> ConcreteFunction:
    # (files saved before "custom_gradients" or "python_numbers" lack them)
    optional = {key for key in ("custom_gradients", "python_numbers")
                if isinstance(entry, dict) and key not in entry}
    expect_keys(entry, _FUNCTION_KEYS - optional, "a function")
    custom = ([] if "custom_gradients" in optional
              else expect_list(entry["custom_gradients"], "custom_gradients"))
    if not all(isinstance(c, str) for c in custom):
        raise LoadError("malformed 'custom_gradients' list.")
    name, arg_names = entry["name"], expect_list(entry["arg_names"], "arg_names")
    if not isinstance(name, str) or not all(isinstance(a, str) for a in arg_names) or (
        type(entry["optimize"]) is not bool
    ):
        raise LoadError("malformed function name, argument names or 'optimize' flag.")
    graph = decoder.decode(entry["graph"])
    graph.custom_gradients = custom
    try:
        graph.lint()
    except AssertionError as e:
        raise LoadError(f"function {name!r}: {e}") from None
    if any(t.dtype.is_list for t in graph.inputs):
        raise LoadError(f"function {name!r}: a list tensor cannot be an input of a function.")
    inputs = [decode(d, arrays, _decode_leaf) for d in expect_list(entry["inputs"], "inputs")]
    specs = [s for s in nest.flatten(inputs) if isinstance(s, TensorSpec)]
    if len(inputs) != len(arg_names) or len(specs) != len(graph.inputs) or any(
        s.dtype is not t.dtype or not s.shape.is_compatible_with(t.shape)
        for s, t in zip(specs, graph.inputs)
    ):
        raise LoadError(f"function {name!r}: its input signature does not match its graph.")
    structure = decode(entry["outputs"], arrays, _decode_leaf)
    if not outputs_match(structure, graph.outputs):
        raise LoadError(f"function {name!r}: its output structure does not match its graph.")
    python_numbers = entry.get("python_numbers")
    if python_numbers is not None and (
            type(python_numbers) is not list or len(python_numbers) != len(nest.flatten(structure))
            or not all(type(v) is bool for v in python_numbers)):
        raise LoadError(f"function {name!r}: malformed 'python_numbers' list.")
    try:
        compiled = compile_ready(graph, fuse=entry["optimize"])
        outputs = unmark_outputs(structure, compiled.outputs)
        concrete = ConcreteFunction(
            compiled, name, arg_names, inputs, outputs, traced_graph=graph,
            optimized=entry["optimize"],
            python_numbers=None if python_numbers is None else tuple(python_numbers))
        concrete.saved_graph = graph
        return concrete
    except Exception as e:  # noqa: BLE001 - a graph that does not compile is a bad file
        raise LoadError(f"function {name!r} does not compile: {e}") from None


__all__ = ["save", "load", "LoadError", "SaveError", "LoadedFunction", "LoadedModule"]
