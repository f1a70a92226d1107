"""Functions and variables pickle, so `multiprocessing`, `concurrent.futures` and joblib can
send them to other processes: a decorated module-level function by reference (it traces again
where it is loaded), a decorated method with its object, a variable by value."""

import concurrent.futures
import multiprocessing
import pickle

import pytest

import runtime as rt


@rt.function
def halvings(n):
    """How many integer halvings take `n` to 0."""
    count = 0
    while n > 0:
        n = n // 2
        count += 1
    return count


def _negated(x):
    return -x


negated = rt.function(_negated)  # (its module-level name is not the wrapped function's)


def halvings_of(n):  # what a worker runs: the decorated function, on a tensor
    return int(halvings(rt.constant(n)).numpy())


class Scaler:
    def __init__(self, k):
        self.k = rt.Variable(k)

    @rt.function
    def __call__(self, x):
        return x * self.k


def test_functions_methods_and_variables_round_trip():
    assert pickle.loads(pickle.dumps(halvings)) is halvings
    wrapped = pickle.loads(pickle.dumps(negated))
    assert wrapped is not negated and wrapped(rt.constant([1.0])).numpy().tolist() == [-1.0]
    scaler = pickle.loads(pickle.dumps(Scaler(3.0)))
    assert scaler(rt.constant(2.0)).numpy() == 6.0
    assert pickle.loads(pickle.dumps(Scaler(2.0).__call__))(rt.constant(2.0)).numpy() == 4.0
    v = rt.Variable([1.0, 2.0], name="w")
    copy = pickle.loads(pickle.dumps(v))
    assert copy.numpy().tolist() == [1.0, 2.0] and copy.name != v.name
    copy.assign([3.0, 4.0])  # a variable of its own
    assert v.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_a_decorated_function_runs_in_a_process_pool(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    with multiprocessing.get_context(method).Pool(2) as pool:
        assert pool.map(halvings_of, [27, 97, 1]) == [5, 7, 1]
        results = pool.map(halvings, [rt.constant(27), rt.constant(6)])
        assert [r.numpy() for r in results] == [5, 3]


def test_a_decorated_function_is_sent_to_a_process_pool_executor():
    with concurrent.futures.ProcessPoolExecutor(
            2, mp_context=multiprocessing.get_context("spawn")) as executor:
        results = list(executor.map(halvings, [rt.constant(27), rt.constant(6)]))
    assert [r.numpy() for r in results] == [5, 3]
