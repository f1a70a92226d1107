"""`rt.optimizers`: update variables from their gradients (eagerly or inside `rt.function`).

Keras 3's optimizers, names, defaults and update formulas: `SGD`, `Adam`, `AdamW`, `RMSprop`.

    optimizer = rt.optimizers.Adam(learning_rate=1e-3)

    @rt.function
    def train_step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

An optimizer is an `rt.Module`: its `variables` are its step counter (`iterations`), its learning
rate and its slot variables (momentums, velocities, ...). The slots of a model variable are made
once, eagerly, the first time a gradient for it is applied (also while a function is traced), so
a decorated training step traces once. The learning rate lives in a variable: setting
`optimizer.learning_rate = 0.1` changes what the next step uses without retracing anything.
"""

from __future__ import annotations

import math
import numbers
import threading
import warnings
import weakref

import numpy as np

from runtime.autodiff import GradientTape
from runtime.core import context, dtypes
from runtime.core.source_info import user_stacklevel
from runtime.core.tensor import Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.module import Module
from runtime.ops.math_ops import (
    cast,
    clip_by_value,
    maximum,
    pow,  # noqa: A004 - TensorFlow's name
    sqrt,
    square,
)
from runtime.ops.nn_ops import clip_by_global_norm, clip_by_norm
from runtime.variables import Variable, name_scope


