"""Reading and writing the safetensors file format with numpy alone.

A safetensors file is an 8-byte little-endian header length N, N bytes of a JSON header, then
the arrays' bytes: the header maps each array's name to its dtype, shape and byte range
(`data_offsets`, relative to the end of the header), plus an optional `__metadata__` object of
strings. Nothing in the file is code: reading it parses one JSON object and copies bytes, so
other tools (the `safetensors` package, in any language) read our files and we read theirs.

Reading checks everything before it allocates: the file is a regular file within `MAX_BYTES`
(runtime/core/file_io.py's bounded reader), the header is a JSON object within the file, every
dtype is known, every shape has non-negative dims, every byte range lies in the data, has the
size its dtype and shape give, and the ranges cover the data without overlapping. Anything else
is a `CheckpointError` naming the file and what is wrong.
"""

from __future__ import annotations

import json
import math
import struct

import numpy as np

from runtime.core.file_io import read_regular_file

MAX_BYTES = 1 << 34  # a checkpoint file may hold 16 GiB; raise it to read bigger ones
MAX_HEADER_BYTES = 100 << 20

# safetensors' dtype names (little-endian)
_DTYPES: dict[str, np.dtype] = {
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"), "I32": np.dtype("<i4"), "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"), "U8": np.dtype("u1"), "BOOL": np.dtype("?")}
_NAMES = {dtype: name for name, dtype in _DTYPES.items()}


class CheckpointError(ValueError):
    """A checkpoint or weights file that cannot be read, or does not fit the objects."""


def encode(arrays: dict, metadata: dict | None = None) -> bytes:
    """The bytes of a safetensors file holding `arrays` ({name: numpy array}) and `metadata`
    ({str: str})."""
    header, chunks, offset = {}, [], 0
    for name, array in arrays.items():
        array = np.asarray(array)
        dtype = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
        if dtype not in _NAMES:
            raise TypeError(f"cannot write {name!r} of dtype {array.dtype} to a checkpoint: the "
                            f"format holds {', '.join(str(d) for d in _NAMES)}.")
        data = np.ascontiguousarray(array, dtype=dtype).tobytes()
        header[name] = {"dtype": _NAMES[dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def read(path) -> tuple[dict, dict]:
    """({name: numpy array}, metadata) of the safetensors file at `path`."""
    data = read_regular_file(path, MAX_BYTES, "runtime.train.safetensors_format.MAX_BYTES",
                             CheckpointError)
    return decode(data, str(path))


def decode(data: bytes, where: str = "the file") -> tuple[dict, dict]:
    """({name: numpy array}, metadata) of safetensors bytes (see the module docstring)."""
    def bad(why):
        return CheckpointError(f"{where} is not a valid checkpoint file: {why}.")

    if len(data) < 8:
        raise bad(f"it has {len(data)} bytes, fewer than the 8 of a header length")
    (size,) = struct.unpack("<Q", data[:8])
    if size > min(len(data) - 8, MAX_HEADER_BYTES):
        raise bad(f"its header length {size} runs past the file's {len(data)} bytes")
    try:
        header = json.loads(data[8:8 + size].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise bad(f"its header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise bad("its header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise bad("its __metadata__ is not an object of strings")
    body, ranges, arrays = memoryview(data)[8 + size:], [], {}
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise bad(f"the entry {name!r} is not {{dtype, shape, data_offsets}}")
        dtype = _DTYPES.get(entry["dtype"]) if isinstance(entry["dtype"], str) else None
        shape, offsets = entry["shape"], entry["data_offsets"]
        if dtype is None:
            raise bad(f"{name!r} has the unknown dtype {entry['dtype']!r}")
        if not (isinstance(shape, list) and len(shape) <= 64 and all(
                type(d) is int and d >= 0 for d in shape)):
            raise bad(f"{name!r} has the shape {shape!r}, not a list of dims >= 0")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(
                type(o) is int for o in offsets) and 0 <= offsets[0] <= offsets[1] <= len(body)):
            raise bad(f"{name!r} has the byte range {offsets!r}, outside the {len(body)} bytes "
                      "of data")
        if offsets[1] - offsets[0] != math.prod(shape) * dtype.itemsize:
            raise bad(f"{name!r} has {offsets[1] - offsets[0]} bytes, but its dtype and shape "
                      f"{shape} take {math.prod(shape) * dtype.itemsize}")
        ranges.append((offsets[0], offsets[1], name))
        arrays[name] = (dtype, shape, offsets)
    end = 0
    for start, stop, name in sorted(ranges):
        if start != end:
            raise bad(f"{name!r} starts at byte {start}, not where the data before it ends "
                      f"({end}): ranges overlap or leave gaps")
        end = stop
    if end != len(body):
        raise bad(f"its arrays hold {end} bytes, but the file has {len(body)} after the header")
    return ({name: np.frombuffer(body[start:stop], dtype).reshape(shape).copy()
             for name, (dtype, shape, (start, stop)) in arrays.items()}, metadata)
