"""Sums of products over axes, with numpy's names: einsum, tensordot, dot, inner, outer, vdot,
and the 1-D convolve and correlate.

Two ops contract: `Einsum` (np.einsum, its equation made explicit: ellipses and an implicit
output written out as letters) and `TensorDot` (np.tensordot, numpy's BLAS path), which dot,
inner, outer and vdot are written with. `Convolve` and `Correlate` are numpy's 1-D ones.
Operands have one dtype (numpy would promote; here rt.cast says which), and the result has
it, as numpy's does for operands of one dtype.
"""

from __future__ import annotations

import string

import numpy as np

from runtime.core.source_info import user_origin
from runtime.core.tensor import normalize
from runtime.core.tensor_conversion import binary_operands, convert_to_tensor
from runtime.errors import InvalidArgumentError, argument_error, with_origin
from runtime.ops import array_ops, creation_ops, math_ops, shapes
from runtime.ops.registry import (
    FRESH_OUTPUT,
    GRADIENT,
    NUMBA,
    apply,
    define_op,
    lacks,
    register_rule,
)

_LETTERS = string.ascii_letters


def _refuse(error, message):
    """`error(message)`, naming the user's line (for checks before an op is applied)."""
    return error(with_origin(message, user_origin()))


def _operands(values, what):
    """Tensors of one numeric (or bool) dtype; a Python scalar takes the tensors' dtype."""
    if len(values) == 2:
        tensors = list(binary_operands(values[0], values[1], what))
    else:
        tensors = [convert_to_tensor(v) for v in values]
    for t in tensors:
        if t.dtype.is_string or t.dtype.is_list:
            raise _refuse(TypeError, f"{what} takes numeric tensors, not {t.dtype.name}.")
    kinds = {t.dtype for t in tensors}
    if len(kinds) > 1:
        names = ", ".join(t.dtype.name for t in tensors)
        raise _refuse(TypeError, f"{what}: operands have different dtypes ({names}); numpy "
                                 "would promote them, here use rt.cast(x, dtype) to make them "
                                 "match.")
    return tensors


# ---- einsum -----------------------------------------------------------------------------------

def _parse_einsum(subscripts, ranks):
    """numpy's einsum subscripts as (input terms, output term), letters only: ellipses become
    letters not used elsewhere (right-aligned across operands, as numpy broadcasts them), an
    implicit output is the letters used once, in order of their codes, after the ellipsis."""
    if not isinstance(subscripts, str):
        raise argument_error(
            TypeError, f"einsum's subscripts must be a string, got {type(subscripts).__name__}"
        )
    text = subscripts.replace(" ", "")
    explicit = "->" in text
    inputs, _, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise argument_error(
            InvalidArgumentError,
            f"einsum: the subscripts {subscripts!r} name {len(terms)} operand(s), but "
            f"{len(ranks)} were given",
        )
    for term in [*terms, output]:
        rest = term.replace("...", "", 1)
        bad = [c for c in rest if c not in _LETTERS]
        if bad:
            raise argument_error(
                InvalidArgumentError,
                f"einsum: {bad[0]!r} in the subscripts {subscripts!r} is not a letter (or one "
                "'...' per term)",
            )
    free = [c for c in _LETTERS if c not in text]
    widths = []
    for term, rank in zip(terms, ranks):
        letters = len(term.replace("...", ""))
        width = rank - letters if "..." in term else 0
        if width < 0 or ("..." not in term and letters != rank):
            raise argument_error(
                InvalidArgumentError,
                f"einsum: the term {term!r} has {letters} letter(s) for an operand of rank {rank}",
            )
        widths.append(width)
    ellipsis = free[:max(widths, default=0)]
    if len(ellipsis) < max(widths, default=0):
        raise argument_error(
            InvalidArgumentError, "einsum: too many dimensions for the letters a-z, A-Z"
        )
    expanded = [term.replace("...", "".join(ellipsis[len(ellipsis) - w:]))
                for term, w in zip(terms, widths)]
    if explicit:
        if "..." not in output and any(widths):
            raise argument_error(
                InvalidArgumentError,
                "einsum: the operands have '...' dimensions but the output has no '...'; add "
                "'...' to the output (or sum them with rt.reduce_sum)",
            )
        output = output.replace("...", "".join(ellipsis))
    else:
        counts = {c: "".join(expanded).count(c) for c in "".join(expanded)}
        output = "".join(ellipsis) + "".join(sorted(c for c, n in counts.items()
                                                    if n == 1 and c not in ellipsis))
    used = set("".join(expanded))
    for c in output:
        if c not in used:
            raise argument_error(
                InvalidArgumentError,
                f"einsum: the output letter {c!r} is not among the operands' letters",
            )
        if output.count(c) > 1:
            raise argument_error(InvalidArgumentError, f"einsum: the output names {c!r} twice")
    return tuple(expanded), output


