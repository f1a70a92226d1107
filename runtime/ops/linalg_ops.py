"""numpy.linalg: norms, inverse, solve, determinants and the decompositions (Cholesky, QR, SVD,
symmetric eigenproblems), batched over leading axes as numpy's are.

Each op's kernel is numpy's own function, so results are numpy's bit for bit. Integer and bool
matrices are computed in float64 (numpy's rule); float16 is refused, as numpy's LAPACK has no
float16 (`norm` takes it, as numpy's does). A matrix numpy refuses (singular for `inv` and
`solve`, not positive definite for `cholesky`, not square) raises numpy's LinAlgError message
as an `rt.errors.InvalidArgumentError` (a ValueError, like LinAlgError): eagerly, and in a
graph when it runs (or while tracing, when the known dims already say it is not square).

Gradients are those of numpy's functions: `cholesky`, `eigh` and `eigvalsh` read one triangle of
the matrix (`UPLO`), so the other triangle gets a zero gradient (TensorFlow's `eigh` does the
same; its and JAX's `cholesky` give the symmetrized gradient, which agrees along symmetric
perturbations). `det`'s gradient uses the inverse (a singular matrix raises); `qr`'s needs
m >= n and `svd`'s through `U`/`Vh` needs `full_matrices=False` and distinct nonzero singular
values (the decomposition is not differentiable otherwise).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import normalize, shape_str
from runtime.core.tensor_conversion import binary_operands, convert_to_tensor
from runtime.errors import InvalidArgumentError, NoGradientError, argument_error, with_origin
from runtime.ops import array_ops, creation_ops, math_ops, reduction_ops, shapes
from runtime.ops.op_support import array_namespace
from runtime.ops.registry import (
    FRESH_OUTPUT,
    GRADIENT,
    JAX,
    NUMBA,
    ONNX,
    apply,
    define_op,
    lacks,
    register_rule,
)

# numpy's result types (numpy.linalg returns these named tuples).
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])

_LAPACK_FLOATS = (dtypes.float32, dtypes.float64)


def _matrix(a, name):
    """`a` as a float32/float64 tensor of rank >= 2 (integers and bools in float64, numpy's
    rule)."""
    a = _lapack_dtype(convert_to_tensor(a), name)
    if a.ndim < 2:
        raise argument_error(InvalidArgumentError, with_origin(
            f"linalg.{name}: {a.ndim}-dimensional array given. Array must be at least "
            "two-dimensional", user_origin()))
    return a


def _lapack_dtype(a, name):
    if a.dtype.is_integer or a.dtype.is_bool:
        return math_ops.cast(a, dtypes.float64)
    if a.dtype.is_complex:
        raise argument_error(
            TypeError, f"linalg.{name}: rt.linalg takes real matrices, not {a.dtype.name}."
        )
    if a.dtype not in _LAPACK_FLOATS:
        raise argument_error(
            TypeError,
            f"linalg.{name}: array type {a.dtype.name} is unsupported in linalg "
            "(numpy's rule); use rt.cast(a, rt.float32) or rt.float64 first.",
        )
    return a


def _square(shape, name):
    """Raises numpy's LinAlgError message when the known last two dims differ."""
    m, n = shape[-2:]
    if m is not None and n is not None and m != n:
        raise argument_error(
            InvalidArgumentError,
            f"linalg.{name}: Last 2 dimensions of the array must be "
            f"square, got shape {shape_str(shape)}",
        )


def _square_matrix_op(name, kernel, out_shape):
    """An op of one square-matrix operand (batched); `out_shape(shape)` gives each output's
    shape, all in the operand's dtype."""
    def infer(inputs, **attrs):
        a = inputs[0]
        _square(a.shape, name)
        return [(a.dtype, shape) for shape in out_shape(a.shape, **attrs)]

    return define_op(name, infer=infer, kernel=kernel, groups=[FRESH_OUTPUT])


