"""Stochastic gradient descent with momentum, dampening, weight decay and Nesterov momentum, with
Warp's interface: SGD(params, lr, momentum, dampening, weight_decay, nesterov), step(grads),
set_params, reset_internal_state.

Per scalar (as PyTorch's SGD): g' = g + weight_decay p; with momentum, the buffer b is g' at the
first step and momentum b + (1 - dampening) g' after; the update direction is g' + momentum b
(Nesterov) or b; then p = p - lr direction. Without momentum the direction is g'."""

import functools

import warp_nb as wp

from .. import types as T
from ._state import check_grads, check_param, keep_or_make, scalars


@functools.cache
def _sgd_kernel(param_t, state_t):
    def sgd_step(g: wp.array(dtype=param_t), b: wp.array(dtype=state_t), lr: state_t, momentum: state_t,
                 dampening: state_t, weight_decay: state_t, nesterov: int, first: int, params: wp.array(dtype=param_t)):
        i = wp.tid()
        p = state_t(params[i])
        d = state_t(g[i]) + weight_decay * p
        if momentum != state_t(0.0):
            bi = d
            if first == 0:
                bi = momentum * b[i] + (state_t(1.0) - dampening) * d
            b[i] = bi
            if nesterov != 0:
                d = d + momentum * bi
            else:
                d = bi
        params[i] = param_t(p - lr * d)

    key = f"sgd_step_{T.type_name(param_t)}_{T.type_name(state_t)}"
    return wp.kernel(sgd_step, key=key, enable_backward=False)


class SGD:
    """Stochastic gradient descent. `params`: a list of warp arrays (float16/32/64 scalars,
    vectors or matrices), or None to set later. `b` holds the momentum buffers, one per array."""

    def __init__(self, params=None, lr: float = 0.001, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False):
        self.lr, self.momentum, self.dampening = lr, momentum, dampening
        self.weight_decay, self.nesterov = weight_decay, nesterov
        self.t = 0
        self.params = None
        self.b: list = []
        if params is not None:
            self.set_params(params)

    def set_params(self, params) -> None:
        """Set the parameter arrays; momentum buffers that still fit are kept (and moved with a
        parameter that moved to another device), others start at zero."""
        params = list(params)
        for p in params:
            check_param("SGD", p)
        self.params = params
        self.b = keep_or_make(self.b, params)

    def reset_internal_state(self) -> None:
        """Zero the momentum buffers and the step count (the next step starts them afresh)."""
        for a in self.b:
            a.zero_()
        self.t = 0

    def step(self, grad) -> None:
        """One SGD step with these gradients (one array per parameter array, same shape and dtype)."""
        grads = list(grad)
        check_grads("SGD", self.params, grads)
        for p, g, b in zip(self.params, grads, self.b):
            SGD.step_detail(g, b, self.lr, self.momentum, self.dampening, self.weight_decay, self.nesterov, self.t, p)
        self.t += 1

    @staticmethod
    def step_detail(g, b, lr, momentum, dampening, weight_decay, nesterov, t, params) -> None:
        """The SGD update of one parameter array at step t (counted from 0)."""
        if params.size == 0:
            return
        ps, gs, bs = scalars(params), scalars(g), scalars(b)
        wp.launch(_sgd_kernel(ps.dtype, bs.dtype), ps.size,
                  inputs=[gs, bs, lr, momentum, dampening, weight_decay, int(bool(nesterov)), int(t == 0), ps],
                  device=params.device)