def _label_dims(terms, operand_shapes):
    """letter -> its size (None: unknown); known sizes must agree, 1 broadcasts."""
    sizes = {}
    for term, shape in zip(terms, operand_shapes):
        for c, d in zip(term, shape):
            sizes.setdefault(c, []).append(d)
    out = {}
    for c, dims in sizes.items():
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise argument_error(
                InvalidArgumentError,
                f"einsum: the letter {c!r} stands for dimensions of sizes "
                f"{sorted(known)}, which do not broadcast",
            )
        out[c] = known.pop() if known else (None if None in dims else 1)
    return out


def _einsum_infer(inputs, *, equation):
    terms, output = equation.split("->")
    sizes = _label_dims(terms.split(","), [t.shape for t in inputs])
    return [(inputs[0].dtype, tuple(sizes[c] for c in output))]


def _einsum_kernel(*operands, equation):
    return normalize(np.einsum(equation, *operands))


# (not FRESH_OUTPUT: np.einsum returns a view of its operand for "ij->ji", "ii->i", ...)
EINSUM = define_op("Einsum", infer=_einsum_infer, kernel=_einsum_kernel)


def einsum(subscripts, *operands):
    """numpy's einsum: the sum of products that `subscripts` names ("ij,jk->ik"; implicit
    output "ij,jk"; "..." for broadcast leading dims), on operands of one dtype."""
    if not operands:
        raise _refuse(ValueError, "einsum needs at least one operand.")
    tensors = _operands(operands, "einsum")
    terms, output = shapes.static_check(_parse_einsum, subscripts, [t.ndim for t in tensors])
    equation = ",".join(terms) + "->" + output
    shapes.static_check(_einsum_infer, tensors, equation=equation)
    return apply(EINSUM, tensors, {"equation": equation})


def _eye_like(x, axis):
    """The identity matrix of x's dim `axis`, in x's dtype."""
    n = x.shape[axis]
    if n is not None:
        return convert_to_tensor(np.eye(n, dtype=x.dtype.np_dtype))
    steps = creation_ops.range(array_ops.shape(x)[axis])
    return math_ops.cast(math_ops.equal(steps[:, None], steps[None, :]), x.dtype)


def _einsum_operand_gradient(g, terms, output, operands, i):
    """The gradient of operand i of an einsum: the einsum of the output's gradient with the
    other operands onto i's letters; letters only i has are broadcast back, letters i repeats
    (a diagonal) are put back on the diagonal, and broadcast dims are summed."""
    x, term = operands[i], terms[i]
    others = [t for j, t in enumerate(terms) if j != i]
    elsewhere = set(output).union(*others)
    unique = "".join(dict.fromkeys(term))
    kept = "".join(c for c in unique if c in elsewhere)
    if not others and output == kept:
        grad = g
    else:
        grad = einsum(",".join([output, *others]) + "->" + kept, g,
                      *[t for j, t in enumerate(operands) if j != i])
    for position, c in enumerate(unique):
        if c not in elsewhere:
            grad = array_ops.expand_dims(grad, position)  # broadcast below
    if len(unique) < len(term):  # repeated letters: onto the diagonal
        free = [c for c in _LETTERS if c not in "".join(terms) + output]
        renamed, eyes, seen = [], [], set()
        for axis, c in enumerate(term):
            if c in seen:
                fresh = free.pop(0)
                renamed.append(fresh)
                eyes.append((c + fresh, _eye_like(x, axis)))
            else:
                renamed.append(c)
                seen.add(c)
        grad = einsum(",".join([unique, *(e for e, _ in eyes)]) + "->" + "".join(renamed), grad,
                      *(m for _, m in eyes))
    # the sizes the einsum above gave each letter, against x's: broadcast and sum where not
    given = _label_dims([output, *others], [g.shape, *(t.shape for j, t in enumerate(operands)
                                                        if j != i)])
    if any(d is None or given.get(c) != d for c, d in zip(term, x.shape)):
        grad = array_ops.sum_to(grad + creation_ops.zeros_like(x), x)
    return grad


