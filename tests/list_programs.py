"""Functions that build lists under graph control flow (staged lists, issue 9), shared by the
three-way tests (tests/autograph/test_staged_lists.py), the save/load tests
(tests/runtime/test_saved_lists.py) and the ONNX tests (tests/runtime/test_onnx_lists.py)."""

import runtime as rt


def stack_and_list(n, x):
    out = []
    for i in rt.range(n):
        out.append(x * rt.cast(i, rt.float32))
    return rt.stack(out), out


def returns_list(n, x):
    out = []
    for i in rt.range(n):
        out.append(x + rt.cast(i, rt.float32))
    return out


def concat_after_loop(n, x):
    out = [x]
    for i in rt.range(n):
        out.append(x * rt.cast(i + 2, rt.float32))
    return rt.concat(out, 0), rt.concat(out, -1), len(out)


def stack_scalars(n):
    out = [n]
    for i in rt.range(n):
        out.append(i * i)
    return rt.stack(out)


def plus_list(n):
    s = []
    for i in rt.range(n):
        s = s + [i * 2]
    return s


def plus_equals_and_extend(n):
    s = [0]
    for i in rt.range(n):
        s += [i]
        s.extend([i, i + 1])
    return s


def pop_in_loop(n):
    items = [1, 2, 3, 4, 5]
    total = 0
    for _ in rt.range(n):
        total += items.pop()
    return total, items


def pop_in_while(n):
    items = [10, 20, 30]
    last = 0
    while n > 0:
        last = items.pop()
        n -= 1
    return last, len(items)


def length_and_index(n):
    out = []
    for i in rt.range(n):
        out.append(i * i)
    return len(out), out[0], out[-1], out[n // 2]


def set_item_and_extend(n):
    out = [0, 0, 0]
    for i in rt.range(n):
        out.append(i)
        out[i % 3] = out[i % 3] + i
        out[-1] = out[-1] * 2
    out.extend(out)
    return out


def set_and_get_at(n):
    out = [1, 2, 3]
    for i in rt.range(n):
        out.append(i)
    out[2 - 2 * n] = 9  # negative from n = 2 on, out of range for n = 6
    return out, out[-n - 3]


def iterate_built_list(n):
    out = []
    for i in rt.range(n):
        out.append(i + 1)
    total = 0
    for v in out:
        total = total + v * v
    return total


def append_in_branch(n):
    out = []
    for i in rt.range(n):
        if i % 2 == 0:
            out.append(i)
    return out


def strings(n):
    out = []
    for _ in rt.range(n):
        out.append(rt.constant(b"ab"))
    return out


def list_of_lists(n, m):
    rows = []
    for i in rt.range(n):
        row = []
        for j in rt.range(m):
            row.append(i * 10 + j)
        rows.append(row)
    return rows, len(rows)


def stack_list_of_lists(n, m):
    rows, _ = list_of_lists(n, m)
    return rt.stack(rows)


def truth_of_built_list(n):
    out = []
    for i in rt.range(n):
        out.append(i)
    if out:
        return 1
    return 0


def vectors_of_changing_length(n):
    out = []
    v = rt.zeros([0])
    for _ in rt.range(n):
        v = rt.concat([v, [1.0]], 0)
        out.append(rt.reduce_sum(v))
    return out


def dict_of_lists(n):
    d = {"even": [], "odd": [1]}
    for i in rt.range(n):
        d["even"].append(i * 2)
        if i % 2 == 1:
            d["odd"].append(i)
    return d


def lists_in_a_list(n):
    parts = [[], [0.5]]
    for i in rt.range(n):
        parts[0].append(rt.cast(i, rt.float32))
        parts[1].pop()
        parts[1].append(rt.cast(i, rt.float32) * 2.0)
    return parts


def float32_items_then_a_python_float(n, x):
    out = []
    for i in rt.range(n):
        out.append(x[0] * rt.cast(i, rt.float32))
    out.append(0.1)  # (a Python float joins float32 values: numpy's array of them is float64)
    return rt.stack(out), rt.reduce_sum(rt.stack(out) * x[1])
