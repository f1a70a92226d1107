"""`python -m runtime.numpy`: the numpy names that run on tensors (as README.md lists them)."""

import os
import sys

from runtime.numpy.dispatch import names_markdown, wrapped
from runtime.numpy.ndarray_methods import NAMES


def listing() -> str:
    """The supported numpy functions and ndarray methods, as README.md shows them."""
    return (f"{names_markdown()}\n"
            + wrapped(f"ndarray methods and attributes ({len(NAMES)}):", NAMES))


if __name__ == "__main__":
    try:
        print(listing())
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
