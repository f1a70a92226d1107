"""Plain values <-> JSON, with numpy arrays kept aside for one `.npz` file.

JSON has no tuples, bytes, dtypes or arrays, so those are tagged: a JSON object always has
exactly one key naming its kind (`{"tuple": [...]}`, `{"bytes": "<base64>"}`,
`{"dtype": "float32"}`, `{"array": "a3"}`, `{"strings": ["a4", [2, 3]]}`, ...). Decoding
accepts only these tags and plain JSON scalars and lists; anything else is a LoadError.
Arrays go to an `ArrayWriter` (numeric arrays as they are; string arrays as one uint8 buffer
plus lengths, so no pickle is ever needed) and come back through an `ArrayReader`, which
checks every dtype and size.
"""

from __future__ import annotations

import base64
import binascii
import math
import re

import numpy as np

from runtime.core import dtypes
from runtime.saved.errors import LoadError, SaveError

DTYPES_BY_NAME = {d.name: d for d in dtypes.ALL}
# List dtype names nest ("list<list<int32>>"); a name's size grows with the square of its depth,
# so a file may not nest deeper than this (far more than any program builds).
MAX_LIST_DEPTH = 32
# numpy arrays have at most 64 dims; a saved shape may not have more.
MAX_RANK = 64
# String items (one Python bytes object each) that one load may decode, all arrays together.
MAX_STRING_ITEMS = 1 << 20
_LIST_NAME = re.compile(r"((?:list<)*)(\w+)(>*)")
NUMERIC_NP_DTYPES = {d.np_dtype for d in dtypes.ALL if not d.is_string}


class ArrayWriter:
    """Collects the arrays of one save, each under a short key."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def add(self, value) -> dict:
        """The JSON reference to `value` (an array or numpy scalar), stored under a new key."""
        array = np.asarray(value)
        key = f"a{len(self.arrays)}"
        if array.dtype == object:
            items = [_as_bytes(v) for v in array.flat]
            self.arrays[f"{key}.data"] = np.frombuffer(b"".join(items), dtype=np.uint8)
            self.arrays[f"{key}.lengths"] = np.array([len(v) for v in items], dtype=np.int64)
            return {"strings": [key, list(array.shape)]}
        if array.dtype not in NUMERIC_NP_DTYPES:
            raise SaveError(f"arrays of numpy dtype {array.dtype} cannot be saved.")
        self.arrays[key] = np.array(array, order="C")  # ascontiguousarray makes 0-d 1-d
        return {"array": key}


def _as_bytes(value) -> bytes:
    if not isinstance(value, bytes):
        raise SaveError(f"a string tensor holds {type(value).__name__} {value!r}, not bytes.")
    return value


class ArrayReader:
    """The arrays of one saved function, checked as they are looked up."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self._arrays = arrays
        self._strings: dict[str, np.ndarray] = {}  # key -> its items, decoded once
        self._string_count = 0
        self._claimed: set[str] = set()

    def claim(self, data) -> None:
        """Marks the array that `data` (an encoded array) refers to as the value of one variable.
        A variable copies its value, so an array may back one variable only: a file cannot make
        many variables out of one big array."""
        payload = data.get("array", data.get("strings")) if isinstance(data, dict) else None
        key = payload[0] if isinstance(payload, list) and payload else payload
        if not isinstance(key, str):
            raise LoadError(f"a variable's value must be a stored array, got {_short(data)}.")
        if key in self._claimed:
            raise LoadError(f"array {key!r} is the value of two variables.")
        self._claimed.add(key)

    def _get(self, key) -> np.ndarray:
        if not isinstance(key, str) or key not in self._arrays:
            raise LoadError(f"array {_short(key)} is referenced but not stored in the .npz file.")
        return self._arrays[key]

    def numeric(self, key) -> np.ndarray:
        array = self._get(key)
        if array.dtype not in NUMERIC_NP_DTYPES:
            raise LoadError(f"array {key!r} has the unsupported dtype {array.dtype}.")
        return array

    def strings(self, key, shape) -> np.ndarray:
        shape = decode_shape(shape, allow_unknown=False)
        items = self._string_items(key)
        if items.size != math.prod(shape):
            raise LoadError(f"string array {_short(key)} is malformed (bad buffer or lengths).")
        return items.reshape(shape)  # a view: references to one array share its items

    def _string_items(self, key) -> np.ndarray:
        items = self._strings.get(key) if isinstance(key, str) else None
        if items is not None:
            return items
        data = self._get(f"{key}.data")
        lengths = self._get(f"{key}.lengths")
        if data.dtype != np.uint8 or data.ndim != 1 or lengths.dtype != np.int64 or (
            lengths.ndim != 1
        ):
            raise LoadError(f"string array {key!r} is malformed (bad buffer or lengths).")
        if (lengths < 0).any() or int(lengths.sum()) != data.size:
            raise LoadError(f"string array {key!r}: its lengths do not add up to its buffer.")
        self._string_count += lengths.size
        if self._string_count > MAX_STRING_ITEMS:
            raise LoadError(f"its string arrays hold more than {MAX_STRING_ITEMS} items.")
        raw, items, start = data.tobytes(), np.empty(lengths.size, dtype=object), 0
        for i, n in enumerate(lengths.tolist()):
            items[i] = raw[start:start + n]
            start += n
        self._strings[key] = items
        return items