def _tuple_kernel(fn):
    return lambda *args, **attrs: tuple(normalize(v) for v in fn(*args, **attrs))


INV = _square_matrix_op("MatrixInverse", np.linalg.inv, lambda s: [s])
DET = _square_matrix_op("MatrixDeterminant", lambda a: normalize(np.linalg.det(a)),
                        lambda s: [s[:-2]])
SLOGDET = _square_matrix_op("LogMatrixDeterminant", _tuple_kernel(np.linalg.slogdet),
                            lambda s: [s[:-2], s[:-2]])
CHOLESKY = _square_matrix_op("Cholesky", np.linalg.cholesky, lambda s: [s])
EIGH = _square_matrix_op("SelfAdjointEig", _tuple_kernel(np.linalg.eigh),
                         lambda s, *, UPLO: [s[:-1], s])
EIGVALSH = _square_matrix_op("SelfAdjointEigValues", np.linalg.eigvalsh,
                             lambda s, *, UPLO: [s[:-1]])


def _solve_infer(inputs):
    a, b = inputs
    _square(a.shape, "solve")
    if len(b.shape) == 1:  # numpy 2: a 1-d b is one vector, whatever a's batch
        _same_dim(a.shape[-1], b.shape[0])
        return [(a.dtype, a.shape[:-1])]
    _same_dim(a.shape[-1], b.shape[-2])
    return [(a.dtype, shapes.broadcast(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]))]


def _same_dim(n, m):
    if n is not None and m is not None and n != m:
        raise argument_error(
            InvalidArgumentError,
            f"linalg.solve: a is {n} x {n} but b has {m} rows; they must agree",
        )


SOLVE = define_op("MatrixSolve", infer=_solve_infer, kernel=np.linalg.solve,
                  groups=[FRESH_OUTPUT])


def _qr_infer(inputs):
    a = inputs[0]
    m, n = a.shape[-2:]
    k = min(m, n) if m is not None and n is not None else None
    return [(a.dtype, a.shape[:-2] + (m, k)), (a.dtype, a.shape[:-2] + (k, n))]


QR = define_op("Qr", infer=_qr_infer, kernel=_tuple_kernel(
    lambda a: np.linalg.qr(a, mode="reduced")), groups=[FRESH_OUTPUT])


def _svd_infer(inputs, *, full_matrices, compute_uv):
    a = inputs[0]
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n) if m is not None and n is not None else None
    values = (a.dtype, batch + (k,))
    if not compute_uv:
        return [values]
    u, vh = (m, m if full_matrices else k), (n if full_matrices else k, n)
    return [(a.dtype, batch + u), values, (a.dtype, batch + vh)]


def _svd_kernel(a, *, full_matrices, compute_uv):
    result = np.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(result) if compute_uv else result


SVD = define_op("Svd", infer=_svd_infer, kernel=_svd_kernel, groups=[FRESH_OUTPUT])


# ---- norm --------------------------------------------------------------------------------------
# The op keeps the reduced axes (size 1); `norm` squeezes them unless keepdims. Its `ord` attr is
# one of these names (a string, so a saved graph holds no infinities).
_ORDS = {"2": 2, "1": 1, "inf": np.inf, "-inf": -np.inf, "fro": "fro", None: None}
_VECTOR_ORDS = {None: "2", 2: "2", 1: "1", np.inf: "inf", -np.inf: "-inf"}


def _norm_infer(inputs, *, ord, axis):  # noqa: A002 - numpy's name
    x = inputs[0]
    dtype = x.dtype if x.dtype.is_floating else dtypes.float64
    axes = range(len(x.shape)) if axis is None else axis
    return [(dtype, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))]


def _norm_kernel(x, *, ord, axis):  # noqa: A002 - numpy's name
    return normalize(np.linalg.norm(x, ord=_ORDS[ord], axis=axis, keepdims=True))


NORM = define_op("Norm", infer=_norm_infer, kernel=_norm_kernel, groups=[FRESH_OUTPUT])


