"""Hypothesis strategies that write random programs over the language users write.

`cases()` draws a `Case`: the source of a module that defines `f(x, y, u, p, n)`, and two or
four argument tuples (x, y: int scalars; u: a float scalar; p: a float32 vector of 2-4
elements; n: a loop bound 0-4). The function mixes assignments to variables, dict items, list
items and attributes (`=`, `+=`, `-=`); `if`/`elif`/`else`; bounded `while` loops (`while k <
n and cond`, `while True` left by `break`) and `for` loops (over `range(k)`,
`range(n)`, `rt.range`, a vector, a Python list), with `else`; `break`, `continue` and `return`
at any depth; `try`/`except`/`else`/`finally` around a helper that raises `ValueError`; a lambda
and nested functions reading variables the body changes; `global` and `nonlocal` writes inside
branches and loops; variables assigned on some paths only (`z`, `d['j']`, a loop index read
after its loop); `and`/`or` values and conditional expressions; returns of scalars, vectors,
tuples, lists, dicts and `None` (one structure per program, plus bare `return`s).

Decorated functions: module-level helpers `hi`, `hf`, `hv` (`(v, w=1)`, v an int, float or
vector; a branch, or a loop over `range`/`rt.range`), called as `h(e)`, `h(e, w)`, `h(e, w=w)`,
`h(v=e, w=w)`; `inner` and the lambda `g`; and `f` itself, each under a stack of 1-2 decorators
defined in the module (DECORATORS): made with `functools.wraps` (scale the result, add to the
first argument, call the function twice, pass keyword arguments, a decorator factory), or
classes with `__call__` (with and without `functools.update_wrapper`).

Lists that staged code changes (`rt.TensorList` in a graph): a float list `lst`, an int list
`la`, a list of vectors `lv` and a list of int lists `rows`, starting empty or with Python numbers
or values. Statements `L.append(v)`, `v = L.pop()` (which may pop an empty list), `L = L + [v]`,
`L = [v] + L`, `L += [v]`, `L.extend([v, w])`, `L[i] = v`, `L = []`, a row built by a loop and
appended to `rows`; `for v in L` (L is not lengthened or shortened in its body) and
`for i in range(len(L))`; reads `L[i]` (int or tensor index, negative too), `rows[i][j]`,
`len(L)` (also through `size()`, a nested function), `rt.reduce_sum(rt.stack(L))`,
`rt.reduce_sum(rt.concat(lv, 0))`, truth `if L:`; returns of a list, `rt.stack(L)` or
`rt.concat(lv, 0)` in the return structure. Lists of tensors packed where an op wants a
tensor: `rt.reduce_sum([v, w])`, `rt.concat([[v], q[1:]], 0)`. The oracle's `rt.stack`,
`rt.concat` and `rt.reduce_sum` are numpy's (test_differential.PLAIN_RUNTIME).

Python numbers and builtins over tensors (issue 24), each family behind a flag (the flags at
the top say which are off and why): int64 values beyond 2**31 (`big`, `np.int64(2**33)`, Python
ints such as `2**32`) with Python ints and int64 values (`+ - * // %`, comparisons, conditional
expressions, `big += 2**32`), and `for i in range(big, big + 3 * 2**31, 2**31)` (or `rt.range`,
or a negative step); `int(e)` of ints, floats (nan and inf, where Python raises; floats times
2**32) and int64 values; a bool next to an int (`(x < y) == -1`, `bool(u) != 1`, `(x < y) + 1`)
and `bool(e)`; nan and inf among the floats (`u * 0.0 / 0.0`, `u / 0.0`: u and p are numpy
floats, so Python makes them without a ZeroDivisionError); `max`/`min` of 1-3 values, of a list
of them or of a vector; `sum` of a list or a vector and `all`/`any` (conditions); the same
builtins over the program's lists; `& | ^ ~ << >>` and `&= |= ^= >>= <<=` on ints and int64
values (shift counts 0-4); `abs`, `pow(e, 2)`, `round(f)`, `round(f, 1)`, `divmod(a, b)` (b
never zero), also as `a, b = divmod(...)`; `math.floor/ceil/fabs/trunc/sqrt/exp`;
`operator.truth/not_` (conditions). Outside state: the module-level dict item `OUT['k']`, the
global `G` and `OBJ.attr` (written by `put(OBJ, x + e)`, a module-level helper, for the object
passed in) written under a graph `if` or loop; test_differential compares that state after each
run too. `FUZZ_FLAGS=NAME,...` turns flags on for one run (see `_override_flags`).

Python ints past int32 and int64, and powers of Python floats (the stand-ins of Python numbers
in a graph: PYTHON_INTS, PRODUCT_LOOPS, FLOAT_POWERS): `acc` and `prod`, Python ints that start
at or past int32 (`3_000_000_000`, `-2**40`, an `if` of two) and change by constants past int32
anywhere (`acc = acc + 2_000_000_000`, `acc -= -2**40`, `acc = -acc`, `acc = (C if cond else
acc + D)`), and by products in bounded graph loops (`for i in rt.range(2 * n): prod = prod *
1000`, 0-8 iterations), so that Python's values pass int64 where the graph must raise at the
user's line; read as ints and int64 values (wrapped), with `**`, compared with each other and
returned as they are. `w ** e` of Python floats whose base may be negative or zero: `0.0 ** -1`
raises in Python, and a negative base to a fraction, a complex number in Python, is returned
by `f` (only), which the graph refuses with a located error.

Behaviours the library gained recently, each behind a flag (PYTHON_NUMBER_LISTS ...
USER_EXCEPTIONS): lists of Python numbers a graph builds, `nf` (floats: `[]`, `[0.5]`, or with
MIXED_NUMBER_LISTS `[p[0], 0.5]`, or with FLOAT32_LIST_THEN_PYTHON_FLOATS a graph loop's list
of float32 items) and `ni` (ints: `[]`, `[1]`), appended to in `for i in
rt.range(n)`, `for i in range(n)`, `while m < n` and tensor `if`s (`0.1 * m`, `m / 3`, `1 / 3`,
`float(m)`, `0.1 * i`, `float(i)`, `i / 3` of range's index, `m * 2`, and float32 items
`p[m % 2]`), read in the returned structure as `np.array(L)`, `np.mean(L)`, `np.sum(L)`,
`sum(L)`, `max(L)`, `L[-1]`, `len(L)` (numpy's array of the Python list is float64 / int64:
the graph must match dtype and value); in-place operators (`*= += -=`) on the numpy vector
argument `p`, on a view `pv` (`p[1:]`, `p.reshape(-1)`, `p.T`) or a copy `pc` (`p.copy()`,
`p * 1.0`, `p[np.array([0, 1])]`, `np.array(p)`, `p.flatten()`), also in graph loops and
`if`s, then reads of the view or copy (test_differential compares the tensor-argument runs with
the program rebound, `p = p * 2`, and runs the graph on numpy arguments too, which must refuse
the call where Python changes the caller's array); `for k, v in enumerate(X)` over a vector,
a Python list or the program's lists, with `s = s + k * 0.1` (a Python int count); arithmetic
on bool arrays (`(p > a) * (q < b)`, `(p > a) + (q < b)`, `np.sum(...)` as an int64 value,
masks scaling vectors); and `raise StepError("...")` (a ValueError subclass the module
defines) under a tensor `if`, where the other runs must raise a StepError too.

Expressions are typed (int, float, vector, int64, Python int) so that the numpy oracle never
promotes where the runtime raises by design (int32 with float32, Python float with int32, int64
with int32).
Values stay small and float arithmetic exact, so the three runs can be compared bit for bit:
assignments wrap with `% 53 - 26` (int64 values with `% 2**36 - 2**35`: large, far from
overflow), `+=`/`-=` (and `&= |= ^=`) add only values that never grow (arguments, literals,
loop indices), `<<=` is followed by a wrap, floats are multiplied only by small integers, `pow`
squares a wrapped value, `math.sqrt` takes the root of a square, `math.exp` is floored (of a
value in [-2, 2)) and `round(f, 1)`, whose value is inexact, is only compared. Every `while` is
bounded by a counter that is incremented first in its body. Draws shrink towards fewer and
simpler statements.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st

INT, FLOAT, VEC, I64 = "int", "float", "vec", "int64"
PINT = "python int"  # a Python int in the oracle, past int32 (and int64): see PYTHON_INTS
PFLOAT = "python float"  # a Python float in the oracle, a base or exponent: see FLOAT_POWERS
# Lists: of ints, of floats, of vectors, of int lists; ITEM gives the kind of their items.
LINT, LFLOAT, LVEC, LROWS = "list[int]", "list[float]", "list[vec]", "list[list[int]]"
LISTS = (LINT, LFLOAT, LVEC, LROWS)
ITEM = {LINT: INT, LFLOAT: FLOAT, LVEC: VEC, LROWS: LINT}
KINDS = (INT, FLOAT, VEC, I64, PINT, PFLOAT, *LISTS)
# Forms that known bugs make fail, off so that CI passes (turn one on to fuzz it; each comment
# gives a minimal program):
#
# List operations that may fail: `L.pop()` of an empty list, `L[i]` and `L[i] = v` with `i` out
# of range, `rt.stack(L)`/`rt.concat(L, 0)` of an empty list or `rt.stack` of ragged rows.
# Bug 1: the graph drops a failing list op whose result no output needs, so it returns where
# Python raises: `la = [1]`, `for i in rt.range(n): la.pop()`, `return n` (n=3).
# Bug 2: `L.pop()` of an empty Python list on a path Python does not take fails the trace with
# a bare IndexError (`la = []`, `if x > 100: la.pop()`, `return x`; also `for i in rt.range(0)`).
# Off: `if L: L.pop()`, `(L[i] if L else 0)`, `if L: L[i] = v` with `i` in range, and
# `rt.stack(L + [v])`, `rt.concat(rows + [[n]], 0)`.
FAILING_LIST_OPS = False
# `L[i] = v` in a staged `if` where `L` is a staged list: `la = [1]`, `for i in rt.range(n):
# la.append(i)`, `if n > 10: la[0] = 3`, `return n` raises "Tensor listsetitem_N belongs to
# another graph (cond_N_true)" where Python returns. Off: no `L[i] = v`, and `lst` is either a
# list whose items are assigned (`lst[0] = v`) or one whose length changes, not both.
STAGED_SETITEM = False
# A row holding Python numbers and tensors (`[0, i]`) put in a list by staged code becomes a
# tensor: `rows = []`, `if n > 0: rows.append([0, n])`, `return rows` gives `[tensor([0, 2])]`
# where Python gives `[[0, 2]]`; in a staged loop (`for i in rt.range(n): rows.append([0, i])`)
# the graph raises "Tensor ... belongs to another graph (autograph_dry_run)". Off: the items of
# rows are tensors (`[x, (e + n) % 53 - 26]`).
MIXED_ROWS = False
# A row that is another list changed in place afterwards (`rows.append(la)` then `la.append(i)`
# in a staged loop; Python sees the change through both) raises "Tensor ... belongs to another
# graph (autograph_dry_run)"; `rows[0].append(v)` changes an item in place. Off: rows are
# fresh lists.
ALIASED_ROWS = False
# `put_in(L, v)`: a module-level helper appends to the function's list. Under a tensor `if`
# both paths' appends stayed (`L = []`, `if x > 0: put_in(L, 1.0)`, `else: put_in(L, 2.0)`,
# `return L` gave `[1.0, 2.0]`), and in a graph loop the one append tracing made (silent);
# now paths that change it alike agree and others are refused at the `if` / loop.
HELPER_CHANGES = True
# `dd = d`: a second name for the dict, read as `dd['k']`. A graph `if` or loop writing
# `d['k' * 1]` (which carries `d` whole, a copy per path) left `dd` with the old items,
# silently; now refused at the line (operators/aliases.py).
ALIASED_DICT = True
# Empty rows (`rows.append([])`, a row built by a loop that runs zero times). Not a bug: the
# graph refuses them with a located error (a graph needs the items' dtype), and an empty Python
# list packs as float32, so `rt.concat(rows + [[n]], 0)` raises a dtype error eagerly where
# numpy concatenates. Off: rows are never empty.
EMPTY_ROWS = False
#
# Python numbers and builtins over tensors (issue 24). Each flag adds one family of forms (see
# the module docstring); an off flag's comment gives a minimal program where the family fails,
# with its outcomes (python / converted eager / graph; "boundary": in boundary mode). Programs
# are the same as without these forms while their flags are off.
#
# int64 values beyond 2**31 (`big`, `np.int64(2**33)`, big Python ints) with Python ints and
# other int64 values: `+ - * // %`, comparisons, conditional expressions, `big += 2**32`.
INT64_VALUES = True
# An int64 value next to an int32 one (`np.int64(2**33) + x`). Not a bug: two tensors of
# different dtypes raise a TypeError that says to cast (DESIGN.md, Semantics) where numpy
# promotes, as int32 with float32 does: `return np.int64(2**33) + x` gives np.int64(8589934593)
# / TypeError "add: operands have different dtypes, int64 and int32" / the same. Off: int64
# values meet Python ints and int64 values only.
INT64_WITH_INT32 = False
# `for i in range(big, big + 3 * 2**31, 2**31)`, `rt.range(...)`, negative steps: int64 bounds
# beyond 2**31, a few iterations; the index is an int64 value.
INT64_RANGE = True
# `int(e)` of an int, a float (nan and inf raise in Python) and an int64 value: `int(f)`,
# `int(big % 53)`, `int(f * 2**32) % 53`, `int(u * 0.0 / 0.0)` as ints, `int(big)`, `int(f *
# 2**32)` as int64 values (in a list of Python numbers they pack as Python ints do: int32).
INT_CONVERSION = True
# A bool next to an int in a comparison (`(x < y) == -1`, `bool(u) != 1`) and `bool(e)` as a
# condition.
BOOL_COMPARE = True
# A bool in int arithmetic: `bool(u) - e`, `operator.truth(e) + e`, `(x < y) * n` as ints,
# `(x < y) + 1` as an int64 value (numpy: a numpy bool next to a Python int is int64, which
# next to an int32 value is by design a dtype error: see INT64_WITH_INT32).
BOOL_ARITHMETIC = True
# nan and inf float values: `(u * 0.0 / 0.0)`, `(u / 0.0)` among the float atoms (u and p are
# numpy floats, so the oracle gives nan or inf, never a ZeroDivisionError).
NAN_VALUES = True
# `max(a, b)`, `min(a, b, c)`, `max([a, b])`, `min(p)` of ints, floats (nan too with
# NAN_VALUES), int64 values and vectors. Boundary: min/max (also any, below) in an rt.function
# traced from converted code run eagerly, of the caller's tensors, uses a placeholder as a
# Python bool: `g = rt.function(lambda: min(n, 1))`, `return g()` (n=2) gives 1 (without the
# rt.function) / OperatorNotAllowedInGraphError "Using a symbolic tensor (greater_2:0, bool[])
# as a Python bool" (decorated converted) / 1 (decorated graph), fixed: min/max of an eager
# tensor captured by a graph being built are staged.
MIN_MAX = True
# `sum([a, b])`, `sum(p)`, and `all(...)` / `any(...)` of a list of values or a vector (as
# conditions). Boundary, as MIN_MAX: `@rt.function def inner(v): if any(p): return 1`, `return
# 2`, then `return inner(x)` in `f` gives 1 (without the rt.function) / (decorated converted)
# OperatorNotAllowedInGraphError "Using a symbolic tensor (unpack_1:0, float32[]) as a Python
# bool" / 1 (decorated graph), fixed with MIN_MAX.
SUM_ALL_ANY = True
# The builtins of MIN_MAX and SUM_ALL_ANY over the program's lists: `(max(la) if la else 0)`,
# `sum(lst)`, `sum(lst, -0.0)`, `sum(lv, p * -0.0)`, `any(la)`, `all(lst)` (a fold in Python's
# order: `sum(lv, p * 0)` of a graph list holding `[-0.0]` was +0.0, a numpy reduction).
# Boundary, as MIN_MAX: `lst = [0.5, u]`, `inner = rt.function(lambda v: max(lst))`, `return
# inner(x)`: 0.5 / (decorated converted) OperatorNotAllowedInGraphError "Using a symbolic tensor
# (greater_2:0, bool[]) as a Python bool" / 0.5, fixed with MIN_MAX.
LIST_BUILTINS = True
# `& | ^ << >>` and `~` on ints and int64 values (shift counts 0-4).
BITWISE = True
# `&= |= ^= >>= <<=` (a `<<=` is followed by a wrap, so values stay small).
AUG_BITWISE = True
# `abs(e)` and `pow(e, 2)` of ints, floats and vectors (`abs` of int64 values too).
ABS_POW = True
# `round(f)`, an int (packed as INT_CONVERSION's: `rt.reduce_sum([round(u), 1])` is int32).
ROUND = True
# `round(f, 1) < e` (only compared: its value is inexact).
ROUND_DIGITS = True
# `divmod(a, b)` of ints and floats, by a divisor that is never zero: `divmod(x, y % 5 + 1)[0]`,
# `a, b = divmod(...)`.
DIVMOD = True
# `math.floor`, `math.ceil`, `math.fabs`, `math.sqrt(abs(w * w))`, `math.floor(math.exp(e % 4 -
# 2))` on scalars (their int64 / float64 results pack as Python numbers: `rt.stack([math.floor(x)])`
# is int32, `rt.reduce_sum([math.fabs(u), 0.0])` float32).
MATH_FUNCTIONS = True
# `math.trunc(e)`: on a numpy value Python raises TypeError (numpy scalars have no __trunc__),
# as the three runs now do for `math.trunc(u)`. The oracle's `rt.range` (Python's range) gives
# ints where converted code's gives numpy ints: `r = 0`, `for j in rt.range(2): r =
# math.trunc(j)`, `return r` gives 1 / TypeError "type numpy.int32 doesn't define __trunc__
# method" / the same.
MATH_TRUNC = False
# `operator.truth(e)` and `operator.not_(e)` as conditions.
OPERATOR_TRUTH = True
# Outside state written under a graph `if` or loop: the module-level dict item `OUT['k']` and the
# global `G` (`global_`; then written there only) under `if x < e:` or `for j in rt.range(n):`
# (conditions on the arguments, so tensors in a graph), and `put(OBJ, x + e)`, a module-level
# helper that writes an attribute of the object passed in under `if v ...:` or `for j in
# rt.range(v % 3):`. test_differential compares that state after each run too (`outside()`,
# reset by `reset_outside()` before each run): plain Python's, or an error (the graph refuses
# these writes with a located error, which the rule allows), also when `f` reads the state back
# in the same call (`put(OBJ, x)` in a graph `if`, then `return OBJ.attr`).
OUTSIDE_STATE = True
# Outside state written anywhere, also where the graph runs the write as plain Python while it
# traces (at the top of `f`, under a Python `if`): `OUT['k']`, `G` and `OBJ.attr` are targets
# of every assignment (with OUTSIDE_STATE); a graph value written there is refused at the
# assignment's line (autograph/converters/outside_writes.py).
OUTSIDE_STATE_ANYWHERE = True
#
# Python ints past int32 and int64, and `**` of Python floats (the stand-ins of Python numbers:
# a Python int a graph carries is a weak int64, checked past int64 when the graph runs; a
# Python float a weak float64, its `**` checked for 0.0 to a negative power and refused for a
# negative base to a fraction, runtime/ops/python_arithmetic.py).
#
# `acc` and `prod`, Python ints (kind PINT) that start as `0`, `1`, `2_000_000_000`,
# `3_000_000_000`, `-2**40` or an `if` of two of them, changed anywhere (also in graph loops and
# branches) by `acc = acc + C`, `acc -= C`, `acc = -acc`, `acc = (C if cond else acc + D)` (an
# `if` choosing between Python ints), `acc //= K`, `acc = acc % M`, and in PRODUCT_LOOPS by
# `acc = acc * K`, `acc *= K` and assignments of sums, differences and products by constants.
# In Python they grow past int64, where the graph must raise at the user's line. They are read
# as an int (`(acc * 1000) % 53 - 26`), an int64 value (`acc % 2**36 - 2**35`), with `**`
# (`(acc % 2**20) ** 3`, `prod ** (acc % 3)`), compared with each other, and returned as they
# are (test_differential compares a Python int past int64 exactly: only a Python int holds it).
PYTHON_INTS = True
# `for i in rt.range(2 * n):` (or `rt.range(n + 4)`, or a `while` to `n + 4`) around `prod =
# prod * K` (K: 1000, -1000, 3_000_000_000, 7), maybe with `acc = acc + C`, another change of
# `acc` or `prod` and a `break`: products that pass int64 after a few of the 0-8 iterations.
PRODUCT_LOOPS = True
# Python ints past int64 made while the graph is traced (by plain Python: a statement outside
# graph loops, a Python loop, `3_000_000_000 * 3_000_000_000 * 7`) that then meet the graph.
# Off, the value of an expression of Python ints that Python computes while tracing stays
# within int64 (what grows does so in PRODUCT_LOOPS, whose variables are the graph's): no
# `2**62`, products by at most 2**16 of a name only, `**` of `% 2**20` only, no `range(8)`
# product loops. On: also `x ** (acc % 3 - 1)` (an int to the power -1 is a float in Python;
# the graph refuses it at the user's line, with numpy's message). Found: a Python int past
# int64 in a branch of a graph `if` raised numpy's OverflowError, not a located error (`prod =
# 2**70 if y < x else 1`, `return 1`; also `prod = -7`, `for i in range(8): prod = prod *
# 3_000_000_000; if y < x: break`: the Python loop with a graph `break` runs its later
# iterations under graph `if`s); fixed: the graph refuses it at the user's line (as it refuses
# one that starts a graph loop), which the harness accepts.
PYTHON_INTS_PAST_INT64_WHILE_TRACING = True
# A Python int past int32 compared with an int32 value (`acc < x`), or read as it is as an
# int64 value (`big + acc`, so also compared with int64 values past int64): numpy compares
# exactly. Found: converting the Python int to the tensor's dtype raised numpy's OverflowError
# (`s = 0`, `for i in rt.range(n): s = s + 3_000_000_000`, `return s > n` in converted code on
# eager tensors; `return x < 3_000_000_000` in the graph too); fixed.
PYTHON_INTS_COMPARED = True
# `w ** E`: `w` a Python float (`-4.0`, `0.0`, `4.0`, `-16.0`, `0.25`, an `if` of two, `w =
# -w` in loops and branches), E an exponent written as a Python int (`2`, `3`, `-1`, `0`), a
# float (`0.5`, `1.5`, `-0.5`, `2.0`, ...) or `e`, a Python float exponent chosen the same way;
# also `B ** E` and `(B if cond else C) ** E` of constants. Read as a float anywhere (powers are
# exact: see POWER_BASES). Zero to a negative power raises ZeroDivisionError in Python (and must
# in the graph). A negative base to a fraction is a complex number in Python (and in converted
# code, where the Python float stays one); the graph refuses it with a located
# InvalidArgumentError, which the harness accepts as it accepts every clear error of the graph
# where Python returns (test_differential.disagreement).
FLOAT_POWERS = True
# A negative base to a fraction where `f` returns the power (as it is, or in `+ - *` and
# conditional expressions of a returned float): the complex number is returned by Python and
# converted code, refused by the graph. Elsewhere (and with this flag off) a fraction's base is
# `abs(...)`: numpy orders complex numbers (`np.float32(1) <= 2j`) where the runtime refuses to,
# by design, and a complex number in a builtin or a helper meets the same refusal.
COMPLEX_POWERS = True
# `-0.0` among the bases of FLOAT_POWERS (found: `w = -0.0 if x > 0 else 4.0`, `return w ** 0.5`
# gave 0.0 / 0.0 / -0.0, numpy's power taking sqrt's -0.0; fixed). A float32 value u = -0.0
# in `u ** 0.5` (numpy's scalar `**` gives 0.0, np.power -0.0) is fixed too: `**` of two
# scalars is numpy scalars' `**` (test_python_numbers.test_powers_of_scalars_round_as_numpy_...).
NEGATIVE_ZERO_POWERS = True
# A Python int stand-in as the exponent of a Python float stand-in: `w ** (acc % 4 - 1)` (found:
# `k = 3 if x > 0 else -2`, `w = -8.0 if x > 0 else 4.0`, `return w ** k` failed while tracing,
# the check of a fraction taking the floor of the int exponent; fixed).
INT_EXPONENTS = True
# Python float powers that overflow: `w ** 600` (exponents 600 and -600 among the written ones;
# Python raises OverflowError, the graph gave inf; fixed: the graph raises).
FLOAT_POWER_OVERFLOW = True
# `w ** -600` (a Python float that underflows to 0.0). Found (a 300-program run of the widened
# generator): the graph's generated code was a SyntaxError where Python gives 0.0: `s, t =
# (-4.0 if rt.reduce_sum([1, 1]) < 1 else 4.0) ** -600, 0`, `return s` (a power of two
# constants that folding leaves); fixed.
FLOAT_POWER_UNDERFLOW = True
# `abs(u) ** E`: powers of float32 values (E a float exponent, or `e`). Found: on scalars numpy
# computes `**` with the C library's pow and np.power's vectorized loop rounds some results
# otherwise (`np.float32(3.0) ** 1.5`); eager tensors and graphs used np.power; fixed.
TENSOR_POWERS = True
# Static dims read as Python ints: `p.shape[0]`, `len(p)`, `p.size`, `p.shape[-1]`, `p.ndim`,
# `int(p.shape == (3,))`, `(2 if p.shape[0] == 3 else -1)`, with p's length (2-4) changing
# between the calls of one rt.function (boundary mode), which relaxes to unknown dims from
# the third length (found by a new-user trial: `if x.shape[0] == 8` took the other branch in
# the relaxed graph, whose x.shape[0] was None; fixed: such a function traces each shape).
STATIC_DIMS = True
# The same reads in `f` under `rt.function(input_signature=[rt.TensorSpec([None], ...)])`
# (boundary mode). Found (a review): the unknown dim read as None, so `rt.range(1,
# x.shape[0])` ran as `range(1)` (silent) and `range(x.shape[0])` raised; fixed: the user's
# code reads an unknown dim as numpy.shape gives it, a tensor standing for the int.
SIGNATURE_DIMS = True
# More reads of the shape: its length, a dim halved, max / min / sum over dims (a tuple that
# holds a dim's tensor under a signature).
SHAPE_READS = True
DIM_READS = ("p.shape[0]", "len(p)", "p.size", "p.shape[-1]", "(p.ndim * 3)",
             "int(p.shape == (3,))", "(2 if p.shape[0] == 3 else -1)") + (
    ("len(p.shape)", "(p.shape[0] // 2)", "max(p.shape[0], 3)", "min(p.shape)", "sum(p.shape)")
    if SHAPE_READS else ())
#
# Behaviours the library gained recently (lists of Python numbers at Python's width, in-place
# operators on the numpy argument, enumerate's count, bool arithmetic, the user's exception
# classes); see the module docstring.
#
# Lists of Python numbers a graph builds, read by numpy: `nf` (floats, starting `[]` or
# `[0.5]`) and `ni` (ints, `[]` or `[1]`), appended to under `for i in rt.range(n)`, `for i in
# range(n)`, `while c < n` (a Python counter `c`) or a tensor `if` (`0.1 * c`, `c / 3`, `1 /
# 3`, `float(i)`, `0.1 * i` of range's index, `c * 2`), read as `np.array(L)`, `np.mean(L)`,
# `np.sum(L)`, `sum(L)`, `max(L)`, `L[-1]`, `len(L)` in the returned structure (NUMPY_READS).
# numpy's array of the Python list is float64 / int64 and the graph must match dtype and value.
PYTHON_NUMBER_LISTS = True
# Found: the index of `range(n)` where n is an int32 tensor (as the harness passes n) stands for
# Python ints as a weak *int32*: a list of them was int32 where numpy's array of the Python list
# is int64 (silent). `L = []`, `for i in range(n): L.append(i * 2)`, `return np.array(L)` (n=3)
# gave array([0, 2, 4]) (int64) / the same / an int32 tensor [0, 2, 4]; fixed (a list holds a
# Python number's stand-in at Python's width).
RANGE_INDEX_INT_ITEMS = True
# Float32 vector items (`p[c % 2]`) in the float list next to Python floats: numpy's array of
# the mixed list is float64 (read as `np.array`, `np.mean`, `np.sum`, `len` only: `sum`, `max`
# and `L[-1]` of a mixed list give a float32 or a Python float depending on the order).
MIXED_NUMBER_LISTS = True
# With MIXED_NUMBER_LISTS, `nf` may start as a graph loop's list of float32 items (`nf = []`,
# `for m_ in rt.range(n): nf.append(p[m_ % 2])`): staged and float32 when later blocks append
# Python floats (numpy's array of the list is float64: the graph's list widens then). Found:
# the list stayed float32 and rounded the Python floats (silent).
FLOAT32_LIST_THEN_PYTHON_FLOATS = True
# In-place operators on the numpy vector argument `p` or a view of it (`pv = p[1:]`,
# `p.reshape(-1)`, `p.T`), also under graph loops and ifs; and on copies (`pc = p.copy()`, `p *
# 1.0`, `p[np.array([0, 1])]`, `np.array(p)`, `p.flatten()`). The harness passes tensors to the
# converted and graph runs, where `p *= 2` rebinds (as in Python on a tensor): their oracle is
# the program with `p op= v` and `pv op= v` written `p = p op v` (test_differential.
# rebound_source). A program with such an operator also runs as a graph on numpy arguments:
# where plain Python changed the caller's array, the graph must refuse the call
# (OperatorNotAllowedInGraphError "changes the caller's array", at the user's line); else it
# gives Python's values (or a clear error: the refusal is made while tracing, also for an
# operator on a path the call does not take).
IN_PLACE_ARGUMENT = True
# `for k, v in enumerate(X)` over a vector, a Python list of floats or the program's lists
# (also under graph loops); the count is a Python int (`s = s + k * 0.1` is float64 arithmetic
# in the oracle).
ENUMERATE = True
# Arithmetic on bool arrays: `(p > e) * (q < e)`, `(p > e) + (q < e)` (numpy: logic, a bool
# result), `np.sum((p > 0) * (p < 1))` (an int64 value), and bool masks scaling vectors (`p *
# ((p > 0) + (q < 1))`).
BOOL_ARRAYS = True
# A bool array times a Python float is float32 in converted code and graphs where numpy gives
# float64: `(p > 0) * 2.0`. That is the design's dtype rule for a Python float next to an
# integer or bool tensor under the default promotion ("strict": README, Tensors), not a bug;
# rt.config.set_dtype_promotion("numpy") gives float64. Off: the oracle is numpy's.
BOOL_TIMES_FLOAT = False
# A user-defined exception class (`class StepError(ValueError)` in the module) raised under a
# tensor `if` (`if x > e: raise StepError("...")`): the graph must raise a StepError too
# (test_differential compares the class of an error that Python raises as a StepError).
USER_EXCEPTIONS = True

def _override_flags(text):
    """FUZZ_FLAGS=NAME,NAME=0,...: turns flags of this module on (`NAME`, `NAME=1`) or off
    (`NAME=0`) for a fuzzing run, e.g. `FUZZ_FLAGS=BITWISE,ROUND FUZZ_PROGRAMS=1000 pytest
    tests/autograph/test_differential.py`."""
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        if not isinstance(globals().get(name), bool):
            raise ValueError(f"FUZZ_FLAGS: {name!r} is not a flag of program_grammar")
        globals()[name] = value.strip() not in ("0", "false", "False", "off")


_override_flags(os.environ.get("FUZZ_FLAGS", ""))
DECLARED_LISTS = ("lst", "la", "lv", "rows")
GUARDS = {LINT: "0", LFLOAT: "0.5", LVEC: "p", LROWS: "[n]"}  # what `L + [v]` adds
MAX_DEPTH = 3  # compound statements nest at most this deep
MAX_LOOPS = 3  # loops per program
LITERALS = {INT: ("1", "0", "2", "-3"), FLOAT: ("0.5", "1", "-2.25", "1.5"), VEC: (),
            I64: ("np.int64(2**33)", "2**32", "np.int64(-3 * 2**31)", "5"),
            PINT: ("2_000_000_000", "3_000_000_000", "-2**40", "7", "1000", "-1", "0") + (
                ("2**62",) if PYTHON_INTS_PAST_INT64_WHILE_TRACING else ()),
            PFLOAT: ()}
INITS = {INT: ("x", "0", "y", "2", "n"), FLOAT: ("u", "0", "0.5", "p[0]", "-1.5", "-0.0", "0.0"),
         VEC: ("p", "p * 2", "p + u"),
         I64: ("np.int64(2**33)", "2**32 + 1", "np.int64(-2**31) * 3",
               "(np.int64(2**33) if x < y else np.int64(-2**32 - 1))"),
         PINT: ("0", "1", "2_000_000_000", "3_000_000_000", "-2**40",
                "(3_000_000_000 if x < y else -2**40)")}
# PYTHON_INTS: what `T = T + C` adds (small steps too: a counter's check is dropped by a pass),
# what `T = T * K` multiplies by, what `//` and `%` divide by (never zero), where `prod` starts.
PINT_STEPS = ("2_000_000_000", "3_000_000_000", "-2**40", "1", "-5", "200", "-3_000_000_000") + (
    ("2**62",) if PYTHON_INTS_PAST_INT64_WHILE_TRACING else ())
PINT_FACTORS = ("1000", "-3", "2**16", "-1", "-1000") + (
    ("3_000_000_000",) if PYTHON_INTS_PAST_INT64_WHILE_TRACING else ())
LOOP_FACTORS = ("1000", "-1000", "3_000_000_000", "7")  # (variables of a graph loop)
PINT_DIVISORS = ("3", "-7", "1000", "2**31 + 1", "2**40")
PINT_FORMS = ("atom", "atom", "binary", "binary", "negative", "ifexp", "divide", "power")
PINT_STATEMENTS = ("add", "add", "multiply", "multiply", "negate", "ifexp", "assign", "divide")
GROWING = ("multiply", "assign")  # only in PRODUCT_LOOPS unless PYTHON_INTS_PAST_INT64_WHILE_...
# FLOAT_POWERS: bases (`w`'s values), exponents (`e`'s values are the float ones). Every power
# is exact, also in float32 (a Python float that a graph `if` merges with a float32 tensor is a
# float32, by design: `0.1 if x > 0 else u` gives float32's 0.1), so bases are 0 and powers of
# 4 (their square roots are powers of 2) and exponents whole numbers and halves.
FLOAT32_ATOMS = ("u", "p[0]", "p[-1]", "q[1]")  # (float atoms that are never Python floats)
POWER_BASES = ("-4.0", "0.0", "4.0", "-16.0", "0.25", "-0.25", "1.0") + (
    ("-0.0",) if NEGATIVE_ZERO_POWERS else ())
FLOAT_EXPONENTS = ("0.5", "1.5", "-0.5", "2.0", "-2.0", "0.0", "3.0")
INT_EXPONENTS_WRITTEN = ("2", "3", "-1", "0") + (("600",) if FLOAT_POWER_OVERFLOW else ()) + (
    ("-600",) if FLOAT_POWER_UNDERFLOW else ())
FRACTIONS = ("0.5", "1.5", "-0.5", "e")
POWER_INITS = ("(-4.0 if x < y else 0.25)", "(0.0 if u < 0.5 else -16.0)")  # graph values
EXPONENT_INITS = ("(0.5 if x < n else -2.0)",)
POWER_STATEMENTS = ("ifexp", "ifexp", "negate", "exponent")
JUMPS = ("return", "break", "continue")
_LOOP_NAMES = tuple(f"{k}{d}" for k in "ik" for d in range(MAX_DEPTH + 1))
# Every name a choice may pick, in a fixed order (see `_Writer.choose`).
_OUTSIDE = ("OUT['k']", "OBJ.attr") if OUTSIDE_STATE else ()  # module-level state
_OUTSIDE_TARGETS = _OUTSIDE if OUTSIDE_STATE_ANYWHERE else ()
# The same items at a key the statement computes (`'k' * 1`: not a constant), which a staged
# construct carries by their container (a local dict whole; a global's in place): carrying the
# global's name made it a local variable of the converted function (UnboundLocalError).
_COMPUTED_KEYS = ("d['k' * 1]", *(("OUT['k' * 1]",) if OUTSIDE_STATE_ANYWHERE else ()))
NAMES = {INT: ("x", "y", "n", "a", "b", "G", "d['k']", "dd['k']", "box.attr", "c", "z", "v",
               *_LOOP_NAMES, *_OUTSIDE),
         FLOAT: ("u", "p[0]", "p[-1]", "s", "t", "q[1]", "lst[-1]", *_LOOP_NAMES),
         VEC: ("p", "q", *_LOOP_NAMES), LINT: ("la", *_LOOP_NAMES), LFLOAT: ("lst",),
         LVEC: ("lv",), LROWS: ("rows",), I64: ("big", *_LOOP_NAMES), PINT: ("acc", "prod"),
         PFLOAT: ("w", "e")}
TARGETS = {INT: ("a", "b", "G", "d['k']", "d['j']", "box.attr", "z", *_OUTSIDE_TARGETS,
                 *_COMPUTED_KEYS),
           FLOAT: ("s", "t", "lst[0]", "lst[1]"), VEC: ("q",), LINT: ("la",), LFLOAT: ("lst",),
           LVEC: ("lv",), LROWS: ("rows",), I64: ("big",), PINT: ("acc", "prod"),
           PFLOAT: ("w", "e")}
STABLE = {INT: ("x", "y", "n", *_LOOP_NAMES), FLOAT: ("u", "p[0]", "p[1]", *_LOOP_NAMES), VEC: (),
          I64: _LOOP_NAMES, PINT: (), PFLOAT: ()}
# `np.clip(e, lo, hi)` of floats and vectors, with bounds of signed zeros (and crossed
# bounds), and `np.sign(e)`. Found (a review of issue 29's work): np.clip was a minimum of a
# maximum, which takes the bound where x ties with it; numpy's clip ufunc keeps x there
# (np.clip(-0.0, 0.0, 1.0) is -0.0); fixed.
NUMPY_CLIP_SIGN = True
CALLS = {INT: ("g()", "inner({arg})", "size()", "hi"), FLOAT: ("g()", "hf"), VEC: ("hv",), I64: (),
         PINT: (), PFLOAT: ()}
# The forms of issue 24 that are calls, a bool value or `~` (see `_Writer.number_forms`).
NUMBER_FORMS = ("abs", "pow", "round", "divmod", "max", "min", "sum", "list_max", "list_sum",
                "int", "floor", "ceil", "floor_exp", "fabs", "sqrt", "trunc", "bool", "invert") + (
    ("python_int", "python_int") if PYTHON_INTS else ()) + (
    ("power", "power") if FLOAT_POWERS else ()) + (("dim",) if STATIC_DIMS else ()) + (
    ("clip", "sign") if NUMPY_CLIP_SIGN else ())
CONDITION_FORMS = ("all", "any", "list_any", "bool", "bool_compare", "truth", "not_", "round")
_NUMBER_FLAGS = (INT64_VALUES, INT_CONVERSION, BOOL_ARITHMETIC, MIN_MAX, SUM_ALL_ANY,
                 LIST_BUILTINS, BITWISE, ABS_POW, ROUND, DIVMOD, MATH_FUNCTIONS, MATH_TRUNC,
                 PYTHON_INTS, FLOAT_POWERS, STATIC_DIMS, NUMPY_CLIP_SIGN)
_CONDITION_FLAGS = (SUM_ALL_ANY, LIST_BUILTINS, BOOL_COMPARE, OPERATOR_TRUTH, ROUND_DIGITS)
EXPRESSIONS = ("atom", "atom", "binary", "binary", "ifexp", "boolop", "call", "item", "len",
               "reduce", "pack") + (("number",) * 2 if any(_NUMBER_FLAGS) else ())
CONDITIONS = ("compare", "compare", "compare", "not", "and", "or", "truth", "python",
              "list") + (("number",) * 2 if any(_CONDITION_FLAGS) else ()) + (
    ("python_int",) if PYTHON_INTS else ())
STATEMENTS = ("assign", "assign", "augassign", "return", "if", "if", "while", "for", "for",
              "try", "break", "continue", "bump", "list", "list", "row", "call") + (
    ("augbit",) if AUG_BITWISE else ()) + (("divmod",) if DIVMOD else ()) + (
    ("outside",) if OUTSIDE_STATE else ()) + (
    ("python_int",) * 3 if PYTHON_INTS else ()) + (("product_loop",) if PRODUCT_LOOPS else ()) + (
    ("power",) * 2 if FLOAT_POWERS else ()) + (("numlist",) if PYTHON_NUMBER_LISTS else ()) + (
    ("inplace",) if IN_PLACE_ARGUMENT else ()) + (("raise",) if USER_EXCEPTIONS else ())
LIST_CHANGES = ("append", "append", "pop", "plus", "prepend", "iadd", "extend", "setitem", "pop",
                "clear", "append_to_item", "helper")
INDICES = ("0", "-1", "1", "-2", "{atom} % 3", "len({lst}) - 1", "-len({lst})")
SAFE_INDICES = ("0", "-1", "{atom} % len({lst})", "len({lst}) - 1", "-len({lst})")
DEFAULTS = {INT: "0", FLOAT: "0.5", VEC: "p"}  # `(L[i] if L else default)`
FOR_FORMS = ("range", "rt.range", "vector", "list", "items", "range_len") + (
    ("range64",) if INT64_RANGE else ()) + (("enumerate",) if ENUMERATE else ())
NAN_ATOMS = ("(u * 0.0 / 0.0)", "(u / 0.0)", "(p[-1] * 0.0 / 0.0)")  # u and p are numpy floats
# PYTHON_NUMBER_LISTS: the loops and ifs that append, the items (`{m}` a Python counter the
# graph loop carries, `{i}` range's index: not rt.range's, an int32 tensor in plain Python too),
# the first items and the reads.
NUMBER_LIST_BLOCKS = ("rt.range", "range", "while", "if")
FLOAT_ITEMS = ("0.1 * {m}", "{m} / 3", "1 / 3", "float({m})", "0.5", "0.1 * {i}", "float({i})",
               "{i} / 3")
INT_ITEMS = ("{m} * 2", "{m}", "1", "-3", "{i} * 2")
MIXED_ITEMS = ("p[{m} % 2]", "p[0]")  # float32 items (MIXED_NUMBER_LISTS)
FLOAT_LIST_READS = ("np.array(nf)", "np.mean(nf)", "np.sum(nf)", "len(nf)", "sum(nf)",
                    "(max(nf) if nf else 0.25)", "(nf[-1] if nf else 0.25)", "max(nf)", "nf[-1]")
INT_LIST_READS = ("np.array(ni)", "np.sum(ni)", "sum(ni)", "len(ni)", "(max(ni) if ni else 7)",
                  "(ni[-1] if ni else 7)", "np.mean(ni)")
MIXED_READS = ("np.array(nf)", "np.mean(nf)", "np.sum(nf)", "len(nf)")
# IN_PLACE_ARGUMENT: views of p (numpy changes p through them) and copies of it.
VIEWS = ("p[1:]", "p.reshape(-1)", "p.T")
COPIES = ("p.copy()", "p * 1.0", "p[np.array([0, 1])]", "np.array(p)", "p.flatten()")
IN_PLACE_VALUES = ("2", "-1", "u", "0.5", "1")
# BOOL_ARRAYS: reads in the returned structure ({a}, {b}: float values).
BOOL_READS = ("(p > {a}) * (q < {b})", "(p > {a}) + (q < {b})", "np.sum((p > {a}) * (q < {b}))",
              "np.sum((p > {a}) + (p < {b}))", "(p > 0) * 2") + (
    ("(p > 0) * 2.0", "(q < {a}) * 0.5") if BOOL_TIMES_FLOAT else ())
STEP_ERROR_CLASS = '''
class StepError(ValueError):
    pass
'''
# Values of list items: they never grow (so a loop over a list is a loop over stable values).
# Float items are written so that a list of Python numbers is a float list (`- 26.0`).
LIST_INITS = {INT: ("0", "x", "1", "n", "-3", "y"), FLOAT: ("0.5", "u", "-1.5", "p[0]", "1.0"),
              VEC: ("p", "p * 2", "p + u")}
PUT_IN_HELPER = '''
def put_in(lst, v):
    lst.append(v)
'''
CHECK_HELPER = '''
def check(v):
    if v > 1:
        raise ValueError("check: v > 1")
    return v
'''
BOX_CLASS = '''
class Box:
    pass
'''
# Decorators a program may define (those it applies), and where each may go (DECORATED_AT):
# `helper` (`(v, w=1)`), `inner` (`(v)`), `lambda` (no arguments), `f` (any result), `f_value`
# (`f` returning an int, float or vector). Each keeps its function's argument and result types.
DECORATORS = {
    "scaled": '''
def scaled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2
    return wrapper
''',
    "shifted": '''
def shifted(fn):
    @functools.wraps(fn)
    def wrapper(v, *args, **kwargs):
        return fn(v + 1, *args, **kwargs)
    return wrapper
''',
    "twice": '''
def twice(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + fn(*args, **kwargs)
    return wrapper
''',
    "again": '''
def again(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        fn(*args, **kwargs)
        return fn(*args, **kwargs)
    return wrapper
''',
    "keyword": '''
def keyword(fn):
    @functools.wraps(fn)
    def wrapper(v, w=1):
        return fn(w=w + 1, v=v)
    return wrapper
''',
    "scale_by": '''
def scale_by(k):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs) * k
        return wrapper
    return decorator
''',
    "by_name": '''
def by_name(fn):
    @functools.wraps(fn)
    def wrapper(x, y, u, p, n):
        return fn(x, y, u, n=n, p=p)
    return wrapper
''',
    "Offset": '''
class Offset:
    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs) - 1
''',
    "Shift": '''
class Shift:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, v, *args, **kwargs):
        return self.fn(v + 1, *args, **kwargs)
''',
}
_ALL_BUT_F = ("helper", "inner", "lambda")
DECORATED_AT = {
    "scaled": (*_ALL_BUT_F, "f_value"), "shifted": ("helper", "inner", "f"),
    "twice": (*_ALL_BUT_F, "f_value"), "again": (*_ALL_BUT_F, "f"), "keyword": ("helper",),
    "scale_by": (*_ALL_BUT_F, "f_value"), "by_name": ("f",),
    "Offset": (*_ALL_BUT_F, "f_value"),
    "Shift": ("helper", "inner", "f"),
}
HELPERS = {"hi": INT, "hf": FLOAT, "hv": VEC}  # module-level decorated helpers `(v, w=1)`


class Case(NamedTuple):
    source: str
    arg_sets: list


@dataclasses.dataclass
class Features:
    """Program-wide choices, drawn while the prologue is written; each shrinks to off."""

    global_: bool = False
    dict: bool = False
    list: bool = False
    box: bool = False  # an attribute of an instance of a class
    nonlocal_: bool = False  # `bump(v)` writes `c` through `nonlocal`
    lambda_: bool = False
    inner: bool = False  # `inner(v)`: a nested function with a branch, reading the body's variables
    try_: bool = False
    undefined: bool = False  # `z` is assigned in the body only (maybe on some paths)
    int_list: bool = False  # `la`, an int list
    vec_list: bool = False  # `lv`, a list of vectors
    rows: bool = False  # `rows`, a list of int lists
    list_reader: bool = False  # `size()`: a nested function that reads a list's length
    decorated: bool = False  # decorated helpers `hi`, `hf`, `hv`; `inner` and `g` decorated too
    decorated_f: bool = False  # `f` itself decorated
    outside: bool = False  # `OUT`, `OBJ` and `put` (OUTSIDE_STATE); `G` only written there


RARE_FEATURES = ("global_", "nonlocal_", "decorated_f")  # drawn one time in four


@dataclasses.dataclass(frozen=True)
class Scope:
    """What a statement may use, per type: readable expressions (`atoms`), values that never
    grow (`stable`, added by `+=`), assignable `targets` and `calls`; Python ints (for Python
    conditions); the nesting depth, and whether `break` is allowed."""

    atoms: dict
    stable: dict
    targets: dict
    calls: dict
    python_ints: tuple = ()
    depth: int = 0
    in_loop: bool = False
    frozen: tuple = ()  # lists a `for` iterates: not lengthened or shortened in place
    product_loop: bool = False  # in the body of a PRODUCT_LOOPS loop (a graph loop)
    # in a `finally:` block: no return, break or continue (they discard exceptions, PEP 765;
    # autograph refuses them with a located ConversionError, tests/autograph)
    in_finally: bool = False

    def lists(self, kinds=LISTS, mutable=False):
        """(kind, name) of the readable (or changeable) lists of `kinds`."""
        table = self.targets if mutable else self.atoms
        return [(kind, name) for kind in kinds for name in table[kind]]

    def add(self, kind, name, stable=False, python=False, target=False, readable=True):
        def grow(table, yes=True):
            return {**table, kind: table[kind] + (name,)} if yes else table
        return dataclasses.replace(
            self, atoms=grow(self.atoms, readable), stable=grow(self.stable, stable),
            targets=grow(self.targets, target),
            python_ints=self.python_ints + ((name,) if python else ()))

    def without_target(self, kind, name):
        return dataclasses.replace(
            self, targets={**self.targets, kind: tuple(t for t in self.targets[kind] if t != name)})

    def with_call(self, kind, call):
        return dataclasses.replace(self, calls={**self.calls, kind: self.calls[kind] + (call,)})

    def nested(self, in_loop=None):
        return dataclasses.replace(
            self, depth=self.depth + 1, in_loop=self.in_loop if in_loop is None else in_loop)


def _indent(lines):
    return ["    " + line for line in lines]


def _wrap(expr, kind=INT):
    if kind == I64:  # large, and far from overflowing int64
        return f"{expr} % 2**36 - 2**35"
    return f"{expr} % 53 - 26"


class _Writer:
    """Draws the statements of one program; `loops` counts the loops written so far."""

    def __init__(self, draw, template):
        self.draw = draw
        self.features = Features()
        self.template = template
        self.loops = 0
        self.helpers = []  # module-level lines: the decorated helpers
        self.outside_lines = []  # module-level lines: the outside state (OUTSIDE_STATE)
        self.f_decorators = []
        self.complex_ok = False  # (FLOAT_POWERS: where a power may be a complex number)
        self.mixed = False  # (PYTHON_NUMBER_LISTS: `nf` holds float32 items too)

    @property
    def helpers(self):
        """The module-level lines before `f`: the imports the forms of issue 24 need, the
        outside state, the decorated helpers (boundary_programs writes its own modules, so what
        `f` needs goes here)."""
        imports = [line for line, on in (
            ("import math", MATH_FUNCTIONS or MATH_TRUNC), ("import operator", OPERATOR_TRUTH),
            ("import numpy as np", INT64_VALUES or INT64_RANGE or PYTHON_NUMBER_LISTS
             or IN_PLACE_ARGUMENT or BOOL_ARRAYS or NUMPY_CLIP_SIGN)) if on]
        return (["", *imports] if imports else []) + self.outside_lines + self._helpers

    @helpers.setter
    def helpers(self, lines):
        self._helpers = lines

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def choose(self, options, available):
        """One of `available`, drawn by its position in the fixed `options`: a drawn option that
        is not available (e.g. the program has no dict) maps to an available one. So removing a
        feature leaves the program's other choices as they were, which lets hypothesis shrink."""
        index = self.draw(st.integers(0, len(options) - 1))
        if options[index] in available:
            return options[index]
        return available[index % len(available)]

    def chance(self, one_in):
        return self.draw(st.integers(0, one_in - 1)) == one_in - 1

    def span(self, write, *args):
        """`write(*args)` as one draw, which the shrinker can delete as a whole."""
        return self.draw(_span(self, write, args))

    def flag(self, feature):
        """Draws whether the program uses `feature` (some features one time in four)."""
        on = self.chance(4) if feature in RARE_FEATURES else self.draw(st.booleans())
        setattr(self.features, feature, on)
        return on

    # ---- expressions -------------------------------------------------------------------------
    def atom(self, scope, kind):
        if kind == FLOAT and NAN_VALUES and "u" in scope.atoms[FLOAT] and self.chance(6):
            return self.pick(NAN_ATOMS)
        if kind == FLOAT and FLOAT_POWERS and scope.atoms[PFLOAT] and self.chance(8):
            return self.power(scope, 2)  # (else seldom drawn)
        return self.choose(NAMES[kind] + LITERALS[kind], scope.atoms[kind] + LITERALS[kind])

    def expr(self, scope, kind, depth=0):
        if kind == PINT:
            return self.python_int(scope, depth)
        if kind == PFLOAT:
            return self.atom(scope, PFLOAT)
        forms = {"atom"}
        if depth < 2:
            forms |= {"binary", "ifexp"}
            if kind != I64:
                forms.add("pack")
            if kind != VEC:  # a vector's truth value is ambiguous
                forms.add("boolop")
            if self.number_forms(scope, kind):
                forms.add("number")
            if scope.calls[kind]:
                forms.add("call")
            if self.item_lists(scope, kind):
                forms.add("item")
            if kind == INT and scope.lists():
                forms.add("len")
            if self.summed_lists(scope, kind):
                forms.add("reduce")
        form = self.choose(EXPRESSIONS, [f for f in EXPRESSIONS if f in forms])
        if form not in ("atom", "binary", "ifexp", "number"):
            with self.real_powers():
                return self._expr(scope, kind, depth, form)
        return self._expr(scope, kind, depth, form)

    def real_powers(self):
        """A context where powers are real numbers (COMPLEX_POWERS): a complex number is
        returned as it is or in arithmetic (`+ - *`, conditional expressions) only, never
        compared (numpy orders complex numbers, the runtime refuses to), passed to a builtin
        or a helper, put in a list or tested for truth."""
        writer = self

        class _Real:
            def __enter__(self):
                self.outer, writer.complex_ok = writer.complex_ok, False

            def __exit__(self, *exc):
                writer.complex_ok = self.outer
        return _Real()

    def _expr(self, scope, kind, depth, form):
        if BOOL_ARRAYS and form == "binary" and kind in (VEC, I64) and "q" in scope.atoms[VEC] \
                and self.chance(5):  # a bool mask: numpy's logic `+` and `*`
            a, b = self.atom(scope, FLOAT), self.atom(scope, FLOAT)
            mask = f"((p > {a}) {self.pick(['*', '+'])} (q < {b}))"
            if kind == I64:
                return f"np.sum({mask})"
            return f"({self.expr(scope, VEC, depth + 1)} * {mask})"
        if form == "atom":
            return self.atom(scope, kind)
        if form in ("item", "len", "reduce", "pack"):
            return getattr(self, "list_" + form)(scope, kind, depth)
        if form == "number":
            return self.number(scope, kind, depth)
        if form == "binary":
            ops = ["+", "-", "*"] + (["//", "%"] if kind == I64 else [])
            if BITWISE and kind in (INT, I64):
                ops += ["&", "|", "^", "<<", ">>"]
            op = self.pick(ops)
            left = self.expr(scope, kind, depth + 1)
            if op == "*":
                return f"({left} * {self.draw(st.integers(-3, 3))})"
            if op in ("//", "%"):  # an int64 value by a Python int, never zero
                return f"({left} {op} {self.pick(['3', '-7', '2**31 + 1', '2**33'])})"
            if op in ("<<", ">>"):
                return f"({left} {op} {self.shift_count(scope, kind)})"
            right_kind = self.pick([VEC, FLOAT]) if kind == VEC else kind
            if kind == I64 and INT64_WITH_INT32 and self.chance(3):
                right_kind = INT
            return f"({left} {op} {self.expr(scope, right_kind, depth + 1)})"
        if form == "ifexp":
            body, orelse = self.expr(scope, kind, depth + 1), self.expr(scope, kind, depth + 1)
            return f"({body} if {self.condition(scope, depth + 1)} else {orelse})"
        if form == "boolop":
            op = self.pick(["or", "and"])
            return f"({self.expr(scope, kind, depth + 1)} {op} {self.expr(scope, kind, depth + 1)})"
        call = self.choose(CALLS[kind], scope.calls[kind])
        if call in HELPERS:
            return self.helper_call(scope, call, depth)
        return call.format(arg=self.expr(scope, INT, depth + 1))

    def helper_call(self, scope, name, depth):
        """A call of the decorated helper `name`, `w` passed or not, by position or keyword."""
        arg = self.expr(scope, HELPERS[name], depth + 1)
        form = self.draw(st.integers(0, 3))
        if form == 0:
            return f"{name}({arg})"
        w = self.atom(scope, INT)
        return (f"{name}({arg}, {w})", f"{name}({arg}, w={w})", f"{name}(v={arg}, w={w})")[form - 1]

    def decorators(self, site):
        """1-2 decorator lines (`@name`) for a function of `site` (see DECORATED_AT)."""
        names = tuple(DECORATORS)
        available = [name for name in names if site in DECORATED_AT[name]]
        lines = []
        for _ in range(self.draw(st.integers(1, 2))):
            name = self.choose(names, available)
            if name == "scale_by":
                name = f"scale_by({self.draw(st.integers(-2, 3))})"
            lines.append("@" + name)
        return lines

    def condition(self, scope, depth=0):
        with self.real_powers():
            return self._condition(scope, depth)

    def _condition(self, scope, depth=0):
        forms = {"compare"}
        if depth < 2:
            forms |= {"not", "and", "or", "truth"}
        if scope.python_ints:
            forms.add("python")
        if scope.lists():
            forms.add("list")
        if depth < 2 and self.condition_forms(scope):
            forms.add("number")
        if PYTHON_INTS and scope.atoms[PINT]:
            forms.add("python_int")
        form = self.choose(CONDITIONS, [f for f in CONDITIONS if f in forms])
        if form == "list":  # a list's truth value: not empty
            return self.a_list(scope)[1]
        if form == "python_int":  # PYTHON_INTS: compared with each other (or with an int)
            op = self.pick(["<", ">", "<=", ">=", "==", "!="])
            other = (self.expr(scope, INT, 1) if PYTHON_INTS_COMPARED and self.chance(3)
                     else self.python_int(scope, depth + 1))
            return f"{self.python_int(scope, depth + 1)} {op} {other}"
        if form == "number":
            return self.number_condition(scope, depth)
        if form == "compare":
            kind = self.pick([INT, FLOAT] + ([I64] if INT64_VALUES else []))
            op = self.pick(["<", ">", "<=", ">=", "==", "!="])
            return f"{self.expr(scope, kind, 1)} {op} {self.expr(scope, kind, 1)}"
        if form == "not":
            return f"not ({self.condition(scope, depth + 1)})"
        if form == "truth":
            return self.expr(scope, INT, 1)
        if form == "python":
            name = self.choose(_LOOP_NAMES, scope.python_ints)
            return f"{name} % 2 == {self.draw(st.integers(0, 1))}"
        return f"({self.condition(scope, depth + 1)}) {form} ({self.condition(scope, depth + 1)})"

    # ---- Python numbers and builtins (issue 24) --------------------------------------------
    def number_forms(self, scope, kind):
        """The forms of NUMBER_FORMS that the flags allow for a value of `kind`."""
        if kind == I64 and not INT64_VALUES:
            return []
        listed = bool(self.listed(scope, kind))
        on = {"abs": ABS_POW, "pow": ABS_POW and kind != I64, "round": ROUND and kind == INT,
              "divmod": DIVMOD and kind in (INT, FLOAT), "max": MIN_MAX and kind != VEC,
              "min": MIN_MAX and kind != VEC,
              "sum": SUM_ALL_ANY and (kind != VEC or bool(scope.atoms[VEC])),
              "list_max": LIST_BUILTINS and kind in (INT, FLOAT) and listed,
              "list_sum": LIST_BUILTINS and listed,
              "int": INT_CONVERSION and kind in (INT, I64),
              "floor": MATH_FUNCTIONS and kind == INT, "ceil": MATH_FUNCTIONS and kind == INT,
              "floor_exp": MATH_FUNCTIONS and kind == INT, "fabs": MATH_FUNCTIONS and kind == FLOAT,
              "sqrt": MATH_FUNCTIONS and kind == FLOAT, "trunc": MATH_TRUNC and kind == INT,
              "bool": BOOL_ARITHMETIC and kind in (INT, I64),
              "invert": BITWISE and kind in (INT, I64),
              "python_int": PYTHON_INTS and kind in (INT, I64) and bool(scope.atoms[PINT]),
              "power": FLOAT_POWERS and kind == FLOAT and bool(scope.atoms[PFLOAT]),
              "dim": STATIC_DIMS and kind == INT and "p" in scope.atoms[VEC],
              "clip": NUMPY_CLIP_SIGN and kind in (FLOAT, VEC) and bool(scope.atoms[VEC]),
              "sign": NUMPY_CLIP_SIGN and kind in (FLOAT, VEC) and bool(scope.atoms[VEC])}
        return [form for form in NUMBER_FORMS if on[form]]

    def listed(self, scope, kind):
        """The lists (of the program's) whose items are of `kind`."""
        return scope.lists([k for k in (LINT, LFLOAT, LVEC) if ITEM[k] == kind])

    def number(self, scope, kind, depth):
        """A value of `kind` made by a builtin, a `math` function, a bool or `~`."""
        forms = self.number_forms(scope, kind)
        form = self.choose(NUMBER_FORMS, forms)
        if form != "power":
            with self.real_powers():
                return self._number(scope, kind, depth, form)
        return self.power(scope, depth)

    def _number(self, scope, kind, depth, form):

        def value(of=kind):
            return self.expr(scope, of, depth + 1)

        def scalar():  # an int or a float argument, mostly a float
            return value(self.pick([FLOAT, FLOAT, INT]))

        if form == "abs":
            return f"abs({value()})"
        if form == "pow":  # of a wrapped value, so that it stays small
            return f"pow({_wrap(value())}, 2)"
        if form == "round":
            return f"round({value(FLOAT)})"
        if form == "divmod":
            return f"divmod({value()}, {self.divisor(scope, kind)})[{self.draw(st.integers(0, 1))}]"
        if form in ("max", "min"):
            if kind == FLOAT and scope.atoms[VEC] and self.chance(3):
                return f"{form}({value(VEC)})"
            if self.draw(st.booleans()):  # a list of 1-3 values
                items = [value() for _ in range(self.draw(st.integers(1, 3)))]
                return f"{form}([{', '.join(items)}])"
            items = [value() for _ in range(self.draw(st.integers(2, 3)))]
            return f"{form}({', '.join(items)})"
        if form == "sum":
            if kind == FLOAT and scope.atoms[VEC] and self.chance(3):
                return f"sum({value(VEC)})"
            items = [value() for _ in range(self.draw(st.integers(1, 3)))]
            return f"sum([{', '.join(items)}])"
        if form in ("list_max", "list_sum"):
            _, name = self.choose(self.listed(scope, kind), self.listed(scope, kind))
            if form == "list_sum":
                if kind == VEC:  # a start of the items' shape (-0.0 + -0.0 keeps its sign)
                    return f"sum({name}, {self.pick(['p * 0', 'p * -0.0'])})"
                start = self.pick(["", ", -0.0", ", 0.25"]) if kind == FLOAT else ""
                return f"sum({name}{start})"
            return f"({self.pick(['max', 'min'])}({name}) if {name} else {DEFAULTS[kind]})"
        if form == "int":
            if kind == I64:
                return self.pick([f"int({value()})", f"int({value(FLOAT)} * 2**32)"])
            if INT64_VALUES and self.chance(3):
                return f"int({value(I64)} % 53)"
            if "u" in scope.atoms[FLOAT] and self.chance(4):  # Python raises (nan, inf), or
                return self.pick([f"int({self.pick(NAN_ATOMS)})",  # the int is beyond int32
                                  f"(int({value(FLOAT)} * 2**32) % 53)"])
            return f"int({scalar()})"
        if form in ("floor", "ceil", "trunc"):
            return f"math.{form}({scalar()})"
        if form == "floor_exp":  # exp of a value in [-2, 2): its floor is exact in float32 too
            return f"math.floor(math.exp({value(FLOAT)} % 4 - 2))"
        if form == "fabs":
            return f"math.fabs({scalar()})"
        if form == "sqrt":  # of a square, so that the float32 root is exact
            root = _wrap(scalar())
            return f"math.sqrt(abs(({root}) * ({root})))"
        if form == "bool":  # typed as numpy types it: a numpy bool next to a Python int is int64
            op = self.pick(["+", "-", "*"])
            if kind == I64:
                return f"({self.bool_value(scope, depth, (0,))} {op} {self.pick(['1', '3', '-2'])})"
            arguments = [name for name in ("x", "y", "n") if name in scope.atoms[INT]]
            if arguments and self.draw(st.booleans()):  # next to an int32 argument: int32
                return f"({self.bool_value(scope, depth, (0,))} {op} {self.pick(arguments)})"
            return f"({self.bool_value(scope, depth, (1, 2))} {op} {value()})"  # a Python bool
        if form == "python_int":  # PYTHON_INTS: a Python int read as an int or int64 value
            if kind == I64 and PYTHON_INTS_COMPARED and self.chance(3):
                return self.atom(scope, PINT)  # as it is (maybe past int64)
            return f"({_wrap(self.python_int(scope, depth + 1), kind)})"
        if form == "dim":  # STATIC_DIMS: a Python int
            return self.pick(DIM_READS)
        if form in ("clip", "sign"):  # NUMPY_CLIP_SIGN: of a vector (a Python float's would be
            x = value(VEC)  # a float64 numpy scalar, which a float32 tensor refuses to mix with)
            if form == "clip":  # (signed zeros tie with x's zeros)
                lo, hi = self.pick([("0.0", "1.0"), ("-0.0", "0.0"), ("-1.5", "-0.0"),
                                    ("0.0", "-0.0"), ("2.0", "-1.0")])
                x = f"np.clip({x} * 0.0 if {self.condition(scope, depth + 1)} else {x}, {lo}, {hi})"
            else:
                x = f"np.sign({x})"
            return x if kind == VEC else f"{x}[0]"
        return f"(~{value()})"  # invert

    # ---- Python ints past int32 and int64, powers of Python floats -------------------------
    def python_int(self, scope, depth=0, reads=True):
        """A Python int (PYTHON_INTS): `acc`, `prod`, constants past int32, their sums,
        differences, products by a constant, negations, conditional expressions, `//` and `%` by
        constants and (`reads`: a value that is not assigned back, so that no value squares on
        every iteration of a loop) small powers."""
        forms = {"atom"} | ({"binary", "negative", "ifexp", "divide"} if depth < 2 else set())
        if reads and depth < 2:
            forms.add("power")
        form = self.choose(PINT_FORMS, [f for f in PINT_FORMS if f in forms])
        if form == "atom":
            return self.atom(scope, PINT)
        grows = PYTHON_INTS_PAST_INT64_WHILE_TRACING
        value = self.python_int(scope, depth + 1, reads)
        if form == "binary":
            op = self.pick(["+", "-", "*"])
            if op == "*":  # by a constant, so that it grows by a few dozen bits only
                return f"({value if grows else self.atom(scope, PINT)} * {self.pick(PINT_FACTORS)})"
            return f"({value} {op} {self.python_int(scope, depth + 1, reads)})"
        if form == "negative":
            return f"(-{value})"
        if form == "ifexp":
            orelse = self.python_int(scope, depth + 1, reads)
            return f"({value} if {self.condition(scope, 2)} else {orelse})"
        if form == "divide":
            return f"({value} {self.pick(['//', '%'])} {self.pick(PINT_DIVISORS)})"
        if grows:  # 0-3, or a carried exponent in -1..1 (an int to a negative power is a
            # float in Python; the graph refuses it at the user's line)
            exponent = self.pick(["2", "3", "0", f"({self.atom(scope, PINT)} % 3 - 1)"])
            return f"({value} ** {exponent})"
        # within int64 (a name is within 2**42 while tracing, or the graph's value)
        exponent = self.pick(["2", "3", "0", f"({self.atom(scope, PINT)} % 3)"])
        base = self.atom(scope, PINT)
        return f"({base} ** 0)" if exponent == "0" else f"(({base} % 2**20) ** {exponent})"

    def power(self, scope, depth):
        """`base ** exponent` of Python floats (FLOAT_POWERS): base `w` or a constant (maybe an
        `if` of two), exponent a Python int or float constant or `e` (or, with INT_EXPONENTS,
        a Python int stand-in in -1..2). Where the writer may not write a complex number
        (`complex_ok`), a fraction's base is `abs(...)`."""
        bases = ("w", "constant", "ifexp")
        base = self.choose(bases, [b for b in bases if b != "w" or "w" in scope.atoms[PFLOAT]])
        if base == "constant":
            base = f"({self.pick(POWER_BASES)})"
        elif base == "ifexp":
            first, second = self.pick(POWER_BASES), self.pick(POWER_BASES)
            base = f"({first} if {self.condition(scope, 2)} else {second})"
        exponents = INT_EXPONENTS_WRITTEN + FLOAT_EXPONENTS + ("e",)
        exponent = self.choose(exponents, [x for x in exponents
                                           if x != "e" or "e" in scope.atoms[PFLOAT]])
        if INT_EXPONENTS and scope.atoms[PINT] and self.chance(4):
            exponent = f"({self.atom(scope, PINT)} % 4 - 1)"
        if not self.complex_ok and exponent in FRACTIONS:
            base = f"abs({base})"  # (a fraction of a non-negative base is real)
        # A float32 value's power (`s`, `t` and `lst`'s items may hold Python floats, whose
        # inexact roots a graph `if` or `and` would merge into float32 by design: found when
        # `abs(lst[-1]) ** 0.5` met `u * 0.0 / 0.0` in an `and`).
        float32s = sorted(set(scope.atoms[FLOAT]) & set(FLOAT32_ATOMS))
        if TENSOR_POWERS and float32s and exponent not in INT_EXPONENTS_WRITTEN and (
                self.chance(3)):
            base = f"abs({self.pick(float32s)})"
        return f"({base} ** {exponent})"

    def divisor(self, scope, kind):
        """A divisor of `kind` (an int or a float) that is never zero."""
        if kind == FLOAT:  # (u, the argument, is never nan)
            return self.choose(("0.5", "-1.5", "(u * u + 0.25)", "-(u * u + 0.75)"),
                               ("0.5", "-1.5") + (("(u * u + 0.25)", "-(u * u + 0.75)")
                                                  if "u" in scope.atoms[FLOAT] else ()))
        atom = self.atom(scope, INT)
        return self.choose(("3", "-2", "(n + 1)", f"({atom} % 5 + 1)", f"-({atom} % 4 + 1)"),
                           ("3", "-2", f"({atom} % 5 + 1)", f"-({atom} % 4 + 1)")
                           + (("(n + 1)",) if "n" in scope.atoms[INT] else ()))

    def shift_count(self, scope, kind):
        """A small non-negative shift count (a Python int for an int64 value)."""
        if kind == I64:
            return str(self.draw(st.integers(0, 3)))
        return self.pick([str(self.draw(st.integers(0, 3))), "n", f"({self.atom(scope, INT)} % 4)"])

    def bool_value(self, scope, depth, forms=(0, 1, 2)):
        """A bool: a comparison (form 0: a numpy bool in the oracle), `bool(e)` or
        `operator.truth(e)` (forms 1, 2: a Python bool)."""
        kind = self.pick([INT, FLOAT])
        form = self.pick([f for f in forms if f < 2 or OPERATOR_TRUTH])
        value = self.expr(scope, kind, depth + 1)
        if form == 0:
            op = self.pick(["<", ">", "==", "!="])
            return f"({value} {op} {self.expr(scope, kind, depth + 1)})"
        if form == 1:
            return f"bool({value})"
        return f"operator.{self.pick(['truth', 'not_'])}({value})"

    def condition_forms(self, scope):
        on = {"all": SUM_ALL_ANY, "any": SUM_ALL_ANY,
              "list_any": LIST_BUILTINS and bool(scope.lists((LINT, LFLOAT))),
              "bool": BOOL_COMPARE, "bool_compare": BOOL_COMPARE, "truth": OPERATOR_TRUTH,
              "not_": OPERATOR_TRUTH, "round": ROUND_DIGITS}
        return [form for form in CONDITION_FORMS if on[form]]

    def number_condition(self, scope, depth):
        forms = self.condition_forms(scope)
        form = self.choose(CONDITION_FORMS, forms)
        kind = self.pick([INT, FLOAT])
        if form in ("all", "any"):
            if scope.atoms[VEC] and self.chance(3):
                return f"{form}({self.expr(scope, VEC, depth + 1)})"
            items = [self.expr(scope, kind, depth + 1) for _ in range(self.draw(st.integers(1, 3)))]
            return f"{form}([{', '.join(items)}])"
        if form == "list_any":
            _, name = self.a_list(scope, (LINT, LFLOAT))
            return f"{self.pick(['any', 'all'])}({name})"
        if form == "bool":
            return f"bool({self.expr(scope, kind, depth + 1)})"
        if form == "bool_compare":
            op = self.pick(["==", "!=", "<", ">="])
            return f"{self.bool_value(scope, depth)} {op} {self.pick(['-1', '0', '1', '2'])}"
        if form in ("truth", "not_"):
            return f"operator.{form}({self.expr(scope, kind, depth + 1)})"
        op = self.pick(["<", ">", "==", "!=", "<=", ">="])  # round: its value is inexact
        rounded = f"round({self.expr(scope, FLOAT, depth + 1)}, 1)"
        return f"{rounded} {op} {self.expr(scope, FLOAT, depth + 1)}"

    # ---- lists -------------------------------------------------------------------------------
    def a_list(self, scope, kinds=LISTS, mutable=False):
        """(kind, name) of one of the lists of `kinds` in `scope` (there must be one)."""
        lists = scope.lists(kinds, mutable)
        options = [(kind, name) for kind in kinds for name in NAMES[kind]]
        return self.choose(options, lists)

    def item_lists(self, scope, kind):
        """The lists whose items (or, for rows, items of items) are of `kind`."""
        return scope.lists([k for k in LISTS if ITEM[k] == kind or (kind == INT and k == LROWS)])

    def summed_lists(self, scope, kind):
        return scope.lists({INT: (LINT, LROWS), FLOAT: (LFLOAT, LVEC)}.get(kind, ()))

    def index(self, scope, name, safe=False):
        """An index of the list `name`: an int or an int tensor, maybe negative, maybe past its
        end (Python raises IndexError, and so must the graph) unless `safe` (then `name` must
        not be empty) or FAILING_LIST_OPS is off."""
        safe = safe or not FAILING_LIST_OPS
        index = self.pick(SAFE_INDICES if safe else INDICES)
        return index.format(atom=self.atom(scope, INT), lst=name)

    def guarded(self, name, expr, default):
        """`expr` (which reads `name`), or `default` where `name` is empty (if the reads that
        fail are off)."""
        return expr if FAILING_LIST_OPS else f"({expr} if {name} else {default})"

    def list_item(self, scope, kind, depth):
        lists = self.item_lists(scope, kind)
        kind_of, name = self.choose(lists, lists)
        item = f"{name}[{self.index(scope, name)}]"
        if kind_of == LROWS:  # an item of an item (rows hold no empty row unless EMPTY_ROWS)
            item = f"{item}[{self.index(scope, item, safe=not EMPTY_ROWS)}]"
        return self.guarded(name, item, DEFAULTS[kind])

    def list_len(self, scope, kind, depth):
        kind_of, name = self.a_list(scope)
        if kind_of == LROWS and self.draw(st.booleans()):
            return self.guarded(name, f"len({name}[{self.index(scope, name)}])", "0")
        return f"len({name})"

    def stacked(self, kind, name, op=None):
        """`rt.stack` or `rt.concat` (of vectors or rows) of the list `name` of `kind`."""
        op = op or self.pick(["stack", "concat"])
        op = op if kind in (LVEC, LROWS) else "stack"
        if not FAILING_LIST_OPS:
            op = "concat" if kind == LROWS else op  # rows may be ragged
            name = f"{name} + [{GUARDS[kind]}]"  # never empty
        return f"rt.{op}({name}{', 0' if op == 'concat' else ''})"

    def list_reduce(self, scope, kind, depth):
        lists = self.summed_lists(scope, kind)
        kind_of, name = self.choose(lists, lists)
        return f"rt.reduce_sum({self.stacked(kind_of, name)})"

    def list_pack(self, scope, kind, depth):
        """A Python list of values (tensors in a graph) where an op wants a tensor."""
        if kind == VEC:  # the vector shifted by one, with a new first item
            value, vector = self.expr(scope, FLOAT, depth + 1), self.atom(scope, VEC)
            return f"rt.concat([[{value}], {vector}[1:]], 0)"
        items = [self.expr(scope, kind, depth + 1) for _ in range(self.draw(st.integers(1, 3)))]
        if kind == FLOAT:  # not a list of Python ints only (an int32 tensor)
            items.append("0.0")
        return f"rt.reduce_sum([{', '.join(items)}])"

    def list_value(self, scope, kind):
        """A value to put in a list of `kind` items: one that never grows."""
        if kind == LINT:
            if ALIASED_ROWS and scope.lists((LINT,)) and self.chance(4):
                return self.a_list(scope, (LINT,))[1]  # the row is that list, not a copy
            least = 0 if EMPTY_ROWS else 1
            values = [self.list_value(scope, INT) if MIXED_ROWS else self.row_item(scope)
                      for _ in range(self.draw(st.integers(least, 3)))]
            return f"[{', '.join(values)}]"
        if self.draw(st.booleans()):
            options = STABLE[kind] + LIST_INITS[kind]
            available = [v for v in scope.stable[kind] + LIST_INITS[kind] if v not in _LOOP_NAMES
                         or kind == INT]  # a float loop index may be a Python int
            return self.choose(options, available)
        value = _wrap(self.expr(scope, kind))
        return value + ".0" if kind == FLOAT else value

    def row_item(self, scope):
        """An int that is a tensor in a graph (see MIXED_ROWS)."""
        if self.draw(st.booleans()):
            return self.pick(["x", "y", "n"])
        return _wrap(f"({self.expr(scope, INT)} + n)")

    def write_list(self, scope):
        """A statement that changes a list (`L` is one the body may change)."""
        kind, name = self.a_list(scope, mutable=True)
        item = ITEM[kind]
        changes = set(LIST_CHANGES) - {"append_to_item"}
        if name in scope.frozen:  # the list a `for` iterates: rebinding it is fine
            changes = {"plus", "prepend", "setitem", "clear"}
        elif kind == LROWS and ALIASED_ROWS:
            changes.add("append_to_item")
        if not STAGED_SETITEM:
            changes.discard("setitem")
        if not HELPER_CHANGES:
            changes.discard("helper")
        if name == "lst" and not FAILING_LIST_OPS:  # `lst[0]`, `lst[1]`, `lst[-1]` stay valid
            changes -= {"pop", "clear"}
        change = self.choose(LIST_CHANGES, [c for c in LIST_CHANGES if c in changes])
        if change == "append":
            return [f"{name}.append({self.list_value(scope, item)})"], scope
        if change == "helper":
            return [f"put_in({name}, {self.list_value(scope, item)})"], scope
        if change == "pop":
            targets = scope.targets[item]
            if item in LISTS:
                targets = [t for t in targets if t not in scope.frozen]
            pop = f"{name}.pop()"
            if targets and self.draw(st.booleans()):
                pop = f"{self.choose(TARGETS[item], targets)} = {pop}"
            return [pop] if FAILING_LIST_OPS else [f"if {name}:", "    " + pop], scope
        if change == "plus":
            return [f"{name} = {name} + [{self.list_value(scope, item)}]"], scope
        if change == "prepend":
            return [f"{name} = [{self.list_value(scope, item)}] + {name}"], scope
        if change == "iadd":
            return [f"{name} += [{self.list_value(scope, item)}]"], scope
        if change == "extend":
            values = [self.list_value(scope, item) for _ in range(self.draw(st.integers(0, 2)))]
            return [f"{name}.extend([{', '.join(values)}])"], scope
        if change == "setitem":
            line = f"{name}[{self.index(scope, name)}] = {self.list_value(scope, item)}"
            return [line] if FAILING_LIST_OPS else [f"if {name}:", "    " + line], scope
        if change == "clear":
            return [f"{name} = []"], scope
        row = f"{name}[{self.index(scope, name)}]"  # append_to_item: changes an item in place
        line = f"{row}.append({self.list_value(scope, INT)})"
        return [line] if FAILING_LIST_OPS else [f"if {name}:", "    " + line], scope

    def write_row(self, scope):
        """A row built by a loop, appended to `rows`."""
        self.loops += 1
        index = f"i{scope.depth}"
        iterable = self.pick(["rt.range(n)", "range(n)", "rt.range(2)", "range(2)", "rt.range(0)"])
        body = scope.nested(in_loop=True).add(INT, index, stable=True)
        value = self.list_value if MIXED_ROWS else lambda scope, kind: self.row_item(scope)
        first = self.pick(["[]" if EMPTY_ROWS else "[x]", f"[{value(scope, INT)}]"])
        return ["row = " + first, f"for {index} in {iterable}:",
                f"    row.append({value(body, INT)})", "rows.append(row)"], scope

    def returned(self, scope, template):
        """An expression of the structure `template` (see `templates`)."""
        if template == "none":
            return "None"
        if template[0] == "staged":  # the same list (or its stack) at every return
            _, index, form = template
            lists = [(k, n) for k, n in scope.lists() if n in DECLARED_LISTS]
            if not lists:
                return "None"
            kind, name = lists[index % len(lists)]
            return name if form == "list" else self.stacked(kind, name, form)
        if template == "numpy_read":
            return self.numpy_read(scope)
        if template == "container":
            return "d" if self.features.dict else "lst" if self.features.list else "None"
        if isinstance(template, str):
            outer, self.complex_ok = self.complex_ok, template == FLOAT and COMPLEX_POWERS
            try:
                return self.expr(scope, template, 1)
            finally:
                self.complex_ok = outer
        shape, children = template
        items = [self.returned(scope, child) for child in children]
        if shape == "dict":
            return "{" + ", ".join(f"'{k}': {v}" for k, v in zip("abc", items)) + "}"
        if shape == "list":
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    # ---- statements --------------------------------------------------------------------------
    def block(self, scope, least=1, most=3):
        """Statements; each one after the first `least` is there with probability 3/4 if the
        block may be empty (the body of `f`), else 1/2."""
        lines = []
        for i in range(most):
            if i >= least and self.draw(st.integers(0, 3 if least == 0 else 1)) == 0:
                break
            more, scope = self.span(self.statement, scope)
            lines += more
            if more[-1].split(" ")[0] in JUMPS:
                break  # what follows would be dead code
        return lines

    def statement(self, scope):
        """The lines of one statement, and the scope of the statements after it."""
        kinds = {"assign", "augassign"} | (set() if scope.in_finally else {"return"})
        # No `append` yet: a list appended to under graph control flow (also where jump
        # lowering moves code under a flag test) becomes a stacked tensor; issue 9, "staged
        # lists are lists", adds it back.
        if self.features.nonlocal_:
            kinds.add("bump")
        if self.features.outside:
            kinds.add("outside")
        kinds |= {"augbit", "divmod"} & set(STATEMENTS)
        if scope.targets[PINT]:
            kinds.add("python_int")
            if PRODUCT_LOOPS and scope.depth < MAX_DEPTH and self.loops < MAX_LOOPS:
                kinds.add("product_loop")
        if scope.targets[PFLOAT]:
            kinds.add("power")
        if scope.lists(mutable=True):
            kinds.add("list")
        if scope.targets[LROWS] and "rows" not in scope.frozen and scope.depth < MAX_DEPTH \
                and self.loops < MAX_LOOPS:
            kinds.add("row")
        if scope.depth < MAX_DEPTH:
            kinds.add("if")
            if self.loops < MAX_LOOPS:
                kinds |= {"while", "for"}
            if self.features.try_:
                kinds.add("try")
        if scope.in_loop and not scope.in_finally:
            kinds |= {"break", "continue"}
        if PYTHON_NUMBER_LISTS and scope.depth < MAX_DEPTH and self.loops < MAX_LOOPS:
            kinds.add("numlist")
        if IN_PLACE_ARGUMENT and scope.depth < MAX_DEPTH:
            kinds.add("inplace")
        if USER_EXCEPTIONS:
            kinds.add("raise")
        if self.helper_kinds(scope):
            kinds.add("call")
            if self.chance(3):  # else helpers, declared apart from `f`, are seldom called
                return self.write_call(scope)
        kind = self.choose(STATEMENTS, [k for k in STATEMENTS if k in kinds])
        if kind in ("break", "continue"):
            return [kind], scope
        if kind == "return":
            return ["return" if self.chance(6) else
                    f"return {self.returned(scope, self.template)}"], scope
        return getattr(self, "write_" + kind)(scope)

    def write_assign(self, scope):
        kind = self.pick([INT, FLOAT, VEC] + ([I64] if INT64_VALUES else []))
        target = self.choose(TARGETS[kind], scope.targets[kind])
        if target.startswith("lst["):  # a float item (see LIST_INITS)
            return [f"{target} = {self.list_value(scope, FLOAT)}"], scope
        return [f"{target} = {_wrap(self.expr(scope, kind), kind)}"], scope

    def write_augassign(self, scope):
        # (`q += ...` would change p in place in numpy)
        kind = self.pick([INT, FLOAT] + ([I64] if INT64_VALUES else []))
        target = self.choose(TARGETS[kind], scope.targets[kind])
        value = self.choose(STABLE[kind] + LITERALS[kind], scope.stable[kind] + LITERALS[kind])
        return [f"{target} {self.pick(['+=', '-='])} {value}"], scope

    def helper_kinds(self, scope):
        return [kind for kind in (INT, FLOAT, VEC)
                if any(call in HELPERS for call in scope.calls[kind])]

    def write_call(self, scope):
        """`target = h(...)`: a call of a decorated helper (see `helper_call`)."""
        kind = self.pick(self.helper_kinds(scope))
        helpers = [call for call in scope.calls[kind] if call in HELPERS]
        target = self.choose(TARGETS[kind], scope.targets[kind])
        call = self.helper_call(scope, self.choose(helpers, helpers), 0)
        return [f"{target} = {_wrap(call)}"], scope

    def write_bump(self, scope):
        return [f"bump({self.expr(scope, INT, 1)})"], scope

    def write_outside(self, scope):
        """A write of outside state under a graph `if` or loop (OUTSIDE_STATE): `OUT['k']` or
        `G` under `if <argument> <op> e:` or `for j in rt.range(n):`, or `put(OBJ, x + e)`."""
        form = self.draw(st.integers(0, 2))
        if form == 2:
            return [f"put(OBJ, ({self.pick(['x', 'y', 'n'])} + {self.expr(scope, INT, 1)}))"], scope
        target = self.pick(["OUT['k']", "OUT['k' * 1]", *(["G"] if self.features.global_ else [])])
        if form == 0:
            argument, kind = self.pick([("x", INT), ("y", INT), ("n", INT), ("u", FLOAT)])
            op = self.pick(["<", ">", "==", "!="])
            header = f"if {argument} {op} {self.expr(scope, kind, 1)}:"
            body = scope
        else:
            self.loops += 1
            index = f"i{scope.depth}"
            header = f"for {index} in rt.range(n):"
            body = scope.nested(in_loop=True).add(INT, index, stable=True)
        if self.draw(st.booleans()):
            value = self.choose(STABLE[INT] + LITERALS[INT], body.stable[INT] + LITERALS[INT])
            return [header, f"    {target} {self.pick(['+=', '-='])} {value}"], scope
        return [header, f"    {target} = {_wrap(self.expr(body, INT, 1))}"], scope

    def write_augbit(self, scope):
        """`T &= v`, `T |= v`, `T ^= v` (v never grows), `T >>= k`, `T <<= k` then a wrap."""
        kind = self.pick([INT] + ([I64] if INT64_VALUES else []))
        target = self.choose(TARGETS[kind], scope.targets[kind])
        op = self.pick(["&=", "|=", "^=", ">>=", "<<="])
        if op in (">>=", "<<="):
            line = f"{target} {op} {self.shift_count(scope, kind)}"
        else:
            value = self.choose(STABLE[kind] + LITERALS[kind], scope.stable[kind] + LITERALS[kind])
            line = f"{target} {op} {value}"
        return [line] + ([f"{target} = {_wrap(target, kind)}"] if op == "<<=" else []), scope

    def write_divmod(self, scope):
        """`a, b = divmod(e, d)` of ints or floats (d is never zero)."""
        kind = self.pick([INT, FLOAT])
        targets = [t for t in scope.targets[kind] if not t.startswith("lst[")]  # (a, b, s, t)
        call = f"divmod({self.expr(scope, kind)}, {self.divisor(scope, kind)})"
        first = self.choose(TARGETS[kind], targets)
        rest = [t for t in targets if t != first]
        if not rest or self.chance(3):
            return [f"{first} = {call}[{self.draw(st.integers(0, 1))}]"], scope
        return [f"{first}, {self.choose(TARGETS[kind], rest)} = {call}"], scope

    def write_python_int(self, scope):
        """A change of `acc` or `prod` (PYTHON_INTS): `T = T + C` (also `+=`, `-`, `C + T`),
        `T = T * K` (also `*=`, `K * T`), `T = -T`, `T = (C if cond else D)`, `T = e` of Python
        ints (no powers: a loop would square a value on every iteration), `T = T // K`, `T %=
        M`."""
        target = self.choose(TARGETS[PINT], scope.targets[PINT])
        grows = PYTHON_INTS_PAST_INT64_WHILE_TRACING or scope.product_loop
        form = self.choose(PINT_STATEMENTS, [f for f in PINT_STATEMENTS
                                             if grows or f not in GROWING])
        if form == "add":
            step, op = self.pick(PINT_STEPS), self.pick(["+", "-"])
            return [self.pick([f"{target} = {target} {op} {step}", f"{target} {op}= {step}",
                               f"{target} = {step} + {target}"])], scope
        if form == "multiply":
            factor = self.pick(PINT_FACTORS + LOOP_FACTORS)
            return [self.pick([f"{target} = {target} * {factor}", f"{target} *= {factor}",
                               f"{target} = {factor} * {target}"])], scope
        if form == "negate":
            return [f"{target} = -{target}"], scope
        if form == "ifexp":  # (an `if` choosing between Python ints)
            first = self.pick(PINT_STEPS + (target,))
            second = self.pick((f"{target} + {self.pick(PINT_STEPS)}",) + PINT_STEPS)
            return [f"{target} = ({first} if {self.condition(scope, 1)} else {second})"], scope
        if form == "divide":
            op = self.pick(["//", "%"])
            divisor = self.pick(PINT_DIVISORS)
            return [self.pick([f"{target} = {target} {op} {divisor}",
                               f"{target} {op}= {divisor}"])], scope
        return [f"{target} = {self.python_int(scope, reads=False)}"], scope  # assign

    def write_product_loop(self, scope):
        """`for i in rt.range(2 * n):` (or `rt.range(n + 4)`, a `while` to `n + 4` or, with
        PYTHON_INTS_PAST_INT64_WHILE_TRACING, `range(8)`) around `prod = prod * K`: 0-8
        iterations, maybe with `acc = acc + C`, another change of `acc` or `prod` (what it
        changes is a variable of the graph's loop, so products by any constant are checked
        there) and a `break`."""
        self.loops += 1
        depth, factor = scope.depth, self.pick(LOOP_FACTORS)
        body = [f"prod = prod * {factor}"]
        if self.draw(st.booleans()):
            body = self.pick([[*body, f"acc = acc + {self.pick(PINT_STEPS)}"],
                              [f"acc = acc + {self.pick(PINT_STEPS)}", *body]])
        inner = dataclasses.replace(scope.nested(in_loop=True), product_loop=True)
        if self.draw(st.booleans()):
            more, _ = self.write_python_int(inner)
            body += more
        if self.chance(3):
            body += [f"if {self.condition(inner, 1)}:", "    break"]
        form = self.draw(st.integers(0, 3 if PYTHON_INTS_PAST_INT64_WHILE_TRACING else 2))
        if form == 2:
            counter = f"k{depth}"
            return [f"{counter} = 0", f"while {counter} < n + 4:", f"    {counter} += 1",
                    *_indent(body)], scope
        iterable = ("rt.range(2 * n)", "rt.range(n + 4)", None, "range(8)")[form]
        return [f"for i{depth} in {iterable}:", *_indent(body)], scope

    def write_power(self, scope):
        """A change of `w` or `e` (FLOAT_POWERS): `w = (B if cond else C)`, `w = -w`, `w = w *
        -1.0`, `e = (E if cond else F)` (`w` is never scaled otherwise: its powers stay within
        float32's range)."""
        form = self.choose(POWER_STATEMENTS, POWER_STATEMENTS)
        cond = self.condition(scope, 1)
        if form == "exponent" or form == "ifexp" and self.draw(st.booleans()):
            first, second = self.pick(FLOAT_EXPONENTS), self.pick(FLOAT_EXPONENTS + ("e",))
            return [f"e = ({first} if {cond} else {second})"], scope
        if form == "ifexp":
            first, second = self.pick(POWER_BASES), self.pick(POWER_BASES + ("w",))
            return [f"w = ({first} if {cond} else {second})"], scope
        return [self.pick(["w = -w", "w = w * -1.0"])], scope

    def write_if(self, scope):
        inner = scope.nested()
        lines = [f"if {self.condition(scope)}:", *_indent(self.block(inner))]
        for _ in range(self.draw(st.integers(0, 2))):
            if self.draw(st.booleans()):
                return lines + ["else:", *_indent(self.block(inner))], scope
            lines += [f"elif {self.condition(scope)}:", *_indent(self.block(inner))]
        return lines, scope

    def loop_else(self, scope):
        return ["else:", *_indent(self.block(scope.nested()))] if self.chance(4) else []

    def write_while(self, scope):
        self.loops += 1
        counter = f"k{scope.depth}"
        bound = self.pick(["n", "0", "1", "2", "3", "4"])
        python = bound != "n"  # a Python counter, unless the loop is staged
        if self.chance(4):
            header, first = "while True:", [f"if {counter} > {bound}:", "    break"]
        else:
            header, first = f"while {counter} < {bound}:", []
            if self.draw(st.booleans()):
                python = False
                extra = f"({self.condition(scope)})"
                test = f"{counter} < {bound}"
                test = f"{test} and {extra}" if self.draw(st.booleans()) else f"{extra} and {test}"
                header = f"while {test}:"
        body = scope.nested(in_loop=True).add(INT, counter, stable=True, python=python)
        lines = [f"{counter} = 0", header, f"    {counter} += 1", *_indent(first),
                 *_indent(self.block(body))]
        return lines + self.loop_else(scope), scope

    def write_for(self, scope):
        self.loops += 1
        index = f"i{scope.depth}"
        forms = ["range", "rt.range", "vector", "list"] + (["items", "range_len"]
                                                            if scope.lists() else [])
        forms += ["range64"] if INT64_RANGE else []
        forms += ["enumerate"] if ENUMERATE else []
        form = self.choose(FOR_FORMS, forms)
        if INT64_RANGE and self.chance(3):  # else seldom drawn
            form = "range64"
        if ENUMERATE and self.chance(5):  # (the last form: else seldom drawn)
            form = "enumerate"
        kind, python, body = INT, False, scope.nested(in_loop=True)
        if form == "range":
            bound = self.pick([str(self.draw(st.integers(0, 4))), "n"])
            iterable, python = f"range({bound})", bound != "n"
        elif form == "rt.range":
            iterable = f"rt.range({self.pick(['n', str(self.draw(st.integers(0, 4)))])})"
        elif form == "vector":
            iterable, kind = self.pick(["p", "q"]), FLOAT
        elif form == "list":
            kind = self.pick([INT, FLOAT])
            items = [self.atom(scope, kind) for _ in range(self.draw(st.integers(0, 3)))]
            iterable = f"[{', '.join(items)}]"
        elif form == "range64":  # int64 bounds beyond 2**31, 0-3 iterations
            start = "big" if INT64_VALUES else self.pick(["np.int64(2**33)", "np.int64(-2**33)"])
            count, call = self.draw(st.integers(0, 3)), self.pick(["range", "rt.range"])
            sign = self.pick(["+", "-"])
            step = "2**31" if sign == "+" else "-2**31"
            iterable = f"{call}({start}, {start} {sign} {count} * 2**31, {step})"
            kind, python = I64, call == "range" and start != "big"
        elif form == "enumerate":  # ENUMERATE: `for k, v in enumerate(X)`, k a Python int
            kind, count = FLOAT, f"k{scope.depth}"
            source = self.pick(["vector", "vector", "list"] + (["items"] if scope.lists(
                (LINT, LFLOAT)) else []))
            if source == "vector":
                iterated = self.pick(["p", "q"])
            elif source == "list":
                items = [self.atom(scope, FLOAT) for _ in range(self.draw(st.integers(0, 3)))]
                iterated = f"[{', '.join(items)}]"
            else:
                list_kind, iterated = self.a_list(scope, (LINT, LFLOAT))
                kind = ITEM[list_kind]
                body = dataclasses.replace(body, frozen=body.frozen + (iterated,))
            body = body.add(INT, count, stable=True)
            body = body.add(kind, index, stable=kind in (INT, FLOAT))
            first = []
            floats = [t for t in ("s", "t") if t in scope.targets[FLOAT]]
            if floats and self.draw(st.booleans()):
                target = self.pick(floats)
                first = [f"{target} = {target} + {count} * {self.pick(['0.1', '0.25', '0.5'])}"]
            lines = [f"for {count}, {index} in enumerate({iterated}):", *_indent(first),
                     *_indent(self.block(body)), *self.loop_else(scope)]
            return lines, scope
        elif form == "items":  # the list is not lengthened or shortened in place in the body
            list_kind, iterable = self.a_list(scope)
            kind = ITEM[list_kind]
            body = dataclasses.replace(body, frozen=body.frozen + (iterable,))
        else:
            iterable = f"range(len({self.a_list(scope)[1]}))"
        body = body.add(kind, index, stable=kind in (INT, FLOAT, I64), python=python)
        lines = [f"for {index} in {iterable}:", *_indent(self.block(body)), *self.loop_else(scope)]
        if self.chance(4):  # the index is read after the loop too
            scope = scope.add(kind, index, stable=True)
        return lines, scope

    def write_numlist(self, scope):
        """PYTHON_NUMBER_LISTS: appends of Python numbers to `nf` and `ni` in a graph loop
        (`for i in rt.range(n)`, `for i in range(n)`, `while m < n`) or a tensor `if`."""
        self.loops += 1
        d = scope.depth
        block, m, i = self.pick(NUMBER_LIST_BLOCKS), f"m{d}", f"i{d}"

        def item(floats):
            if floats:
                options = [x for x in FLOAT_ITEMS if "{i}" not in x or block == "range"]
                if self.mixed and self.chance(3):
                    options = list(MIXED_ITEMS)
            else:
                options = [x for x in INT_ITEMS if "{i}" not in x or (
                    block == "range" and RANGE_INDEX_INT_ITEMS)]
            return self.pick(options).format(m=m, i=i)

        def appends():
            lines = []
            for _ in range(self.draw(st.integers(1, 2))):
                floats = self.draw(st.booleans())
                lines.append(f"{'nf' if floats else 'ni'}.append({item(floats)})")
            return lines

        if block == "if":
            lines = [f"{m} = {self.pick(['0', '2', '5'])}", f"if {self.condition(scope)}:",
                     *_indent(appends())]
            if self.draw(st.booleans()):
                lines += ["else:", *_indent(appends())]
            return lines, scope
        bound = self.pick(["n", "n + 1", "x % 3"])
        header = {"rt.range": f"for {i} in rt.range({bound}):",
                  "range": f"for {i} in range({bound}):", "while": f"while {m} < {bound}:"}[block]
        return [f"{m} = 0", header, f"    {m} += 1", *_indent(appends())], scope

    def write_inplace(self, scope):
        """IN_PLACE_ARGUMENT: `p op= v`, or on a view (`pv = p[1:]`) or a copy (`pc =
        p.copy()`) of it, maybe in a graph loop or a tensor `if`; then a read of the view or
        copy."""
        form = self.pick(["argument", "view", "view", "copy", "copy"])
        lines, target = [], "p"
        if form == "view":
            made = self.pick(VIEWS)
            lines, target = [f"pv = {made}"], "pv"
        elif form == "copy":
            made = self.pick(COPIES)
            lines, target = [f"pc = {made}"], "pc"
        value = self.pick([v for v in IN_PLACE_VALUES if v != "u" or "u" in scope.atoms[FLOAT]])
        change = [f"{target} {self.pick(['*=', '+=', '-='])} {value}"]
        wrap = self.draw(st.integers(0, 3))
        if wrap == 1 and self.loops < MAX_LOOPS:
            self.loops += 1
            change = [f"for i{scope.depth} in rt.range({self.pick(['n', 'x % 3'])}):",
                      *_indent(change)]
        elif wrap == 2:
            change = [f"if {self.condition(scope)}:", *_indent(change)]
        lines += change
        if target != "p":
            floats = [t for t in ("s", "t") if t in scope.targets[FLOAT]]
            same_shape = target == "pc" and made != "p[np.array([0, 1])]" or (
                target == "pv" and made != "p[1:]")
            if same_shape and self.draw(st.booleans()):
                lines.append(f"q = {target} * 1")
            elif floats:
                lines.append(f"{self.pick(floats)} = {target}[{self.pick(['0', '-1'])}]")
        return lines, scope

    def write_raise(self, scope):
        """USER_EXCEPTIONS: `if cond: raise StepError("...")` (a tensor `if`, mostly)."""
        return [f"if {self.condition(scope)}:", '    raise StepError("step failed")'], scope

    def numpy_read(self, scope):
        """A returned read of the families' values (NUMPY_READS): the lists of Python numbers
        (PYTHON_NUMBER_LISTS), arithmetic on bool arrays (BOOL_ARRAYS)."""
        reads = []
        if PYTHON_NUMBER_LISTS:
            reads += list(MIXED_READS if self.mixed else FLOAT_LIST_READS) + list(INT_LIST_READS)
        if BOOL_ARRAYS and "q" in scope.atoms[VEC]:
            reads += list(BOOL_READS)
        if not reads:
            return "None"
        read = self.pick(reads)
        if "{a}" in read:
            read = read.format(a=self.atom(scope, FLOAT), b=self.atom(scope, FLOAT))
        return read

    def write_try(self, scope):
        inner = scope.nested()
        target = self.choose(TARGETS[INT], scope.targets[INT])
        lines = ["try:", f"    {target} = check({self.expr(scope, INT, 1)})"]
        if self.draw(st.booleans()):
            lines += _indent(self.block(inner))
        handled = self.pick(["ValueError", "ValueError", "Exception", "(KeyError, ValueError)"])
        lines += [f"except {handled}:", *_indent(self.block(inner))]
        if self.draw(st.booleans()):
            lines += ["else:", *_indent(self.block(inner))]
        if self.draw(st.booleans()):
            lines += ["finally:", *_indent(self.block(dataclasses.replace(inner,
                                                                        in_finally=True)))]
        return lines, scope


