"""The files of a saved function: `saved_function.json` and `arrays.npz` in one directory.

The JSON document carries a format name and version and the SHA-256 of the `.npz` file, so a
truncated or altered array file is caught before it is parsed. Arrays are read with
`allow_pickle=False`: loading never runs code from the files.

Reading is bounded, whatever the directory holds:
  * Only regular files are read. Each file is `stat`ed first (symlinks are followed, so a link
    to a regular file is read like the file; a link to anything else, a dangling link or a
    loop is refused); FIFOs, sockets, devices and directories are refused without being
    opened. The file is then opened with O_NONBLOCK and checked again with `fstat` (same
    file, still regular), so swapping it between the two checks cannot make the loader block.
  * Sizes are checked before reading, and no more than the limit is ever read (a file that
    grows while it is read is refused): `saved_function.json` holds at most `MAX_JSON_BYTES`
    (16 MiB) and `arrays.npz` at most `MAX_ARRAYS_BYTES` (1 GiB).
  * `arrays.npz` holds at most `MAX_ARRAYS` (65536) entries; its zip directory is checked
    before it is parsed. Entries must be uncompressed `.npy` arrays of a numeric dtype whose
    header states exactly the bytes the entry holds, and the entries together may not hold
    more bytes than the file: arrays never take more memory than the file's size.
The limits are module constants; a program that trusts bigger files can raise them.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import zipfile

import numpy as np

from runtime.core import file_io
from runtime.saved.errors import LoadError
from runtime.saved.values import NUMERIC_NP_DTYPES, ArrayReader

FORMAT = "runtime.saved"
VERSION = 2  # 2: graphs stored after the optimizing passes; origins with a column
READABLE_VERSIONS = (1, 2)  # version 1 files hold graphs as traced: they load unoptimized
JSON_FILE = "saved_function.json"
ARRAYS_FILE = "arrays.npz"

MAX_JSON_BYTES = 16 << 20
MAX_ARRAYS_BYTES = 1 << 30
MAX_ARRAYS = 1 << 16
# Bytes of zip central directory allowed per entry (numpy's entries take about 60): bounds the
# records zipfile parses before the entries can be counted.
_DIRECTORY_BYTES_PER_ENTRY = 128


def write(directory, document: dict, arrays: dict) -> None:
    """Writes `document` (JSON-able) and `arrays` (numeric numpy arrays) into `directory`."""
    os.makedirs(directory, exist_ok=True)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    data = buffer.getvalue()
    with open(os.path.join(directory, ARRAYS_FILE), "wb") as f:
        f.write(data)
    header = {"format": FORMAT, "version": VERSION,
              "arrays_sha256": hashlib.sha256(data).hexdigest()}
    with open(os.path.join(directory, JSON_FILE), "w", encoding="utf-8") as f:
        json.dump({**header, **document}, f, indent=1)


def read(directory) -> tuple[dict, ArrayReader]:
    """The JSON document (header checked) and the arrays of a saved function."""
    document = _read_json(os.path.join(directory, JSON_FILE))
    if document.get("format") != FORMAT:
        raise LoadError(f"{JSON_FILE} is not a saved runtime function (format "
                        f"{_short(document.get('format'))}, expected {FORMAT!r}).")
    version = document.get("version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise LoadError(f"{JSON_FILE} has format version {_short(document.get('version'))}; "
                        f"this runtime reads versions "
                        f"{', '.join(map(str, READABLE_VERSIONS))}. Save the function again "
                        "with it.")
    data = read_regular_file(os.path.join(directory, ARRAYS_FILE), MAX_ARRAYS_BYTES,
                             "MAX_ARRAYS_BYTES")
    if hashlib.sha256(data).hexdigest() != document.get("arrays_sha256"):
        raise LoadError(f"{ARRAYS_FILE} does not match the checksum recorded in {JSON_FILE}: "
                        "the file was truncated or modified.")
    return document, ArrayReader(_parse_npz(data))


def read_regular_file(path, limit: int, limit_name: str) -> bytes:
    """file_io.read_regular_file with this module's limits named and LoadError raised."""
    return file_io.read_regular_file(path, limit, f"runtime.saved.storage.{limit_name}",
                                     LoadError)