@register_rule(GRADIENT, EINSUM)
def _einsum_gradient(op, grads):
    terms, output = op.attrs["equation"].split("->")
    terms = terms.split(",")
    if not op.outputs[0].dtype.is_floating:
        return [None] * len(op.inputs)
    return [_einsum_operand_gradient(grads[0], terms, output, list(op.inputs), i)
            for i in range(len(op.inputs))]


# ---- tensordot and the products written with it ------------------------------------------------

def _tensordot_infer(inputs, *, axes):
    a, b = inputs
    a_axes, b_axes = axes
    for d, e in zip((a.shape[i] for i in a_axes), (b.shape[i] for i in b_axes)):
        if d is not None and e is not None and d != e:
            raise argument_error(
                InvalidArgumentError,
                f"tensordot: the summed axes differ in size: {list(a.shape)} on axes "
                f"{list(a_axes)} and {list(b.shape)} on axes {list(b_axes)}",
            )
    a_free = [d for i, d in enumerate(a.shape) if i not in a_axes]
    b_free = [d for i, d in enumerate(b.shape) if i not in b_axes]
    return [(a.dtype, tuple(a_free + b_free))]


def _tensordot_kernel(a, b, *, axes):
    return normalize(np.tensordot(a, b, axes))


TENSORDOT = define_op("TensorDot", infer=_tensordot_infer, kernel=_tensordot_kernel,
                      groups=[FRESH_OUTPUT])


def _summed_axes(axes, a_rank, b_rank):
    """numpy's `axes` of tensordot (N, or a pair of axis sequences) as two tuples of
    non-negative axes."""
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > a_rank or n > b_rank:
            raise argument_error(
                InvalidArgumentError,
                f"tensordot: axes={n} needs operands of rank >= {n}, got ranks {a_rank} and "
                f"{b_rank}",
            )
        return tuple(range(a_rank - n, a_rank)), tuple(range(n))
    try:
        a_axes, b_axes = axes
    except (TypeError, ValueError):
        raise argument_error(
            InvalidArgumentError,
            f"tensordot: axes must be an int or a pair of axis lists, got {axes!r}",
        ) from None
    a_axes, b_axes = (tuple(shapes.static_ints(v, "tensordot's axes")) for v in (a_axes, b_axes))
    if len(a_axes) != len(b_axes):
        raise argument_error(
            InvalidArgumentError,
            f"tensordot: axes name {len(a_axes)} axis(es) of a and {len(b_axes)} of b",
        )
    a_axes = tuple(shapes.normalize_axis(i, a_rank, "tensordot") for i in a_axes)
    b_axes = tuple(shapes.normalize_axis(i, b_rank, "tensordot") for i in b_axes)
    if len(set(a_axes)) != len(a_axes) or len(set(b_axes)) != len(b_axes):
        raise argument_error(InvalidArgumentError, f"tensordot: axes {axes!r} name an axis twice")
    return a_axes, b_axes


def _tensordot(a, b, axes):
    a_axes, b_axes = shapes.static_check(_summed_axes, axes, a.ndim, b.ndim)
    shapes.static_check(_tensordot_infer, [a, b], axes=(a_axes, b_axes))
    return apply(TENSORDOT, [a, b], {"axes": (a_axes, b_axes)})


def tensordot(a, b, axes=2):
    """numpy's tensordot: sums of products over the last `axes` axes of `a` and the first of
    `b`, or over the axes of the pair `axes = (a_axes, b_axes)`."""
    a, b = _operands([a, b], "tensordot")
    return _tensordot(a, b, axes)


def dot(a, b):
    """numpy's dot: a product with a scalar; the inner product of vectors; else the sum over
    the last axis of `a` and the second-to-last of `b` (the last, for a vector `b`)."""
    a, b = _operands([a, b], "dot")
    if a.ndim == 0 or b.ndim == 0:
        return _product(a, b)
    return _tensordot(a, b, ([a.ndim - 1], [max(b.ndim - 2, 0)]))


def inner(a, b):
    """numpy's inner: the sum over the last axes of `a` and `b` (a product with a scalar)."""
    a, b = _operands([a, b], "inner")
    if a.ndim == 0 or b.ndim == 0:
        return _product(a, b)
    return _tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))


