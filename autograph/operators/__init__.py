"""The functions converted code calls through `ag__` (plain functions; staging via backends)."""

from autograph.operators.control_flow import (
    for_stmt,
    if_exp,
    if_stmt,
    match_subject,
    python_value,
    while_stmt,
)
from autograph.operators.data_structures import list_append, mutated
from autograph.operators.exceptions import assert_stmt, reraise_staged
from autograph.operators.formatting import format_string, mod, percent_format
from autograph.operators.logical import and_, and_cond, not_, or_, or_cond
from autograph.operators.membership import in_, not_in
from autograph.operators.slots import (
    Attr,
    Contents,
    Global,
    Item,
    Nonlocal,
    Uncarried,
    items_of,
    writing,
)
from autograph.operators.special_values import (
    MaybeUndefined,
    Undefined,
    UndefinedReturn,
    ld,
    locals_,
    return_value,
)
from autograph.operators.traced_paths import TryBody

__all__ = [
    "Attr", "Contents", "Global", "Item", "Nonlocal", "Uncarried", "items_of", "writing",
    "reraise_staged", "and_cond", "or_cond", "MaybeUndefined", "TryBody", "Undefined",
    "UndefinedReturn", "and_", "assert_stmt", "for_stmt", "if_exp", "if_stmt", "ld", "list_append",
    "match_subject", "mutated", "not_", "or_", "python_value", "return_value", "while_stmt",
    "format_string", "percent_format", "mod", "in_", "not_in", "locals_",
]
