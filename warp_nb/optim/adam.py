"""Adam (Kingma & Ba 2015) with Warp's interface: Adam(params, lr, betas, eps), step(grads),
set_params, reset_internal_state, and the per-array step_detail.

Per scalar, at step t (counted from 0):
    m = beta1 m + (1 - beta1) g,    v = beta2 v + (1 - beta2) g^2
    p = p - lr (m / (1 - beta1^(t+1))) / (sqrt(v / (1 - beta2^(t+1))) + eps)"""

import functools

import warp_nb as wp

from .. import types as T
from ._state import check_grads, check_param, keep_or_make, scalars


@functools.cache
def _adam_kernel(param_t, state_t):
    def adam_step(g: wp.array(dtype=param_t), m: wp.array(dtype=state_t), v: wp.array(dtype=state_t),
                  lr: state_t, beta1: state_t, beta2: state_t, bias1: state_t, bias2: state_t, eps: state_t,
                  params: wp.array(dtype=param_t)):
        i = wp.tid()
        gi = state_t(g[i])
        mi = beta1 * m[i] + (state_t(1.0) - beta1) * gi
        vi = beta2 * v[i] + (state_t(1.0) - beta2) * gi * gi
        m[i] = mi
        v[i] = vi
        mhat = mi / bias1
        vhat = vi / bias2
        params[i] = param_t(state_t(params[i]) - lr * mhat / (wp.sqrt(vhat) + eps))

    key = f"adam_step_{T.type_name(param_t)}_{T.type_name(state_t)}"
    return wp.kernel(adam_step, key=key, enable_backward=False)


class Adam:
    """Adaptive Moment Estimation. `params`: a list of warp arrays (float16/32/64 scalars, vectors
    or matrices), or None to set later with set_params. `m` and `v` hold the moments, one array
    per parameter array; `t` counts the steps taken."""

    def __init__(self, params=None, lr: float = 0.001, betas=(0.9, 0.999), eps: float = 1e-08):
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.t = 0
        self.params = None
        self.m: list = []
        self.v: list = []
        if params is not None:
            self.set_params(params)

    def set_params(self, params) -> None:
        """Set the parameter arrays. Moment buffers that still fit a parameter (same shape and
        dtype) are kept, and moved with it when it moved to another device; others start at zero."""
        params = list(params)
        for p in params:
            check_param("Adam", p)
        self.params = params
        self.m = keep_or_make(self.m, params)
        self.v = keep_or_make(self.v, params)

    def reset_internal_state(self) -> None:
        """Zero the moments and the step count."""
        for a in (*self.m, *self.v):
            a.zero_()
        self.t = 0

    def step(self, grad) -> None:
        """One Adam step with these gradients (one array per parameter array, same shape and dtype)."""
        grads = list(grad)
        check_grads("Adam", self.params, grads)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            Adam.step_detail(g, m, v, self.lr, self.beta1, self.beta2, self.t, self.eps, p)
        self.t += 1

    @staticmethod
    def step_detail(g, m, v, lr, beta1, beta2, t, eps, params) -> None:
        """The Adam update of one parameter array at step t (counted from 0)."""
        if params.size == 0:
            return
        ps, gs, ms, vs = scalars(params), scalars(g), scalars(m), scalars(v)
        bias1, bias2 = 1.0 - beta1 ** (t + 1), 1.0 - beta2 ** (t + 1)
        wp.launch(_adam_kernel(ps.dtype, ms.dtype), ps.size,
                  inputs=[gs, ms, vs, lr, beta1, beta2, bias1, bias2, eps, ps], device=params.device)
