"""`rt.optimizers`: update variables from their gradients (eagerly or inside `rt.function`)."""

from __future__ import annotations


class SGD:
    """Plain gradient descent: `variable -= learning_rate * gradient`."""

    def __init__(self, learning_rate: float = 0.01):
        self.learning_rate = learning_rate

    def apply_gradients(self, grads_and_vars) -> None:
        """Applies each (gradient, variable) pair; a None gradient leaves its variable alone."""
        for grad, variable in grads_and_vars:
            if grad is not None:
                variable.assign_sub(grad * self.learning_rate)


__all__ = ["SGD"]
