"""Rejects syntax that cannot be converted, with an error at the user's line.

`yield` / `await` (generators and coroutines) are not converted: the caller is told to use
`do_not_convert` or restructure the code.
"""

from __future__ import annotations

import gast

from autograph import traversal
from autograph.anno import Anno, getanno
from autograph.errors import ConversionError, at


def transform(node, ctx):
    """Raises ConversionError for the first unsupported construct under `node`."""
    for n in traversal.walk(node):
        if isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)):
            kind = "await" if isinstance(n, gast.Await) else "yield"
            raise ConversionError(at(
                f"`{kind}` is not supported by autograph: generators and coroutines cannot be "
                "converted into graphs. Decorate the function with autograph.do_not_convert, or "
                "build a list/tensor instead of yielding.",
                getanno(n, Anno.ORIGIN)))
    return node