def _norm_attrs(x, ord, axis):  # noqa: A002 - numpy's name
    """(ord name, axis) of the Norm op for numpy's arguments; ValueError as numpy's."""
    if axis is None:
        if ord is None:
            return None, None  # the 2-norm of all elements (numpy flattens)
        if x.ndim not in (1, 2):
            raise argument_error(
                ValueError,
                "linalg.norm: Improper number of dimensions to norm: ord is given "
                f"and x has {x.ndim} dims; pass axis.",
            )
        axis = tuple(range(x.ndim))
    axis = shapes.static_ints(axis, "norm's axis")
    axis = tuple(shapes.static_check(shapes.normalize_axis, a, x.ndim, "linalg.norm")
                 for a in axis)
    if len(axis) == 1:
        name = _VECTOR_ORDS.get(ord) if not isinstance(ord, str) else None
        if name is None:
            raise argument_error(
                ValueError,
                f"linalg.norm: ord={ord!r} is not supported for vectors by "
                "rt.linalg.norm; use None (2), 1, 2, inf or -inf.",
            )
        return name, axis
    if len(axis) == 2:
        if axis[0] == axis[1]:
            raise argument_error(ValueError, "linalg.norm: Duplicate axes given.")
        if ord not in (None, "fro"):
            raise argument_error(
                ValueError,
                f"linalg.norm: ord={ord!r} is not supported for matrices by "
                "rt.linalg.norm; use None or 'fro' (the Frobenius norm).",
            )
        return "fro", axis
    raise argument_error(
        ValueError,
        "linalg.norm: Improper number of dimensions to norm: axis names "
        f"{len(axis)} axes, not 1 or 2.",
    )


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - numpy's name
    """numpy.linalg.norm: the 2-norm (default), 1-norm, inf / -inf norm of vectors along
    `axis` (an int), the Frobenius norm of matrices (`axis` a pair, or a 2-d `x` with ord
    'fro'), or with `ord` and `axis` None the 2-norm of all elements. Other orders are a
    ValueError."""
    x = convert_to_tensor(x)
    if x.dtype.is_string or x.dtype.is_list:
        raise argument_error(TypeError, f"linalg.norm takes numbers, not {x.dtype.name}.")
    if not (x.dtype.is_floating or x.dtype.is_integer or x.dtype.is_bool):
        raise argument_error(TypeError, f"linalg.norm takes real numbers, not {x.dtype.name}.")
    name, axes = _norm_attrs(x, ord, axis)
    result = apply(NORM, [x], {"ord": name, "axis": axes})
    if keepdims:
        return result
    return array_ops.squeeze(result, tuple(range(x.ndim)) if axes is None else axes)


# ---- the public functions ---------------------------------------------------------------------

def _square_operand(a, name):
    a = _matrix(a, name)
    shapes.static_check(_square, a.shape, name)
    return a


def inv(a):
    """numpy.linalg.inv: the inverse of each square matrix of `a` (..., M, M); a singular matrix
    is an InvalidArgumentError (numpy's LinAlgError)."""
    return apply(INV, [_square_operand(a, "inv")])


def solve(a, b):
    """numpy.linalg.solve: x with a @ x = b; `a` (..., M, M), `b` (M,) (one vector, numpy 2's
    rule) or (..., M, K), leading axes broadcast. A singular `a` is an InvalidArgumentError."""
    a, b = binary_operands(a, b, "linalg.solve")
    a = _square_operand(a, "solve")
    b = _lapack_dtype(b, "solve")
    if b.ndim == 0:
        raise argument_error(InvalidArgumentError, with_origin(
            "linalg.solve: b must be a vector (M,) or a stack of matrices (..., M, K), not a "
            "scalar", user_origin()))
    shapes.static_check(_solve_infer, [a, b])
    return apply(SOLVE, [a, b])


