"""Three-way table, part 1: `if` / `elif` / `else`, boolean operators, comparisons and
conditional expressions (see table_functions.py)."""
from numpy import float32 as f32
from numpy import int32 as i32


# ---- if / elif / else ---------------------------------------------------------------------------
def relu(x):
    if x > 0:
        return x
    else:
        return 0 * x


def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


def if_no_else(x):
    y = x
    if x > 3:
        y = x * 2
    return y


def if_assigns_both(x):
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y


def if_two_vars(x):
    a = x
    b = x * 2
    if a > 2:
        a = a + 10
        b = b - 1
    else:
        b = b + 100
    return a + b


def nested_if(x, y):
    if x > 0:
        if y > 0:
            z = x + y
        else:
            z = x - y
    else:
        if y > 0:
            z = y - x
        else:
            z = -x - y
    return z


def early_return(x):
    if x > 5:
        return x * 2
    y = x + 1
    return y * 3


def early_return_nested(x, y):
    if x > 0:
        if y > 0:
            return x + y
    return x - y


def return_in_elif(x):
    if x < 0:
        return -x
    elif x < 10:
        y = x * 2
    else:
        return x + 100
    return y + 1


def augassign_in_branch(x):
    total = 1
    if x > 2:
        total += x
    else:
        total *= 3
    return total


def if_chain_elif(x):
    if x == 0:
        r = 10
    elif x == 1:
        r = 20
    elif x == 2:
        r = 30
    else:
        r = 40
    return r


def float_if(x):
    if x > 0.5:
        x = x * 2.0
    else:
        x = x - 1.0
    return x


# ---- boolean operators, comparisons, conditional expressions -----------------------------------
def and_or(x, y):
    if x > 0 and y > 0:
        return x + y
    if x > 0 or y > 0:
        return x - y
    return x * y


def not_op(x):
    if not x > 3:
        return x + 1
    return x - 1


def chained_compare(x):
    if 0 < x < 10:
        return x * 2
    return x


def if_exp(x):
    return x * 2 if x > 1 else x - 5


def nested_if_exp(x):
    return 1 if x > 5 else (2 if x > 0 else 3)


def bool_value(x, y):
    b = x > 2 and y > 2
    if b:
        return 1
    return 0


def short_circuit_div(x, y):
    if y != 0 and x // y > 2:
        return 1
    return 0


def or_three(x):
    if x == 1 or x == 3 or x == 5:
        return 10
    return 20


CASES = [
    (relu, [(i32(3),), (i32(-2),)]),
    (sign, [(i32(3),), (i32(-2),), (i32(0),)]),
    (if_no_else, [(i32(5),), (i32(1),)]),
    (if_assigns_both, [(i32(5),), (i32(-5),)]),
    (if_two_vars, [(i32(5),), (i32(1),)]),
    (nested_if, [(i32(1), i32(2)), (i32(1), i32(-2)), (i32(-1), i32(2)), (i32(-1), i32(-2))]),
    (early_return, [(i32(6),), (i32(2),)]),
    (early_return_nested, [(i32(1), i32(2)), (i32(1), i32(-2)), (i32(-1), i32(2))]),
    (return_in_elif, [(i32(-3),), (i32(3),), (i32(30),)]),
    (augassign_in_branch, [(i32(5),), (i32(1),)]),
    (if_chain_elif, [(i32(0),), (i32(1),), (i32(2),), (i32(7),)]),
    (float_if, [(f32(0.75),), (f32(0.25),)]),
    (and_or, [(i32(1), i32(2)), (i32(1), i32(-2)), (i32(-1), i32(-2))]),
    (not_op, [(i32(1),), (i32(5),)]),
    (chained_compare, [(i32(5),), (i32(50),), (i32(-1),)]),
    (if_exp, [(i32(5),), (i32(0),)]),
    (nested_if_exp, [(i32(6),), (i32(1),), (i32(-1),)]),
    (bool_value, [(i32(3), i32(3)), (i32(3), i32(1))]),
    (short_circuit_div, [(i32(9), i32(2)), (i32(9), i32(0))]),
    (or_three, [(i32(3),), (i32(4),)]),
]
