"""`rt.data`: tf.data's Dataset over in-memory tensors.

    dataset = rt.data.Dataset.from_tensor_slices((images, labels)).shuffle(1000).batch(32)

Iterated in Python it gives eager tensors (runtime/data/dataset.py); a `for` over it inside
`rt.function` is one graph loop (runtime/data/graph_iteration.py).
"""

from runtime.data.dataset import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
)

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset"]