def outer(a, b):
    """numpy's outer: out[i, j] = a.ravel()[i] * b.ravel()[j]."""
    a, b = _operands([a, b], "outer")
    return _tensordot(array_ops.reshape(a, [-1]), array_ops.reshape(b, [-1]), 0)


def vdot(a, b):
    """numpy's vdot (real dtypes): the sum of the products of the flattened operands."""
    a, b = _real(_operands([a, b], "vdot"), "vdot")
    return _tensordot(array_ops.reshape(a, [-1]), array_ops.reshape(b, [-1]), 1)


def _product(a, b):
    """`a * b` as numpy's dot of a scalar: bools give `and`, as numpy's multiply does."""
    if a.dtype.is_bool:
        return math_ops.logical_and(a, b)
    return math_ops.multiply(a, b)


@register_rule(GRADIENT, TENSORDOT)
def _tensordot_gradient(op, grads):
    a, b = op.inputs
    if not op.outputs[0].dtype.is_floating:
        return [None, None]
    g = grads[0]
    a_axes, b_axes = op.attrs["axes"]
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]
    g_a = list(range(len(a_free)))  # g's axes from a, then from b
    g_b = list(range(len(a_free), len(a_free) + len(b_free)))
    # np.tensordot keeps the axes it does not sum in order: dL/da has a's free axes, then
    # b's summed ones in b's order (each paired with an axis of a); dL/db the other way round
    grad_a = _tensordot(g, b, (g_b, b_free))
    grad_b = _tensordot(a, g, (a_free, g_a))
    pairs = dict(zip(b_axes, a_axes))
    a_order = a_free + [pairs[k] for k in sorted(b_axes)]
    pairs = dict(zip(a_axes, b_axes))
    b_order = [pairs[k] for k in sorted(a_axes)] + b_free
    return [_in_order(grad_a, a_order), _in_order(grad_b, b_order)]


def _in_order(grad, axes):
    """`grad`, whose axis k is the operand's axis `axes[k]`, in the operand's axis order."""
    if axes == sorted(axes):
        return grad
    return array_ops.transpose(grad, tuple(int(k) for k in np.argsort(axes)))


# ---- 1-D convolution and correlation -----------------------------------------------------------

_MODES = ("full", "same", "valid")


def _sliding_infer(name):
    def infer(inputs, *, mode):
        a, v = inputs
        for t, what in ((a, "a"), (v, "v")):
            if t.ndim != 1:
                raise argument_error(
                    InvalidArgumentError, f"{name}: {what} must be 1-D, got shape {list(t.shape)}"
                )
            if t.shape[0] == 0:
                raise argument_error(InvalidArgumentError, f"{name}: {what} cannot be empty")
        m, n = a.shape[0], v.shape[0]
        if m is None or n is None:
            return [(a.dtype, (None,))]
        length = {"full": m + n - 1, "same": max(m, n), "valid": max(m, n) - min(m, n) + 1}
        return [(a.dtype, (length[mode],))]
    return infer


def _sliding_kernel(numpy_fn):
    return lambda a, v, *, mode: numpy_fn(a, v, mode)


try:  # what np.convolve and np.correlate call once their arguments are arrays
    from numpy._core.multiarray import correlate as _np_correlate
    from numpy._core.multiarray import correlate2 as _np_correlate2
except ImportError:  # numpy 1
    from numpy.core.multiarray import correlate as _np_correlate  # type: ignore[no-redef]
    from numpy.core.multiarray import correlate2 as _np_correlate2  # type: ignore[no-redef]


def _convolve_expression(names, attrs, inputs):
    """np.convolve's own steps on arrays of known lengths (np.convolve's Python checks, 0.8 us,
    were a quarter of a 1,000 x 9 convolution): the longer operand slides over the reversed
    shorter one."""
    m, n = inputs[0].shape[0], inputs[1].shape[0]
    if m is None or n is None:
        return None
    a, v = names if n <= m else names[::-1]
    return f"np_correlate_({a}, {v}[::-1], {_MODE_NUMBERS[attrs['mode']]})"


def _correlate_expression(names, attrs, inputs):
    """np.correlate's own step (numpy's correlate2) on arrays."""
    return f"np_correlate2_({names[0]}, {names[1]}, {_MODE_NUMBERS[attrs['mode']]})"


