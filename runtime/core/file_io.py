"""Files read safely and written atomically (saved functions and modules, checkpoints).

Reading: only regular files (symlinks followed; FIFOs, sockets, devices and directories are
refused without being opened, so a hostile path cannot block the reader), at most a stated
number of bytes, checked again after opening (a file swapped or grown meanwhile is refused).
Writing: to a temporary file in the same directory, flushed to disk, then renamed over the
name, so the name always holds the old file or the whole new one.
"""

from __future__ import annotations

import os
import secrets
import stat

_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def _check_file(status: os.stat_result, path, limit: int, limit_name: str, error) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise error(f"{path} is {_kind(status.st_mode)}, not a regular file.")
    if status.st_size > limit:
        raise error(f"{path} holds {status.st_size} bytes, more than the {limit} bytes "
                        f"this runtime reads ({limit_name}).")


def read_regular_file(path, limit: int, limit_name: str, error=OSError) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `limit` of them
    (`limit_name`: the setting that raises it); anything else is an `error`, raised before the
    file is opened or read."""
    try:
        before = os.stat(path)
    except (OSError, ValueError) as e:
        raise error(f"cannot read {path}: {getattr(e, 'strerror', None) or e}.") from None
    _check_file(before, path, limit, limit_name, error)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as e:
        raise error(f"cannot read {path}: {e.strerror or e}.") from None
    try:
        status = os.fstat(fd)
        if (status.st_dev, status.st_ino) != (before.st_dev, before.st_ino):
            raise error(f"{path} was replaced while it was being opened.")
        _check_file(status, path, limit, limit_name, error)
        with open(fd, "rb", closefd=False) as f:
            data = f.read(status.st_size)  # one buffer of the stated size
            if f.read(1):
                raise error(f"{path} grew while it was being read.")
    except OSError as e:
        raise error(f"cannot read {path}: {e.strerror or e}.") from None
    finally:
        os.close(fd)
    return data if data is not None else b""


def write_atomically(path, data: bytes) -> None:
    """Writes `data` to `path` so that `path` is always the old file or the whole new one."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    temporary = os.path.join(directory, f".tmp-{os.getpid()}-{secrets.token_hex(8)}.part")
    # (0o666 less the umask, as for any file the user writes; mkstemp's would be 0o600)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    _sync_directory(directory)


def _sync_directory(directory) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # (not supported here: the rename is still atomic)
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