@st.composite
def templates(draw, depth=0):
    """The structure every `return` of a program fills: a leaf type (`container` is `d` or
    `lst` itself; `("staged", i, form)` the i-th list the program declares, as it is, stacked or
    concatenated), or a tuple, list or dict of structures."""
    leaves = [INT, FLOAT, VEC, "none", "container", "staged"] + ([I64] if INT64_VALUES else []) + (
        [PINT] if PYTHON_INTS else []) + (
        ["numpy_read"] * 2 if PYTHON_NUMBER_LISTS or BOOL_ARRAYS else [])
    if depth >= 2 or draw(st.integers(0, 2)) < 2:
        leaf = draw(st.sampled_from(leaves))
        if leaf == "staged":
            return (leaf, draw(st.integers(0, len(DECLARED_LISTS) - 1)),
                    draw(st.sampled_from(["list", "list", "stack", "concat"])))
        return leaf
    shape = draw(st.sampled_from(["tuple", "dict", "list"]))
    return shape, draw(st.lists(templates(depth + 1), min_size=1, max_size=3))


@st.composite
def _span(draw, writer, write, args):
    outer, writer.draw = writer.draw, draw
    try:
        return write(*args)
    finally:
        writer.draw = outer


def _prologue(writer):
    """The lines that start `f` (variables, containers, closures), and the body's scope."""
    pick = writer.pick
    lines = ["global G", "G = 0"] if writer.flag("global_") else []
    lines += [f"{name} = {pick(INITS[kind])}"
              for name, kind in (("a", INT), ("b", INT), ("s", FLOAT), ("t", FLOAT), ("q", VEC))]
    none = {kind: () for kind in KINDS}
    scope = Scope(atoms={**none, INT: ("x", "y", "n", "a", "b"),
                         FLOAT: ("u", "p[0]", "p[-1]", "s", "t", "q[1]"), VEC: ("p", "q")},
                  stable={**none, INT: ("x", "y", "n"), FLOAT: ("u", "p[0]", "p[1]")},
                  targets={**none, INT: ("a", "b"), FLOAT: ("s", "t"), VEC: ("q",)},
                  calls=none)
    if writer.features.global_:  # (with OUTSIDE_STATE, G is written under graph control flow)
        scope = scope.add(INT, "G", target=not OUTSIDE_STATE or OUTSIDE_STATE_ANYWHERE)
    if INT64_VALUES:
        lines.append(f"big = {pick(INITS[I64])}")
        scope = scope.add(I64, "big", target=True)
    if PYTHON_INTS:
        lines += [f"acc = {pick(INITS[PINT])}", f"prod = {pick(('1', '3_000_000_000', '-7'))}"]
        scope = scope.add(PINT, "acc", target=True).add(PINT, "prod", target=True)
    if FLOAT_POWERS:
        lines += [f"w = {pick(POWER_BASES + POWER_INITS)}",
                  f"e = {pick(FLOAT_EXPONENTS + EXPONENT_INITS)}"]
        scope = scope.add(PFLOAT, "w", target=True).add(PFLOAT, "e", target=True)
    if PYTHON_NUMBER_LISTS:
        writer.mixed = MIXED_NUMBER_LISTS and writer.chance(3)
        first = ["[]", "[0.5]"] + (["[p[0], 0.5]"] if writer.mixed else [])
        lines += [f"nf = {pick(first)}", f"ni = {pick(['[]', '[1]'])}"]
        if writer.mixed and FLOAT32_LIST_THEN_PYTHON_FLOATS and writer.draw(st.booleans()):
            lines[-2:-1] = ["nf = []", "for m_ in rt.range(n):", "    nf.append(p[m_ % 2])"]
    if OUTSIDE_STATE and writer.flag("outside"):
        writer.outside_lines, scope = writer.span(_declare_outside, writer, scope)
    on = writer.flag("decorated")  # before `inner` and `lambda_`, which it decorates
    helpers, declared = writer.span(_declare_helpers, writer, scope)
    if on:
        writer.helpers, scope = helpers, declared
    if writer.flag("decorated_f"):
        site = "f_value" if writer.template in (INT, FLOAT, VEC) else "f"
        writer.f_decorators = writer.span(_decorators_of_f, writer, site)
    for feature in ("dict", "list", "int_list", "vec_list", "rows", "list_reader", "box",
                    "nonlocal_", "lambda_", "inner"):
        on = writer.flag(feature)
        more, declared = writer.span(_DECLARE[feature], writer, scope)  # drawn even when off,
        if on:  # so that turning a feature off changes one choice only (shrinking)
            lines, scope = lines + more, declared
    writer.flag("try_")
    if writer.flag("undefined"):
        scope = scope.add(INT, "z", target=True, readable=writer.draw(st.booleans()))
    return lines, scope


