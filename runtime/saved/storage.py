"""The files of a saved function: `saved_function.json` and `arrays.npz` in one directory.

The JSON document carries a format name and version and the SHA-256 of the `.npz` file, so a
truncated or altered array file is caught before it is parsed. Arrays are read with
`allow_pickle=False`: loading never runs code from the files.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile

import numpy as np

from runtime.saved.errors import LoadError
from runtime.saved.values import ArrayReader

FORMAT = "runtime.saved"
VERSION = 1
JSON_FILE = "saved_function.json"
ARRAYS_FILE = "arrays.npz"


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
                        f"{document.get('format')!r}, expected {FORMAT!r}).")
    if document.get("version") != VERSION:
        raise LoadError(f"{JSON_FILE} has format version {document.get('version')!r}; this "
                        f"runtime reads version {VERSION}. Save the function again with it.")
    data = _read_bytes(os.path.join(directory, ARRAYS_FILE))
    if hashlib.sha256(data).hexdigest() != document.get("arrays_sha256"):
        raise LoadError(f"{ARRAYS_FILE} does not match the checksum recorded in {JSON_FILE}: "
                        "the file was truncated or modified.")
    return document, ArrayReader(_parse_npz(data))


def _read_bytes(path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise LoadError(f"cannot read {path}: {e.strerror or e}.") from None


def _read_json(path) -> dict:
    data = _read_bytes(path)
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise LoadError(f"{os.path.basename(path)} is not valid JSON ({e}).") from None
    if not isinstance(document, dict):
        raise LoadError(f"{os.path.basename(path)} does not hold a JSON object.")
    return document


def _parse_npz(data: bytes) -> dict:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if any(info.compress_type != zipfile.ZIP_STORED for info in archive.infolist()):
                raise ValueError("compressed entries (this runtime writes uncompressed ones)")
        npz = np.load(io.BytesIO(data), allow_pickle=False)
        with npz:
            return {key: npz[key] for key in npz.files}
    except Exception as e:  # noqa: BLE001 - whatever zipfile/numpy raise on bad bytes
        raise LoadError(f"{ARRAYS_FILE} is not a valid array file ({e}).") from None