def det(a):
    """numpy.linalg.det: the determinant of each square matrix of `a` (..., M, M)."""
    return apply(DET, [_square_operand(a, "det")])


def slogdet(a):
    """numpy.linalg.slogdet: (sign, logabsdet) of the determinant of each square matrix."""
    return SlogdetResult(*apply(SLOGDET, [_square_operand(a, "slogdet")]))


def cholesky(a):
    """numpy.linalg.cholesky: the lower-triangular L with L @ L.T = a, reading the lower
    triangle of each matrix; a matrix that is not positive definite is an
    InvalidArgumentError."""
    return apply(CHOLESKY, [_square_operand(a, "cholesky")])


def qr(a, mode="reduced"):
    """numpy.linalg.qr with mode='reduced' (the only mode): (Q, R), Q (..., M, K) with
    orthonormal columns and R (..., K, N) upper triangular, K = min(M, N)."""
    if mode != "reduced":
        raise argument_error(
            ValueError,
            f"linalg.qr: mode={mode!r} is not supported; rt.linalg.qr computes "
            "mode='reduced' only.",
        )
    return QRResult(*apply(QR, [_matrix(a, "qr")]))


def svd(a, full_matrices=True, compute_uv=True):
    """numpy.linalg.svd: (U, S, Vh) with a = U @ diag(S) @ Vh, S descending; only S when
    `compute_uv` is False; U and Vh are square unless `full_matrices` is False."""
    attrs = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)}
    result = apply(SVD, [_matrix(a, "svd")], attrs)
    return SVDResult(*result) if compute_uv else result


def _uplo(UPLO):  # noqa: N803 - numpy's name
    if UPLO not in ("L", "U"):
        raise argument_error(ValueError, f"UPLO argument must be 'L' or 'U', got {UPLO!r}")
    return UPLO


def eigh(a, UPLO="L"):  # noqa: N803 - numpy's name
    """numpy.linalg.eigh: (eigenvalues ascending, eigenvectors as columns) of each symmetric
    matrix, reading its lower (UPLO='L') or upper ('U') triangle."""
    attrs = {"UPLO": _uplo(UPLO)}
    return EighResult(*apply(EIGH, [_square_operand(a, "eigh")], attrs))


def eigvalsh(a, UPLO="L"):  # noqa: N803 - numpy's name
    """numpy.linalg.eigvalsh: the eigenvalues (ascending) of each symmetric matrix."""
    return apply(EIGVALSH, [_square_operand(a, "eigvalsh")], {"UPLO": _uplo(UPLO)})


# ---- gradients ---------------------------------------------------------------------------------

def _mT(x):  # noqa: N802 - numpy's name of the matrix transpose
    return array_ops.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def _index_grids(x):
    """(rows, cols): int tensors of shape (n, 1) and (1, n) for x's last dim n (known or not)."""
    n = x.shape[-1]
    if n is not None:
        return (convert_to_tensor(np.arange(n, dtype=np.int32)[:, None]),
                convert_to_tensor(np.arange(n, dtype=np.int32)[None, :]))
    count = creation_ops.range(array_ops.shape(x)[-1])
    return array_ops.expand_dims(count, 1), array_ops.expand_dims(count, 0)


def _triangle(x, lower: bool):
    """x times the weights of one triangle: 1 strictly below (above) the diagonal, 1/2 on it.
    On a symmetric gradient G + G.T this gives the gradient of a function that reads one
    triangle (numpy's cholesky, eigh)."""
    rows, cols = _index_grids(x)
    strict = math_ops.greater(rows, cols) if lower else math_ops.less(rows, cols)
    weights = (math_ops.cast(strict, x.dtype)
               + math_ops.cast(math_ops.equal(rows, cols), x.dtype) * 0.5)
    return x * weights


def _zeros_if_none(grad, like):
    return creation_ops.zeros_like(like) if grad is None else grad