def _declare_outside(writer, scope):
    """Module-level lines: the dict `OUT`, the object `OBJ`, `put(obj, v)` (writes `obj.attr`
    under an `if` or a loop on `v`), `reset_outside()` and `outside()` (the state after a run,
    which test_differential compares); and the body's scope, which reads and writes them."""
    none = {kind: () for kind in KINDS}
    local = Scope(atoms={**none, INT: ("v",)}, stable=none, targets=none, calls=none)
    if writer.draw(st.booleans()):  # (on `v`: the `if` and the loop are staged in a graph)
        op = writer.pick(["<", ">", "==", "!="])
        body = [f"    if v {op} {writer.expr(local, INT, 1)}:",
                f"        obj.attr = {_wrap(writer.expr(local, INT, 1))}"]
    else:
        loop = local.add(INT, "j").add(INT, "obj.attr")
        body = ["    for j in rt.range(v % 3):",
                f"        obj.attr = {_wrap(writer.expr(loop, INT, 1))}"]
    g = writer.features.global_
    lines = ["", "OUT = {'k': 1}", "", "", "class State:", "    pass", "", "", "OBJ = State()",
             "OBJ.attr = 1", "", "", "def put(obj, v):", *body, "", "", "def reset_outside():",
             *(["    global G", "    G = 0"] if g else []), "    OUT['k'] = 1", "    OBJ.attr = 1",
             "", "", "def outside():",
             "    return {'OUT': OUT['k'], 'attr': OBJ.attr" + (", 'G': G}" if g else "}")]
    return lines, scope.add(INT, "OUT['k']", target=OUTSIDE_STATE_ANYWHERE).add(
        INT, "OBJ.attr", target=OUTSIDE_STATE_ANYWHERE).add(
        INT, "OUT['k' * 1]", target=OUTSIDE_STATE_ANYWHERE, readable=False)