_MODE_NUMBERS = {"valid": 0, "same": 1, "full": 2}  # (numpy 1's correlate takes only these)


CONVOLVE = define_op("Convolve", infer=_sliding_infer("convolve"),
                     kernel=_sliding_kernel(np.convolve), groups=[FRESH_OUTPUT],
                     typed_expression=_convolve_expression,
                     expression_globals={"np_correlate_": _np_correlate})
CORRELATE = define_op("Correlate", infer=_sliding_infer("correlate"),
                      kernel=_sliding_kernel(np.correlate), groups=[FRESH_OUTPUT],
                      typed_expression=_correlate_expression,
                      expression_globals={"np_correlate2_": _np_correlate2})


def _real(tensors, what):
    """numpy conjugates a complex operand of `what`: refused until rt has a conjugate."""
    if any(t.dtype.is_complex for t in tensors):
        raise _refuse(TypeError, f"{what} of complex tensors (numpy conjugates one operand) "
                                 "is not supported yet; pass real tensors.")
    return tensors


def _sliding(opdef, name, a, v, mode):
    a, v = _operands([a, v], name)
    if opdef is CORRELATE:
        _real([a, v], name)
    if mode not in _MODES:
        raise _refuse(ValueError, f"{name}: mode must be one of {', '.join(_MODES)}, not "
                                  f"{mode!r}.")
    mode = str(mode)  # (a numpy string is one of them too)
    shapes.static_check(opdef.infer, [a, v], mode=mode)
    return apply(opdef, [a, v], {"mode": mode})


def convolve(a, v, mode="full"):
    """numpy's convolve of two 1-D tensors; `mode` "full", "same" or "valid"."""
    return _sliding(CONVOLVE, "convolve", a, v, mode)


def correlate(a, v, mode="valid"):
    """numpy's correlate of two 1-D tensors (real dtypes); `mode` "valid", "same" or "full"."""
    return _sliding(CORRELATE, "correlate", a, v, mode)


def _full_offset(m, n, mode, correlating):
    """Where numpy's result of `mode` starts in the full result (a slice of it)."""
    if mode == "full":
        return 0
    if mode == "valid":
        return min(m, n) - 1
    if correlating and m < n:  # numpy correlates the swapped operands and reverses
        return m // 2
    return (min(m, n) - 1) // 2


def _sliding_gradient_kernel(g, a, v, *, mode, correlating):
    """(dL/da, dL/dv): the output is a slice of the full convolution of a with w (v, or v
    reversed to correlate); the gradient placed in the full length is correlated with w and
    with a."""
    m, n = len(a), len(v)
    full = np.zeros(m + n - 1, dtype=np.result_type(g, a))
    start = _full_offset(m, n, mode, correlating)
    full[start:start + len(g)] = g
    w = v[::-1] if correlating else v
    grad_w = np.correlate(full, a, "valid")
    return np.correlate(full, w, "valid"), grad_w[::-1] if correlating else grad_w


SLIDING_GRADIENT = define_op(
    "ConvolveGrad",
    infer=lambda inputs, *, mode, correlating: [(inputs[1].dtype, inputs[1].shape),
                                                (inputs[2].dtype, inputs[2].shape)],
    kernel=_sliding_gradient_kernel,
    tuple_outputs=True,
)


def _sliding_gradient(op, grads):
    if not op.outputs[0].dtype.is_floating:
        return [None, None]
    return apply(SLIDING_GRADIENT, [grads[0], *op.inputs],
                 {"mode": op.attrs["mode"], "correlating": op.opdef is CORRELATE})


register_rule(GRADIENT, CONVOLVE, CORRELATE)(_sliding_gradient)
lacks(GRADIENT, "second-order gradients of convolve and correlate are not implemented yet",
      SLIDING_GRADIENT)
lacks(NUMBA, "numba compiles neither np.einsum nor np.tensordot (its np.dot takes 1-D and 2-D "
      "floats only)", EINSUM, TENSORDOT)
lacks(NUMBA, "numba's np.convolve and np.correlate take no mode, and numpy sums each window "
      "with its BLAS's dot, whose order of additions a loop does not repeat (a loop's sums "
      "differ in the last bits for most windows of 40)", CONVOLVE, CORRELATE, SLIDING_GRADIENT)
