"""Reverse-mode gradients: `rt.GradientTape`, `rt.grad` / `rt.value_and_grad`,
`rt.custom_gradient`, `rt.stop_gradient`.

A tape records the ops that run while it is open (eagerly, or while a function is traced: the
gradient then becomes ops of the graph) whose inputs depend on what it watches; `gradient`
walks them in reverse, asking each op's GRADIENT rule (registered next to the op) for the
gradients of its inputs. `If` and `While` have rules of their own
(autodiff/control_flow_gradients.py).
"""

from runtime.autodiff import control_flow_gradients  # noqa: F401 - the rules of If and While
from runtime.autodiff.custom import custom_gradient
from runtime.autodiff.functional import grad, value_and_grad
from runtime.autodiff.tape import GradientTape

__all__ = ["GradientTape", "custom_gradient", "grad", "value_and_grad"]