def _declare_dict(writer, scope):
    scope = scope.add(INT, "d['k']", target=True).add(INT, "d['j']", target=True, readable=False)
    scope = scope.add(INT, "d['k' * 1]", target=True, readable=False)
    lines = [f"d = {{'k': {writer.pick(INITS[INT])}}}"]
    if ALIASED_DICT and writer.chance(3):
        lines.append("dd = d")
        scope = scope.add(INT, "dd['k']")
    return lines, scope


def _declare_list(writer, scope):
    """`lst`: its items 0 and 1 are assigned and its length changes (one or the other unless
    STAGED_SETITEM)."""
    items = ", ".join(writer.pick(LIST_INITS[FLOAT]) for _ in range(2))
    assigned = writer.draw(st.booleans())
    scope = scope.add(FLOAT, "lst[-1]").add(LFLOAT, "lst", target=STAGED_SETITEM or not assigned)
    if STAGED_SETITEM or assigned:
        scope = scope.add(FLOAT, "lst[0]", target=True, readable=False)
        scope = scope.add(FLOAT, "lst[1]", target=True, readable=False)
    return [f"lst = [{items}]"], scope


def _declare_int_list(writer, scope):
    items = [writer.pick(LIST_INITS[INT]) for _ in range(writer.draw(st.integers(0, 2)))]
    return [f"la = [{', '.join(items)}]"], scope.add(LINT, "la", target=True)