def _batch_scalar(g):
    """A gradient of one value per matrix, broadcast against the matrices."""
    return array_ops.expand_dims(array_ops.expand_dims(g, -1), -1)


@register_rule(GRADIENT, INV)
def _inv_gradient(op, grads):
    y = op.outputs[0]
    return [-math_ops.matmul(math_ops.matmul(y, grads[0], transpose_a=True), y,
                             transpose_b=True)]


@register_rule(GRADIENT, SOLVE)
def _solve_gradient(op, grads):
    a, b = op.inputs
    x = op.outputs[0]
    gb = solve(_mT(a), grads[0]) if len(b.shape) != 1 else _solve_vectors(a, grads[0])
    if len(b.shape) == 1:
        ga = -(array_ops.expand_dims(gb, -1) * array_ops.expand_dims(x, -2))
    else:
        ga = -math_ops.matmul(gb, x, transpose_b=True)
    return [array_ops.sum_to(ga, a), array_ops.sum_to(gb, b)]


def _solve_vectors(a, g):
    """solve(a.T, g) for g (..., M) of one vector per matrix of a."""
    column = array_ops.expand_dims(g, -1)
    return array_ops.squeeze(solve(_mT(a), column), (len(column.shape) - 1,))


@register_rule(GRADIENT, DET)
def _det_gradient(op, grads):
    a, d = op.inputs[0], op.outputs[0]
    return [_batch_scalar(grads[0] * d) * _mT(inv(a))]


@register_rule(GRADIENT, SLOGDET)
def _slogdet_gradient(op, grads):
    a = op.inputs[0]
    if grads[1] is None:  # the sign is piecewise constant
        return [creation_ops.zeros_like(a)]
    return [_batch_scalar(grads[1]) * _mT(inv(a))]


@register_rule(GRADIENT, CHOLESKY)
def _cholesky_gradient(op, grads):
    low = op.outputs[0]
    low_inv = inv(low)
    middle = _triangle(math_ops.matmul(low, grads[0], transpose_a=True), lower=True)
    raw = math_ops.matmul(math_ops.matmul(low_inv, middle, transpose_a=True), low_inv)
    return [_triangle(raw + _mT(raw), lower=True)]


def _eigh_raw_gradient(w, v, gw, gv):
    """V (diag(gw) + F * (V.T gv)) V.T, F[i, j] = 1 / (w[j] - w[i]) off the diagonal."""
    inner = array_ops.expand_dims(gw, -2) * _eye_like(w)
    if gv is not None:
        inner = inner + _reciprocal_gaps(w) * math_ops.matmul(v, gv, transpose_a=True)
    return math_ops.matmul(math_ops.matmul(v, inner), v, transpose_b=True)


def _eye_like(values):
    """The identity matrix (n, n) of the last axis of `values`, in their dtype."""
    rows, cols = _index_grids(values)
    return math_ops.cast(math_ops.equal(rows, cols), values.dtype)


def _reciprocal_gaps(values):
    """F[..., i, j] = 1 / (values[j] - values[i]), 0 on the diagonal."""
    rows, cols = _index_grids(values)
    diagonal = math_ops.equal(rows, cols)
    gap = array_ops.expand_dims(values, -2) - array_ops.expand_dims(values, -1)
    ones = creation_ops.ones_like(gap)
    return math_ops.where(diagonal, creation_ops.zeros_like(gap),
                          ones / math_ops.where(diagonal, ones, gap))


@register_rule(GRADIENT, EIGH)
def _eigh_gradient(op, grads):
    w, v = op.outputs
    raw = _eigh_raw_gradient(w, v, _zeros_if_none(grads[0], w), grads[1])
    return [_triangle(raw + _mT(raw), lower=op.attrs["UPLO"] == "L")]


@register_rule(GRADIENT, EIGVALSH)
def _eigvalsh_gradient(op, grads):
    w, v = apply(EIGH, [op.inputs[0]], {"UPLO": op.attrs["UPLO"]})
    raw = _eigh_raw_gradient(w, v, grads[0], None)
    return [_triangle(raw + _mT(raw), lower=op.attrs["UPLO"] == "L")]