def _number(value, what: str, *, low=None, low_open=False, high=None, high_open=False,
            optional=False):
    """`value` as a float, checked to be a finite real number in the range given."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"`{what}` must be a finite number, got {value!r}.")
    value = float(value)
    if low is not None and (value <= low if low_open else value < low):
        bound = f"greater than {low}" if low_open else f"at least {low}"
        raise ValueError(f"`{what}` must be {bound}, got {value!r}.")
    if high is not None and (value >= high if high_open else value > high):
        bound = f"less than {high}" if high_open else f"at most {high}"
        raise ValueError(f"`{what}` must be {bound}, got {value!r}.")
    return value


_building = threading.RLock()  # slots are made once, even when threads apply at once


class Optimizer(Module):
    """The base of the optimizers: applies gradients with the rule of `update_step`.

    Keyword arguments every optimizer takes (as Keras):

    - `weight_decay`: if set, each step first does `var -= var * weight_decay * learning_rate`
      (decoupled weight decay), for variables not excluded by `exclude_from_weight_decay`.
    - `clipnorm`: each gradient is scaled down so its L2 norm is at most this.
    - `clipvalue`: each gradient is clipped elementwise to `[-clipvalue, clipvalue]`.
    - `global_clipnorm`: all gradients are scaled down together so their global norm is at most
      this. Only one of `clipnorm`, `clipvalue` and `global_clipnorm` may be set.
    - `name`: the name scope of the optimizer's variables (`adam/momentum/<variable name>`).

    A subclass lists its slot names in `_slot_names()` and implements
    `update_step(gradient, variable, learning_rate)` with the variable's slots from
    `self._slot(variable, name)`.
    """

    _holds_weights = False  # its variables are not a model's weights

    def __init__(self, learning_rate, *, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name=None):
        super().__init__(name)
        learning_rate = _number(learning_rate, "learning_rate", low=0.0)
        self.weight_decay = _number(weight_decay, "weight_decay", low=0.0, optional=True)
        self.clipnorm = _number(clipnorm, "clipnorm", low=0.0, low_open=True, optional=True)
        self.clipvalue = _number(clipvalue, "clipvalue", low=0.0, low_open=True, optional=True)
        self.global_clipnorm = _number(global_clipnorm, "global_clipnorm", low=0.0,
                                       low_open=True, optional=True)
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}."
            )
        with name_scope(self.name):
            self._iterations = Variable(0, trainable=False, name="iteration", dtype=dtypes.int64)
            # float32, as Keras' (`opt.learning_rate * grad` of float32 gradients works; the
            # rate is cast to each variable's dtype when applied)
            self._learning_rate = Variable(learning_rate, trainable=False, name="learning_rate",
                                           dtype=dtypes.float32)
        self._slot_variables = []  # every slot, in creation order (so `variables` lists them)
        self._slots = weakref.WeakKeyDictionary()  # model variable -> {slot name: Variable}
        self._warned_no_gradient = weakref.WeakSet()
        self._exclude_ids = set()
        self._exclude_names = ()

    # ---- pickling (the weak tables as lists; pickle a model with its optimizer to keep the
    # slots of its variables) ----
    def __getstate__(self):
        state = dict(self.__dict__)
        state["_slots"] = list(self._slots.items())
        state["_warned_no_gradient"] = list(self._warned_no_gradient)
        state.pop("_restored_slots", None)  # (values waiting for slots: not state to keep)
        return state

    def __setstate__(self, state):
        state = dict(state)
        state["_slots"] = weakref.WeakKeyDictionary(state["_slots"])
        state["_warned_no_gradient"] = weakref.WeakSet(state["_warned_no_gradient"])
        self.__dict__.update(state)

    # ---- hyperparameters ---------------------------------------------------------------------
    @property
    def iterations(self) -> Variable:
        """The int64 variable counting the steps applied so far."""
        return self._iterations

    @property
    def learning_rate(self) -> Variable:
        """The learning rate: a float32 Variable that steps read when they run, so a graph
        reading it sees the current rate. Set it (`opt.learning_rate = 0.1`, or `.assign`)
        without retracing a decorated step."""
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        if isinstance(value, (Tensor, Variable)):
            value = cast(value, dtypes.float32)
        else:
            value = _number(value, "learning_rate", low=0.0)
        self._learning_rate.assign(value)

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """No weight decay for the variables in `var_list` nor those whose name contains one of
        the strings of `var_names` (e.g. `var_names=["bias"]`)."""
        self._exclude_ids = {id(v) for v in var_list or ()}
        self._exclude_names = tuple(var_names or ())

    def _use_weight_decay(self, variable) -> bool:
        return id(variable) not in self._exclude_ids and not any(
            part in variable.name for part in self._exclude_names)

    # ---- slots -------------------------------------------------------------------------------
    def _slot_names(self) -> list:
        """The names of the slot variables each model variable gets (none by default)."""
        return []

    def build(self, var_list) -> None:
        """Creates the slot variables of the variables in `var_list` that have none yet.

        Slots are zeros of the variable's shape and dtype, made eagerly even while a function
        is being traced, once per variable. `apply_gradients` calls this itself.
        """
        names = self._slot_names()
        if all(v in self._slots for v in var_list):
            return
        with _building, context.eager_scope(), name_scope(self.name):
            new = [v for v in var_list if v not in self._slots]  # (under the lock: made once)
            for variable in new:
                value = np.zeros(np.shape(variable.value_), variable.dtype.np_dtype)
                restored = self.__dict__.get("_restored_slots", {}).get(variable, {})
                slots = {name: Variable(restored.get(name, value), trainable=False,
                                        name=f"{name}/{variable.name}", dtype=variable.dtype,
                                        shape=variable.shape)
                         for name in names}
                self._slot_variables.extend(slots.values())
                self._slots[variable] = slots

    def _slot(self, variable, name: str) -> Variable:
        return self._slots[variable][name]

    # ---- checkpoints (runtime/train/object_graph.py) ----
    def _checkpoint_children(self) -> list:
        return [("iterations", self._iterations), ("learning_rate", self._learning_rate)]

    def _checkpoint_slots(self) -> list:
        """(model variable, slot name, slot variable) of every slot."""
        return [(variable, name, slot) for variable, slots in list(self._slots.items())
                for name, slot in slots.items()]

    def _restore_slot(self, variable, name: str, value) -> None:
        """Puts a checkpoint's value into a slot: now, or when `build` makes the slot."""
        slots = self._slots.get(variable)
        if slots is not None and name in slots:
            slots[name].assign(value)
        else:
            self.__dict__.setdefault("_restored_slots", weakref.WeakKeyDictionary()).setdefault(
                variable, {})[name] = value

    # ---- applying gradients ------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars):
        """Applies (gradient, variable) pairs (a list or a `zip`); returns `iterations`.

        A None gradient leaves its variable alone (with a warning naming it, once). Gradients
        may be tensors, numpy arrays or Python numbers; they are cast to the variable's dtype.
        """
        pairs = list(grads_and_vars)
        if not pairs:
            raise ValueError(
                "apply_gradients() got no (gradient, variable) pairs. Pass e.g. "
                "`zip(tape.gradient(loss, variables), variables)` with at least one variable."
            )
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError(
                    f"apply_gradients() takes (gradient, variable) pairs; item {i} is {pair!r}. "
                    "Pass `zip(gradients, variables)`."
                )
            if not isinstance(pair[1], Variable):
                raise TypeError(
                    f"apply_gradients() updates rt.Variables, but the variable of pair {i} is "
                    f"{type(pair[1]).__name__}: {pair[1]!r}. Pass `zip(gradients, variables)` "
                    "(gradient first)."
                )
            if not pair[1].dtype.is_floating:
                raise TypeError(
                    f"Only floating-point variables can be optimized; {pair[1].name} has dtype "
                    f"{pair[1].dtype.name}."
                )
        self.build([v for _, v in pairs])
        missing = [v for g, v in pairs if g is None]
        pairs = [(g, v) for g, v in pairs if g is not None]
        if not pairs:
            raise ValueError(
                "No gradients provided for any variable: every gradient is None for "
                f"{[v.name for v in missing]}. Check that the loss depends on the variables and "
                "is computed inside the GradientTape that gives the gradients."
            )
        unwarned = [v for v in missing if v not in self._warned_no_gradient]
        if unwarned:
            self._warned_no_gradient.update(unwarned)
            warnings.warn(
                f"Gradients do not exist for variables {[v.name for v in unwarned]} when "
                "minimizing the loss; they are left unchanged.",
                stacklevel=user_stacklevel(),
            )
        variables = [v for _, v in pairs]
        grads = [_as_gradient(g, v) for g, v in pairs]
        grads = self._clip_gradients(grads)
        learning_rate = self._learning_rate.read_value()
        self._apply_weight_decay(variables, learning_rate)
        for grad, variable in zip(grads, variables):
            self.update_step(grad, variable, cast(learning_rate, variable.dtype))
        self._iterations.assign_add(1)
        return self._iterations

    def minimize(self, loss, var_list, tape=None):
        """One step downhill: the gradients of `loss` with respect to `var_list`, applied.

        `loss` is a function of no arguments (run under a new `rt.GradientTape`), or a tensor
        computed under `tape`. Returns `iterations`.
        """
        var_list = list(var_list() if callable(var_list) else var_list)
        if callable(loss):
            with GradientTape() as tape:
                tape.watch(var_list)
                loss = loss()
        elif tape is None:
            raise ValueError(
                "minimize() needs `tape` when `loss` is a tensor (the tape it was computed "
                "under); or pass `loss` as a function of no arguments."
            )
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def update_step(self, gradient, variable, learning_rate) -> None:
        """Updates `variable` (and its slots) from `gradient` (of its dtype) and the learning
        rate (a scalar tensor of its dtype)."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement update_step(gradient, variable, "
            "learning_rate)."
        )

    def _clip_gradients(self, grads: list) -> list:
        if self.clipnorm is not None:
            return [clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm is not None:
            return clip_by_global_norm(grads, self.global_clipnorm)[0]
        if self.clipvalue is not None:
            return [clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def _apply_weight_decay(self, variables, learning_rate) -> None:
        if self.weight_decay is None:
            return
        for variable in variables:
            if self._use_weight_decay(variable):
                lr = cast(learning_rate, variable.dtype)
                wd = cast(self.weight_decay, variable.dtype)
                variable.assign(variable - variable * wd * lr)


def _as_gradient(grad, variable):
    """`grad` as a tensor of `variable`'s dtype and a shape that fits it."""
    if isinstance(grad, Variable):
        grad = grad.read_value()
    try:
        tensor = convert_to_tensor(grad)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"The gradient for variable {variable.name} is not a tensor, array or number: "
            f"{grad!r} ({e})."
        ) from None
    if tensor.dtype != variable.dtype:
        if not (tensor.dtype.is_floating or tensor.dtype.is_integer):
            raise TypeError(
                f"The gradient for variable {variable.name} has dtype {tensor.dtype.name}; "
                f"it must be a real number type (it is cast to {variable.dtype.name})."
            )
        tensor = cast(tensor, variable.dtype)
    if not variable.shape.is_compatible_with(tensor.shape):
        raise ValueError(
            f"The gradient for variable {variable.name} has shape {list(tensor.shape)}, but the "
            f"variable's shape is {list(variable.shape)}; pass gradients in the order of "
            "their variables."
        )
    return tensor