def _declare_list_reader(writer, scope):
    """`size()`, the length of a list the body may change, read through the closure (a loop
    that only appends to that list must still plan the paths `size()` decides as they run)."""
    lists = scope.lists()
    if not lists:
        return [], scope
    _, name = writer.choose(lists, lists)
    return ["def size():", f"    return len({name})"], scope.with_call(INT, "size()")


def _declare_vec_list(writer, scope):
    items = [writer.pick(LIST_INITS[VEC]) for _ in range(writer.draw(st.integers(0, 1)))]
    return [f"lv = [{', '.join(items)}]"], scope.add(LVEC, "lv", target=True)


def _declare_rows(writer, scope):
    items = LIST_INITS[INT] if MIXED_ROWS else ("x", "y", "n")
    rows = [f"[{writer.pick(items)}, {writer.pick(items)}]"
            for _ in range(writer.draw(st.integers(0, 2)))]
    return [f"rows = [{', '.join(rows)}]"], scope.add(LROWS, "rows", target=True)


def _declare_box(writer, scope):
    lines = ["box = Box()", f"box.attr = {writer.pick(INITS[INT])}"]
    return lines, scope.add(INT, "box.attr", target=True)


def _declare_nonlocal(writer, scope):
    """`c`, and `def bump(v)`, which writes it (nonlocal) in an `if` or a loop."""
    local = scope.add(INT, "v")
    write = f"c = {_wrap(writer.expr(local, INT, 1))}"
    if writer.draw(st.booleans()):
        body = [f"    if {writer.condition(local, 1)}:", f"        {write}"]
    else:
        body = [f"    for j in {writer.pick(['range(2)', 'rt.range(v % 3)'])}:", f"        {write}"]
    lines = [f"c = {writer.pick(INITS[INT])}", "def bump(v):", "    nonlocal c", *body]
    return lines, scope.add(INT, "c")