@register_rule(GRADIENT, QR)
def _qr_gradient(op, grads):
    """TensorFlow's rule (m >= n): Q (dR + tril(Q.T dQ - dQ.T Q + R dR.T - dR R.T) R^-T)
    + (dQ - Q Q.T dQ) R^-T."""
    a = op.inputs[0]
    m, n = a.shape[-2:]
    if m is not None and n is not None and m < n:
        raise NoGradientError(f"linalg.qr's gradient needs a matrix with at least as many rows "
                              f"as columns, got {m} x {n} (as TensorFlow's).")
    q, r = op.outputs
    gq, gr = _zeros_if_none(grads[0], q), _zeros_if_none(grads[1], r)
    qdq = math_ops.matmul(q, gq, transpose_a=True)
    rdr = math_ops.matmul(r, gr, transpose_b=True)
    low = _triangle(qdq - _mT(qdq) + rdr - _mT(rdr), lower=True)  # its diagonal is zero
    r_inv_t = _mT(inv(r))
    grad_a = math_ops.matmul(q, gr + math_ops.matmul(low, r_inv_t))
    grad_b = math_ops.matmul(gq - math_ops.matmul(q, qdq), r_inv_t)
    return [grad_a + grad_b]


@register_rule(GRADIENT, SVD)
def _svd_gradient(op, grads):
    """Townsend's rule ("Differentiating the singular value decomposition", 2016), real case:
    A' = U [(F*(U.T dU - dU.T U)) S + diag(dS) + S (F*(V.T dV - dV.T V))] V.T
         + (I - U U.T) dU S^-1 V.T + U S^-1 dV.T (I - V V.T),  F[i, j] = 1 / (s[j]² - s[i]²)."""
    a, attrs = op.inputs[0], op.attrs
    if not attrs["compute_uv"]:
        grad_u = grad_vh = None
        grad_s = grads[0]
    else:
        grad_u, grad_s, grad_vh = grads
    if (grad_u is not None or grad_vh is not None) and attrs["full_matrices"]:
        raise NoGradientError(
            "linalg.svd's gradient through U or Vh needs full_matrices=False: the extra columns "
            "of full U and Vh are not unique.")
    if attrs["compute_uv"] and not attrs["full_matrices"]:
        u, s, vh = op.outputs
    else:
        u, s, vh = apply(SVD, [a], {"full_matrices": False, "compute_uv": True})
    inner = array_ops.expand_dims(_zeros_if_none(grad_s, s), -2) * _eye_like(s)
    if grad_u is None and grad_vh is None:
        return [math_ops.matmul(math_ops.matmul(u, inner), vh)]
    v = _mT(vh)
    grad_u = _zeros_if_none(grad_u, u)
    grad_v = _mT(_zeros_if_none(grad_vh, vh))
    f = _reciprocal_gaps(s * s)
    utgu = math_ops.matmul(u, grad_u, transpose_a=True)
    vtgv = math_ops.matmul(v, grad_v, transpose_a=True)
    row_s, col_s = array_ops.expand_dims(s, -1), array_ops.expand_dims(s, -2)
    inner = inner + f * (utgu - _mT(utgu)) * col_s + row_s * (f * (vtgv - _mT(vtgv)))
    return [math_ops.matmul(math_ops.matmul(u, inner), vh)
            + math_ops.matmul((grad_u - math_ops.matmul(u, utgu)) / col_s, vh)
            + math_ops.matmul(u, _mT((grad_v - math_ops.matmul(v, vtgv)) / col_s))]