def _read_json(path) -> dict:
    data = read_regular_file(path, MAX_JSON_BYTES, "MAX_JSON_BYTES")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise LoadError(f"{os.path.basename(path)} is not valid JSON ({e}).") from None
    if not isinstance(document, dict):
        raise LoadError(f"{os.path.basename(path)} does not hold a JSON object.")
    return document


def _parse_npz(data: bytes) -> dict:
    try:
        _check_zip_directory(data)
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_ARRAYS:
                raise ValueError(f"{len(infos)} entries, more than MAX_ARRAYS = {MAX_ARRAYS}")
            names = [info.filename for info in infos]
            if len(set(names)) != len(names):
                raise ValueError("an entry name is used twice")
            for info in infos:
                if info.compress_type != zipfile.ZIP_STORED:
                    raise ValueError("compressed entries (this runtime writes uncompressed ones)")
                if not info.filename.endswith(".npy") or info.compress_size != info.file_size:
                    raise ValueError(f"entry {info.filename!r} is not a stored .npy array")
            if sum(info.file_size for info in infos) > len(data):
                raise ValueError("its entries hold more bytes than the file")
            headers: dict = {}  # raw header -> (shape, fortran order, dtype): parsed once
            return {info.filename[:-len(".npy")]: _read_array(archive, info, headers)
                    for info in infos}
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - whatever zipfile/numpy raise on bad bytes
        raise LoadError(f"{ARRAYS_FILE} is not a valid array file ({e}).") from None


def _check_zip_directory(data: bytes) -> None:
    """Refuses an archive whose end record announces too many entries or a central directory
    too big for them, before zipfile parses that directory (one object per record)."""
    end_record = getattr(zipfile, "_EndRecData", None)  # what ZipFile itself reads
    if end_record is None:
        return
    record = end_record(io.BytesIO(data))
    if record is None:
        return  # not a zip archive: ZipFile says so
    entries, directory_bytes = record[4], record[5]  # _ECD_ENTRIES_TOTAL, _ECD_SIZE
    if entries > MAX_ARRAYS or directory_bytes > MAX_ARRAYS * _DIRECTORY_BYTES_PER_ENTRY:
        raise ValueError(f"its directory announces {entries} entries in {directory_bytes} bytes; "
                         f"at most MAX_ARRAYS = {MAX_ARRAYS} are read")


def _read_array(archive: zipfile.ZipFile, info: zipfile.ZipInfo, headers: dict) -> np.ndarray:
    """One `.npy` entry, after its header is checked against the entry's size."""
    fmt = np.lib.format
    with archive.open(info) as f:
        version = fmt.read_magic(f)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"entry {info.filename!r} has .npy format version {version}")
        size_bytes = 2 if version == (1, 0) else 4
        length = int.from_bytes(f.read(size_bytes), "little")
        raw = f.read(length)
        parsed = headers.get((version, raw))
        if parsed is None:
            prefix = fmt.magic(*version) + len(raw).to_bytes(size_bytes, "little")
            reader = (fmt.read_array_header_1_0 if version == (1, 0)
                      else fmt.read_array_header_2_0)
            stream = io.BytesIO(prefix + raw)
            fmt.read_magic(stream)
            parsed = headers[(version, raw)] = reader(stream)
        shape, fortran_order, dtype = parsed
        header_bytes = f.tell()
        if dtype not in NUMERIC_NP_DTYPES:
            raise ValueError(f"entry {info.filename!r} has the unsupported dtype {dtype}")
        data_bytes = math.prod(shape) * dtype.itemsize
        if header_bytes + data_bytes != info.file_size:
            raise ValueError(f"entry {info.filename!r} declares {dtype}{list(shape)} "
                             f"({data_bytes} bytes) but holds {info.file_size - header_bytes}")
        flat = np.frombuffer(f.read(data_bytes), dtype=dtype).copy()
    return flat.reshape(shape, order="F" if fortran_order else "C")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
