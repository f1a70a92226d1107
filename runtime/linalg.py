"""rt.linalg: numpy.linalg's functions on tensors, with numpy's names, signatures and results
(the ops are defined in runtime/ops/linalg_ops.py)."""

from runtime.ops.linalg_ops import (  # noqa: F401 - the public namespace
    EighResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    cholesky,
    det,
    eigh,
    eigvalsh,
    inv,
    norm,
    qr,
    slogdet,
    solve,
    svd,
)

__all__ = ["EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "det", "eigh",
           "eigvalsh", "inv", "norm", "qr", "slogdet", "solve", "svd"]