class SGD(Optimizer):
    """Gradient descent, with momentum if `momentum` > 0 (Keras' SGD).

    Without momentum: `w -= learning_rate * g`. With momentum:
    `velocity = momentum * velocity - learning_rate * g; w += velocity`; with `nesterov=True`
    instead `w += momentum * velocity - learning_rate * g`.
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, *, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name="SGD"):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name)
        self.momentum = _number(momentum, "momentum", low=0.0, high=1.0)
        self.nesterov = bool(nesterov)

    def _slot_names(self):
        return ["momentum"] if self.momentum != 0 else []

    def update_step(self, gradient, variable, learning_rate):
        if self.momentum == 0:
            variable.assign_sub(gradient * learning_rate)
            return
        m = self._slot(variable, "momentum")
        momentum = cast(self.momentum, variable.dtype)
        m.assign(m * momentum - gradient * learning_rate)
        if self.nesterov:
            variable.assign_add(m * momentum - gradient * learning_rate)
        else:
            variable.assign_add(m)


class Adam(Optimizer):
    """Adam (Kingma & Ba), as Keras: with `t` the step number (from 1),

        m = m + (g - m) * (1 - beta_1)
        v = v + (g**2 - v) * (1 - beta_2)
        alpha = learning_rate * sqrt(1 - beta_2**t) / (1 - beta_1**t)
        w -= alpha * m / (sqrt(v) + epsilon)

    With `amsgrad=True`, `v` in the last line is the running maximum of `v`.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, *, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adam"):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name)
        self.beta_1 = _number(beta_1, "beta_1", low=0.0, high=1.0, high_open=True)
        self.beta_2 = _number(beta_2, "beta_2", low=0.0, high=1.0, high_open=True)
        self.epsilon = _number(epsilon, "epsilon", low=0.0)
        self.amsgrad = bool(amsgrad)

    def _slot_names(self):
        return ["momentum", "velocity"] + (["velocity_hat"] if self.amsgrad else [])

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        local_step = cast(self._iterations + 1, dtype)
        beta_1_power = pow(cast(self.beta_1, dtype), local_step)
        beta_2_power = pow(cast(self.beta_2, dtype), local_step)
        m = self._slot(variable, "momentum")
        v = self._slot(variable, "velocity")
        alpha = learning_rate * sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((square(gradient) - v) * (1 - self.beta_2))
        if self.amsgrad:
            v_hat = self._slot(variable, "velocity_hat")
            v_hat.assign(maximum(v_hat, v))
            v = v_hat
        variable.assign_sub((m * alpha) / (sqrt(v) + self.epsilon))


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): each step first does
    `w -= w * weight_decay * learning_rate`, then Adam's update (see `Adam`)."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, *, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adamw"):
        if weight_decay is None:
            raise ValueError(
                "AdamW needs `weight_decay` (a float, default 0.004); got None. Use Adam for "
                "no weight decay."
            )
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad,
                         weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name)