def _declare_lambda(writer, scope):
    kind = writer.pick([INT, FLOAT])
    value = f"lambda: {writer.expr(scope, kind, 1)}"
    if writer.features.decorated:  # `g = twice(scaled(lambda: ...))`
        for line in reversed(writer.decorators("lambda")):
            value = f"{line[1:]}({value})"
    return [f"g = {value}"], scope.with_call(kind, "g()")


def _declare_inner(writer, scope):
    local = scope.add(INT, "v")
    lines = writer.decorators("inner") if writer.features.decorated else []
    lines += ["def inner(v):", f"    if {writer.condition(local, 1)}:",
              f"        return {writer.expr(local, INT, 1)}",
              f"    return {writer.expr(local, INT, 1)}"]
    return lines, scope.with_call(INT, "inner({arg})")


def _declare_helpers(writer, scope):
    """Module-level lines defining some of the decorated helpers `hi`, `hf`, `hv` (`(v, w=1)`,
    reading their arguments only), and the body's scope, which may call them."""
    none = {kind: () for kind in KINDS}
    lines = []
    for name, kind in HELPERS.items():
        if not writer.draw(st.booleans()):
            continue
        local = Scope(atoms={**none, INT: ("w",)}, stable={**none, INT: ("w",)}, targets=none,
                      calls=none).add(kind, "v")
        lines += ["", "", *writer.decorators("helper"), f"def {name}(v, w=1):"]
        if writer.draw(st.booleans()):
            lines += _indent([f"if {writer.condition(local, 1)}:",
                              f"    return {writer.expr(local, kind, 1)}",
                              f"return {writer.expr(local, kind, 1)}"])
        else:  # a loop that changes `r`, staged when `w` is a tensor
            iterable = writer.pick(["rt.range(w % 3)", "range(2)", "rt.range(2)"])
            body = local.add(kind, "r").add(INT, "j")
            lines += _indent([f"r = {writer.expr(local, kind, 1)}", f"for j in {iterable}:",
                              f"    r = {_wrap(writer.expr(body, kind, 1))}", "return r"])
        scope = scope.with_call(kind, name)
    return lines, scope