def decode_shape(value, allow_unknown=True) -> tuple:
    """A shape from JSON: a list of non-negative ints (or None when `allow_unknown`)."""
    if not isinstance(value, list) or len(value) > MAX_RANK:
        raise LoadError(f"a shape must be a list of at most {MAX_RANK} dims, got {_short(value)}.")
    for d in value:
        ok = (d is None and allow_unknown) or (type(d) is int and d >= 0)
        if not ok:
            raise LoadError(f"shape {_short(value)} has the invalid dimension {_short(d)}.")
    return tuple(value)


def decode_dtype(name) -> dtypes.DType:
    """A dtype from its name: a tensor dtype, or a list dtype such as "list<list<int32>>"."""
    match = _LIST_NAME.fullmatch(name) if isinstance(name, str) else None
    depth = len(match[1]) // len("list<") if match else 0
    if match is None or match[2] not in DTYPES_BY_NAME or len(match[3]) != depth or (
        depth > MAX_LIST_DEPTH
    ):
        raise LoadError(f"unknown dtype {_short(name)}.")
    dtype = DTYPES_BY_NAME[match[2]]
    for _ in range(depth):
        dtype = dtypes.list_of(dtype)
    return dtype


_JSON_INT_BITS = 14_000  # (4,300 decimal digits hold 14,284 bits: sys.get_int_max_str_digits)


def encode(value, arrays: ArrayWriter, special=None):
    """JSON form of a plain value; `special(value)` encodes other leaves (or returns None)."""
    if type(value) is int and value.bit_length() > _JSON_INT_BITS:
        raise SaveError(f"a Python int of {value.bit_length():,} bits is not plain data: JSON "
                        "(and Python's own text of an int) holds at most 4,300 digits.")
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, dtypes.DType):
        return {"dtype": value.name}
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, np.ndarray):
        return arrays.add(value)
    if isinstance(value, np.generic):
        return {"scalar": arrays.add(value)["array"]}
    if type(value) is list:
        return [encode(v, arrays, special) for v in value]
    if isinstance(value, tuple):  # namedtuples and TensorShape too: saved as plain tuples
        return {"tuple": [encode(v, arrays, special) for v in value]}
    if type(value) is dict:
        return {"dict": [[encode(k, arrays, special), encode(v, arrays, special)]
                         for k, v in value.items()]}
    found = special(value) if special is not None else None
    if found is None and callable(value):
        raise SaveError(f"{value!r} runs Python code, which is not plain data: a saved graph "
                        "holds data only, never Python code (nothing is pickled).")
    if found is None:
        raise SaveError(f"{type(value).__name__} {value!r} is not plain data and cannot be saved.")
    return found


def decode(data, arrays: ArrayReader, special=None):
    """The value `encode` made; `special(tag, payload)` decodes other tags (or returns None)."""
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(v, arrays, special) for v in data]
    if type(data) is not dict or len(data) != 1:
        raise LoadError(f"unexpected JSON value {_short(data)}.")
    (tag, payload), = data.items()
    if tag == "tuple" and type(payload) is list:
        return tuple(decode(v, arrays, special) for v in payload)
    if tag == "dict" and type(payload) is list:
        return _decode_dict(payload, arrays, special)
    if tag == "bytes" and type(payload) is str:
        try:
            return base64.b64decode(payload.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise LoadError(f"invalid base64 bytes {_short(payload)}.") from None
    if tag == "dtype":
        return decode_dtype(payload)
    if tag == "array":
        return arrays.numeric(payload)
    if tag == "strings" and type(payload) is list and len(payload) == 2:
        return arrays.strings(*payload)
    if tag == "scalar":
        array = arrays.numeric(payload)
        if array.ndim != 0:
            raise LoadError(f"scalar {payload!r} is stored with shape {array.shape}.")
        return array[()]
    found = special(tag, payload) if special is not None else None
    if found is None:
        raise LoadError(f"unexpected JSON value {_short(data)}.")
    return found


def _decode_dict(pairs, arrays, special) -> dict:
    result = {}
    for pair in pairs:
        if type(pair) is not list or len(pair) != 2:
            raise LoadError(f"malformed dict entry {_short(pair)}.")
        key = decode(pair[0], arrays, special)
        try:
            result[key] = decode(pair[1], arrays, special)
        except TypeError:
            raise LoadError(f"dict key {_short(key)} is not hashable.") from None
    return result


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