@register_rule(GRADIENT, NORM)
def _norm_gradient(op, grads):
    x, y = op.inputs[0], op.outputs[0]
    g, ord_ = grads[0], op.attrs["ord"]  # g has y's kept axes: it broadcasts against x
    if ord_ in (None, "2", "fro"):
        zero = math_ops.equal(y, 0.0)
        return [g * x / math_ops.where(zero, creation_ops.ones_like(y), y)]
    if ord_ == "1":
        return [g * math_ops.sign(x)]
    chosen = math_ops.cast(math_ops.equal(math_ops.abs(x), y), x.dtype)  # inf / -inf: ties share
    ties = reduction_ops.reduce_sum(chosen, op.attrs["axis"], keepdims=True)
    return [g * math_ops.sign(x) * chosen / ties]


# ---- ONNX, numba, JAX ----------------------------------------------------------------------------

_ONNX_NORMS = {None: "ReduceL2", "2": "ReduceL2", "fro": "ReduceL2", "1": "ReduceL1"}


@register_rule(ONNX, NORM)
def _norm_onnx(b, op, x):
    value = b.cast(x[0], op.inputs[0].dtype, op.outputs[0].dtype)
    axis, ord_ = op.attrs["axis"], op.attrs["ord"]
    axes = list(range(len(op.inputs[0].shape))) if axis is None else list(axis)
    given = [b.int64s(axes)] if axes else []
    if ord_ in _ONNX_NORMS:
        return [b.one(_ONNX_NORMS[ord_], value, *given, keepdims=1)]
    reduce = "ReduceMax" if ord_ == "inf" else "ReduceMin"
    return [b.one(reduce, b.one("Abs", value), *given, keepdims=1)]


lacks(ONNX, "standard ONNX has no matrix factorization, inverse or solve (onnxruntime's "
      "Inverse is a com.microsoft contrib op)", INV, SOLVE, CHOLESKY, QR, SVD, EIGH, EIGVALSH)
lacks(ONNX, "standard ONNX's Det has no log-determinant or sign output", SLOGDET)
register_rule(ONNX, DET)(lambda b, op, x: [b.one("Det", x[0])])

lacks(NUMBA, "numba's np.linalg takes single 2-d matrices (no batches, no axis or keepdims) and "
      "calls LAPACK through SciPy, whose results differ from numpy's in the last bits",
      NORM, INV, SOLVE, DET, SLOGDET, CHOLESKY, QR, SVD, EIGH, EIGVALSH)


def _jax_rule(name, **jax_only):
    """The JAX rule `jnp.linalg.<name>(x, **attrs, **jax_only)` (numpy's on values known while
    tracing). XLA raises no LinAlgError: a singular or not positive definite matrix gives infs
    or nans there."""
    def rule(op, *xs):
        module = array_namespace(*xs)
        extra = jax_only if module is not np else {}
        result = getattr(module.linalg, name)(*xs, **op.attrs, **extra)
        return tuple(result) if isinstance(result, tuple) else result
    return rule


register_rule(JAX, INV)(_jax_rule("inv"))
register_rule(JAX, SOLVE)(_jax_rule("solve"))
register_rule(JAX, DET)(_jax_rule("det"))
register_rule(JAX, SLOGDET)(_jax_rule("slogdet"))
# numpy reads one triangle of the matrix; JAX would average the two by default
register_rule(JAX, CHOLESKY)(_jax_rule("cholesky", symmetrize_input=False))
register_rule(JAX, QR)(_jax_rule("qr"))  # mode="reduced", numpy's and JAX's default
register_rule(JAX, SVD)(_jax_rule("svd"))
register_rule(JAX, EIGH)(_jax_rule("eigh", symmetrize_input=False))
register_rule(JAX, EIGVALSH)(_jax_rule("eigvalsh", symmetrize_input=False))


@register_rule(JAX, NORM)
def _norm_jax(op, x):
    value = x.astype(op.outputs[0].dtype.np_dtype)  # integers: float64, as numpy's
    return array_namespace(x).linalg.norm(value, ord=_ORDS[op.attrs["ord"]],
                                              axis=op.attrs["axis"], keepdims=True)