def _decorators_of_f(writer, site):
    return writer.decorators(site)


_DECLARE = {"dict": _declare_dict, "list": _declare_list, "int_list": _declare_int_list,
            "vec_list": _declare_vec_list, "rows": _declare_rows, "box": _declare_box,
            "list_reader": _declare_list_reader,
            "nonlocal_": _declare_nonlocal, "lambda_": _declare_lambda, "inner": _declare_inner}


@st.composite
def programs(draw):
    """The source of a module defining `f(x, y, u, p, n)` (and the helpers it uses)."""
    writer = _Writer(draw, draw(templates()))
    lines, scope = _prologue(writer)
    lines += writer.block(scope, least=0, most=4)
    if not writer.chance(8):  # else f may fall off its end
        lines.append(f"return {writer.returned(scope, writer.template)}")
    body = "\n".join(writer.helpers + ["", "", *writer.f_decorators, "def f(x, y, u, p, n):",
                                        *_indent(lines)]) + "\n"
    header = "import runtime as rt\n"
    used = [name for name in DECORATORS if re.search(rf"\b{name}\b", body)]
    if used:
        header = "import functools\n\n" + header + "".join("\n" + DECORATORS[n] for n in used)
    if writer.features.global_:
        header += "\nG = 0\n"
    if writer.features.box:
        header += "\n" + BOX_CLASS
    if writer.features.try_:
        header += "\n" + CHECK_HELPER
    if "StepError(" in body:
        header += "\n" + STEP_ERROR_CLASS
    if "put_in(" in body:
        header += "\n" + PUT_IN_HELPER
    return header + body


quarters = st.integers(-16, 16).map(lambda k: k / 4) | st.just(-0.0)
arguments = st.tuples(
    st.integers(-6, 6), st.integers(-6, 6), quarters,
    st.lists(quarters, min_size=2, max_size=4).map(lambda v: np.array(v, np.float32)),
    st.integers(0, 4))


@st.composite
def cases(draw):
    """A program and 2-4 argument tuples (x, y, u, p, n) to run it on."""
    return Case(draw(programs()), draw(st.lists(arguments, min_size=2, max_size=4)))