class RMSprop(Optimizer):
    """RMSprop, as Keras:

        velocity = rho * velocity + (1 - rho) * g**2
        increment = learning_rate * g / sqrt(velocity + epsilon)
        w -= increment                      (momentum == 0)
        m = momentum * m + increment; w -= m  (momentum > 0)

    With `centered=True` it also keeps `average_gradient = rho * average_gradient + (1 - rho) *
    g` and divides by `sqrt(velocity - average_gradient**2 + epsilon)`.
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, *, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="rmsprop"):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name)
        self.rho = _number(rho, "rho", low=0.0, high=1.0)
        self.momentum = _number(momentum, "momentum", low=0.0, high=1.0)
        self.epsilon = _number(epsilon, "epsilon", low=0.0)
        self.centered = bool(centered)

    def _slot_names(self):
        return (["velocity"] + (["momentum"] if self.momentum > 0 else [])
                + (["average_gradient"] if self.centered else []))

    def update_step(self, gradient, variable, learning_rate):
        rho = self.rho
        velocity = self._slot(variable, "velocity")
        velocity.assign(rho * velocity + (1 - rho) * square(gradient))
        if self.centered:
            average = self._slot(variable, "average_gradient")
            average.assign(rho * average + (1 - rho) * gradient)
            denominator = velocity - square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = learning_rate * gradient / sqrt(denominator)
        if self.momentum > 0:
            m = self._slot(variable, "momentum")
            m.assign(self.momentum * m + increment)
            variable.assign_sub(m)
        else:
            variable.assign_sub(increment)


__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "RMSprop"]
