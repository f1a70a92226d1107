"""The functions the NUMBA rules' code calls (numba_rules.HELPERS, with numba_lists' own): each
a numba function written after the graph's function in its module (numba_backend's emitter),
kept as source: name -> source. An integer matmul, bincount, numpy's pairwise sum, a sum in
SIMD lanes; and those a rule writes for its op (`generate`: numba_fused's loops)."""

# The helpers rules wrote: name -> (source, njit's `fastmath` as code, or None). Each name holds
# a digest of its source, so a name stands for one source while the process runs.
GENERATED: dict[str, tuple[str, str | None]] = {}
# Float sums in SIMD lanes add blocks of this many values, each by LLVM's vector loop (partial
# sums in lanes: the one operation allowed to reassociate), and the blocks' sums in numpy's
# pairwise order: numpy's accuracy class, not its bits (lanes_sum_, numba_fused).
SUM_BLOCK = 1024
# The helpers below compiled with fastmath={'reassoc'}: only their sum may reassociate.
REASSOCIATING = frozenset({"lanes_block_"})


def generate(name: str, source: str, fastmath: str | None = None) -> None:
    """Makes `name` (defined by `source`) a helper the emitter writes where code calls it."""
    GENERATED[name] = (source, fastmath)


HELPERS = {
    "int_matmul_": """def int_matmul_(a, b):
    n, k = a.shape
    if b.shape[0] != k:
        raise ValueError("matmul: the inner dims differ")
    m = b.shape[1]
    out = np.zeros((n, m), np.int64)
    for i in range(n):
        for p in range(k):
            x = np.int64(a[i, p])
            for j in range(m):
                out[i, j] += x * b[p, j]
    return out
""",
    "bins_": """def bins_(x, minlength):
    count = minlength
    for i in range(x.shape[0]):
        value = np.int64(x[i])
        if value < 0:
            raise ValueError("bincount: x holds negative values")
        if value >= count:
            count = value + 1
    return count
""",
    "bincount_": """def bincount_(x, minlength):
    out = np.zeros(bins_(x, minlength), np.int64)
    for i in range(x.shape[0]):
        out[np.int64(x[i])] += 1
    return out
""",
    "weighted_bincount_": """def weighted_bincount_(x, weights, minlength):
    if weights.shape[0] != x.shape[0]:
        raise ValueError("bincount: the weights and x differ in length")
    out = np.zeros(bins_(x, minlength), np.float64)
    for i in range(x.shape[0]):
        out[np.int64(x[i])] += np.float64(weights[i])
    return out
""",
    # numpy's pairwise summation (its pairwise_sum, in the array's dtype): parts of under 8
    # values in order from zero, of up to 128 in eight running sums joined in pairs, longer ones
    # split in halves (the first a multiple of 8), each half's sum added to the other's
    "pairwise_leaf_": """def pairwise_leaf_(a, lo, n, zero):
    if n < 8:
        res = zero
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    m = n - n % 8
    for i in range(lo + 8, lo + m, 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(lo + m, lo + n):
        res += a[i]
    return res
""",
    # a float sum of a whole array in SIMD lanes (SUM_BLOCK)
    "lanes_block_": """def lanes_block_(x, zero):
    total = zero
    for j in range(x.shape[0]):
        total += x[j]
    return total
""",
    "lanes_sum_": f"""def lanes_sum_(a, zero):
    x = np.ascontiguousarray(a).reshape(-1)
    n = x.shape[0]
    blocks = (n + {SUM_BLOCK - 1}) // {SUM_BLOCK}
    parts = np.empty(blocks, x.dtype)
    for b in range(blocks):
        lo = b * {SUM_BLOCK}
        parts[b] = lanes_block_(x[lo:min(lo + {SUM_BLOCK}, n)], zero)
    return zero + pairwise_sum_(parts, 0, blocks, zero)
""",
    # (without recursion: numba's disk cache cannot reload a recursive function)
    "pairwise_sum_": """def pairwise_sum_(a, lo, n, zero):
    if n <= 128:
        return pairwise_leaf_(a, lo, n, zero)
    starts = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    stages = np.empty(64, np.int64)
    lefts = np.empty(64, a.dtype)
    top = 0
    starts[0], sizes[0], stages[0] = lo, n, 0
    result = zero
    while top >= 0:
        start, size = starts[top], sizes[top]
        if size <= 128:
            result = pairwise_leaf_(a, start, size, zero)
            top -= 1
            continue
        half = size // 2
        half -= half % 8
        if stages[top] == 0:
            stages[top] = 1
            top += 1
            starts[top], sizes[top], stages[top] = start, half, 0
        elif stages[top] == 1:
            lefts[top] = result
            stages[top] = 2
            top += 1
            starts[top], sizes[top], stages[top] = start + half, size - half, 0
        else:
            result = lefts[top] + result
            top -= 1
    return result
""",
}
