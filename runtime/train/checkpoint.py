"""`rt.train.Checkpoint`, `CheckpointManager`, `latest_checkpoint`: training state on disk.

    checkpoint = rt.train.Checkpoint(model=model, optimizer=optimizer)
    path = checkpoint.save("ckpts/ckpt")              # ckpts/ckpt-1, ckpts/ckpt-2, ...
    checkpoint.restore(rt.train.latest_checkpoint("ckpts")).assert_consumed()

A checkpoint `ckpts/ckpt-3` is one file, `ckpts/ckpt-3.safetensors` (safetensors_format.py: the
variables' values under their object paths, object_graph.py), and the directory's `checkpoint`
file (JSON) names the latest and the kept ones. Both are written atomically: to a temporary file
in the same directory, flushed to disk, then renamed over the old name, so a crash at any point
leaves the last complete checkpoint readable and named.
"""

from __future__ import annotations

import json
import os
import re

from runtime.core import dtypes
from runtime.core.file_io import read_regular_file, write_atomically
from runtime.train import object_graph, safetensors_format
from runtime.train.safetensors_format import CheckpointError
from runtime.variables import Variable

SUFFIX = ".safetensors"
STATE_FILE = "checkpoint"
_FORMAT = "tracegraph.checkpoint"


def write_file(path, roots: dict, weights_only: bool = False) -> None:
    """Writes the variables reachable from `roots` to the safetensors file `path`."""
    values = object_graph.values_of(roots, weights_only)
    data = safetensors_format.encode(values, {"format": _FORMAT})
    write_atomically(path, data)


def read_file(path, roots: dict, weights_only: bool = False) -> object_graph.Restoration:
    """Restores the objects of `roots` from the safetensors file `path`."""
    values, _ = safetensors_format.read(path)
    return object_graph.Restoration(values, path).restore(roots, weights_only)


class Checkpoint:
    """The Variables, modules, optimizers and metrics given as keyword arguments, saved and
    restored together (see the module docstring)."""

    def __init__(self, **objects):
        for name, value in objects.items():
            if name == "save_counter":
                raise ValueError("`save_counter` is the checkpoint's own; name the object "
                                 "otherwise.")
            if value is None:
                raise ValueError(f"Checkpoint(... {name}=None): pass an object to save.")
        self._objects = dict(objects)
        self.save_counter = Variable(0, trainable=False, name="save_counter", dtype=dtypes.int64)

    def _roots(self) -> dict:
        return {**self._objects, "save_counter": self.save_counter}

    def write(self, file_prefix) -> str:
        """Writes the objects to `file_prefix` + ".safetensors" (no numbering); returns the
        checkpoint's path (what `restore` takes)."""
        path = os.fspath(file_prefix)
        write_file(path + SUFFIX, self._roots())
        return path

    def save(self, file_prefix) -> str:
        """Writes a numbered checkpoint `<file_prefix>-<n>` and names it the directory's latest;
        returns its path."""
        self.save_counter.assign_add(1)
        path = f"{os.fspath(file_prefix)}-{int(self.save_counter.numpy())}"
        self.write(path)
        directory = os.path.dirname(path) or "."
        state = _read_state(directory) or {"latest": None, "all": []}
        kept = [p for p in state["all"] if p != os.path.basename(path)]
        _write_state(directory, os.path.basename(path), [*kept, os.path.basename(path)])
        return path

    def restore(self, save_path) -> object_graph.Restoration:
        """Restores the objects from the checkpoint at `save_path` (what `save` returned, or
        `latest_checkpoint(directory)`); None restores nothing. Returns a status with
        `assert_consumed()`, `assert_existing_objects_matched()` and `expect_partial()`."""
        if save_path is None:
            return object_graph.Restoration({}, None)
        return read_file(_checkpoint_file(save_path), self._roots())

    read = restore


def _checkpoint_file(save_path) -> str:
    path = os.fspath(save_path)
    return path if path.endswith(SUFFIX) else path + SUFFIX


def _read_state(directory) -> dict | None:
    path = os.path.join(directory, STATE_FILE)
    if not os.path.exists(path):
        return None
    try:
        state = json.loads(read_regular_file(path, 1 << 20, "1 MiB", CheckpointError)
                           .decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CheckpointError(f"{path} is not a checkpoint state file ({e}).") from None
    if not (isinstance(state, dict) and state.get("format") == _FORMAT
            and isinstance(state.get("all"), list) and all(
                isinstance(p, str) and _is_name(p) for p in state["all"])
            and (state.get("latest") is None or _is_name(state.get("latest")))):
        raise CheckpointError(f"{path} is not a checkpoint state file of this library.")
    return state


def _is_name(value) -> bool:
    """A checkpoint's file name in its directory (never a path elsewhere)."""
    return isinstance(value, str) and bool(re.fullmatch(r"[^/\\\x00]+", value)) and value not in (
        ".", "..")


def _write_state(directory, latest, all_paths) -> None:
    state = {"format": _FORMAT, "latest": latest, "all": list(all_paths)}
    write_atomically(os.path.join(directory, STATE_FILE), json.dumps(state, indent=1).encode())


def latest_checkpoint(checkpoint_dir) -> str | None:
    """The path of the latest checkpoint saved in `checkpoint_dir`, or None if there is none."""
    directory = os.fspath(checkpoint_dir)
    state = _read_state(directory)
    if state is None or state["latest"] is None:
        return None
    path = os.path.join(directory, state["latest"])
    return path if os.path.exists(path + SUFFIX) else None


class CheckpointManager:
    """Numbered saves of `checkpoint` in `directory`, keeping the newest `max_to_keep` (None:
    all) and deleting the older ones' files."""

    def __init__(self, checkpoint: Checkpoint, directory, max_to_keep=5,
                 checkpoint_name="ckpt"):
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep < 1):
            raise ValueError(f"max_to_keep is a positive int or None, got {max_to_keep!r}.")
        if not _is_name(checkpoint_name):
            raise ValueError(f"checkpoint_name is a file name, got {checkpoint_name!r}.")
        self._checkpoint, self.directory = checkpoint, os.fspath(directory)
        self.max_to_keep, self._name = max_to_keep, checkpoint_name

    @property
    def checkpoints(self) -> list:
        """The kept checkpoints' paths, oldest first."""
        state = _read_state(self.directory)
        return [] if state is None else [os.path.join(self.directory, p) for p in state["all"]]

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint in `directory`, or None."""
        return latest_checkpoint(self.directory)

    def save(self, checkpoint_number=None) -> str:
        """Saves `<directory>/<checkpoint_name>-<n>` (n: `checkpoint_number` or the
        checkpoint's save counter), drops the oldest beyond `max_to_keep`; returns the path."""
        checkpoint = self._checkpoint
        if checkpoint_number is None:
            checkpoint.save_counter.assign_add(1)
            number = int(checkpoint.save_counter.numpy())
        else:
            number = int(checkpoint_number)
        name = f"{self._name}-{number}"
        checkpoint.write(os.path.join(self.directory, name))
        state = _read_state(self.directory) or {"all": []}
        kept = [p for p in state["all"] if p != name] + [name]
        dropped = kept[:-self.max_to_keep] if self.max_to_keep is not None else []
        kept = kept[len(dropped):]
        _write_state(self.directory, name, kept)
        for old in dropped:  # (after the state no longer names them)
            try:
                os.unlink(os.path.join(self.directory, old + SUFFIX))
            except FileNotFoundError:
                pass
        return os.path.join(self.directory, name)

    def restore_or_initialize(self):
        """Restores the latest checkpoint if there is one; returns its path (or None)."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
        return latest
