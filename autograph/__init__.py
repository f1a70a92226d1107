"""autograph: converts Python control flow over tensors into staged (graph) control flow.

    import autograph
    converted = autograph.to_graph(fn)    # works eagerly, and builds graph ops when tracing
    print(autograph.to_code(fn))          # the converted source

autograph imports only gast and the standard library; a tensor library plugs in through
`register_backend` (see `autograph.backends.Backend`).
"""

from autograph.api import (
    converted_call,
    do_not_convert,
    is_generated_file,
    is_numpy_function,
    not_converted_reason,
    to_code,
    to_graph,
    user_location,
)
from autograph.backends import Backend, register_backend, unregister_backend
from autograph.errors import (
    AutoGraphError,
    ConversionError,
    RecursionLimitError,
    UnrolledLoopWarning,
)
from autograph.operators.decisions import recording as record_decisions
from autograph.operators.special_values import Undefined

__version__ = "0.1.0"

__all__ = [
    "AutoGraphError", "Backend", "ConversionError", "RecursionLimitError", "Undefined",
    "UnrolledLoopWarning",
    "converted_call", "do_not_convert", "is_generated_file", "is_numpy_function",
    "not_converted_reason",
    "record_decisions", "register_backend", "to_code", "to_graph", "unregister_backend",
    "user_location",
]
