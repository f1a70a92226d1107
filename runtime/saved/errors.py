"""The two errors of saving and loading."""

from __future__ import annotations


class SaveError(ValueError):
    """A function cannot be saved (e.g. an argument or attr that is not plain data)."""


class LoadError(ValueError):
    """A saved function cannot be loaded: the files are missing, corrupted, truncated, tampered
    with, or from an incompatible version. The message names what is wrong and where."""
