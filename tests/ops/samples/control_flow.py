"""Samples for ``_foreach``, ``_while_loop``, ``_cond`` and ``_CachedOp`` (``control_flow.py``).

The operators run whatever subgraph objects their ``subgraphs`` attribute holds (the
protocol in :mod:`gluonlite.ops.control_flow`); here each subgraph is a small NumPy
function with its hand-written vector-Jacobian product, so the harness checks the loop
logic (slicing, stacking, carried states, summed gradients of shared inputs, the
padding of ``_while_loop``, the branch of ``_cond``) on its own.  Graph-built subgraphs
are tested in ``tests/symbol/test_control_flow*.py``.
"""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(31)


class _Body:
    """A subgraph written against ``xp``: ``fn(xp, *inputs) -> outputs``; ``vjp(xp,
    inputs, out_grads) -> in_grads``."""

    def __init__(self, fn, vjp=None, n_out=1):
        self.fn, self.vjp, self.n_out = fn, vjp, n_out

    def _outputs(self, inputs):
        return [np.asarray(o) for o in self.fn(np, *inputs)]

    def infer_shape(self, in_shapes):
        if any(s is None or 0 in s for s in in_shapes):
            return list(in_shapes), [None] * self.n_out
        outs = self._outputs([np.zeros(s) for s in in_shapes])
        return list(in_shapes), [tuple(o.shape) for o in outs]

    def infer_type(self, in_dtypes):
        known = next(d for d in in_dtypes if d is not None)
        shapes = [(1,)] * len(in_dtypes)
        outs = self._outputs([np.zeros(s, known) for s in shapes])
        return [known] * len(in_dtypes), [known if o.dtype.kind == "f" else o.dtype
                                          for o in outs]

    def run(self, oc, inputs, keep):
        outs = [o.copy() if any(o is x for x in inputs) else o
                for o in (oc.xp.asarray(r) for r in self.fn(oc.xp, *inputs))]
        return outs, (list(inputs) if keep else None)

    def backward(self, oc, state, out_grads):
        return self.vjp(oc.xp, state, out_grads)


# _foreach: y_t = x_t * w + s; s' = tanh(y_t).  Body inputs [x, w, s].
def _step_fn(xp, x, w, s):
    y = x * w + s
    return [y, xp.tanh(y)]


def _step_vjp(xp, ins, grads):
    x, w, s = ins
    gy, gs = grads
    t = xp.tanh(x * w + s)
    total = gy + gs * (1 - t * t)
    return [total * w, total * x, total]


def _rnn_ref(x, s0, w, **attrs):
    ys, s = [], s0
    for t in range(x.shape[0]):
        y, s = _step_fn(np, x[t], w, s)
        ys.append(y)
    return [np.stack(ys), s]


_RNN = _Body(_step_fn, _step_vjp, 2)
_RNN_ATTRS = dict(num_args=4, num_outputs=2, num_out_data=1, in_data_locs="[0]",
                  in_state_locs="[2]", remain_locs="[1]", subgraphs=(_RNN,))


# _foreach with two data arrays, no state: body inputs [b, a] -> [a * b[..., None], b * b]
def _pair_fn(xp, b, a):
    return [a * b[..., None], b * b]


def _pair_vjp(xp, ins, grads):
    b, a = ins
    g0, g1 = grads
    return [(g0 * a).sum(-1) + 2 * b * g1, g0 * b[..., None]]


def _pair_ref(a, b, **attrs):
    return [a * b[..., None], b * b]


_PAIR_ATTRS = dict(num_args=3, num_outputs=2, num_out_data=2, in_data_locs="[1, 0]",
                   in_state_locs="[]", remain_locs="[]", subgraphs=(_Body(_pair_fn, _pair_vjp, 2),))


# _while_loop: while i < 3: out = s * w; (i, s) = (i + 1, s + w).  Node inputs [i, s, w];
# func inputs [s, w, i]; loop variable 0 is func input 2, loop variable 1 func input 0.
def _func_fn(xp, s, w, i):
    return [s * w, i + 1, s + w]


def _func_vjp(xp, ins, grads):
    s, w, _ = ins
    g_out, g_i, g_s = grads
    return [g_out * w + g_s, g_out * s + g_s, g_i]


def _while_ref(i, s, w, max_iterations, **attrs):
    outs = np.zeros((max_iterations,) + s.shape, s.dtype)
    k = 0
    while k < max_iterations and i[0] < 3:
        outs[k] = s * w
        i, s = i + 1, s + w
        k += 1
    return [outs, i, s]


def _while_attrs(max_iterations):
    return dict(num_args=5, num_outputs=3, num_out_data=1, max_iterations=max_iterations,
                cond_input_locs="[0]", func_input_locs="[1, 2, 0]", func_var_locs="[2, 0]",
                subgraphs=(_Body(lambda xp, i: [(i < 3).astype(i.dtype)]),
                           _Body(_func_fn, _func_vjp, 3)))


# _cond: node inputs [p, a, b]; then (a, b) -> [a * b, a + 1]; else (b) -> [2 b, b - 1]
_COND_ATTRS = dict(
    num_args=6, num_outputs=2, cond_input_locs="[0]", then_input_locs="[1, 2]",
    else_input_locs="[2]",
    subgraphs=(_Body(lambda xp, p: [(p != 0).astype(p.dtype)]),
               _Body(lambda xp, a, b: [a * b, a + 1],
                     lambda xp, ins, g: [g[0] * ins[1] + g[1], g[0] * ins[0]], 2),
               _Body(lambda xp, b: [2 * b, b - 1], lambda xp, ins, g: [2 * g[0] + g[1]], 2)))


def _cond_ref(p, a, b, **attrs):
    return [a * b, a + 1] if p[0] != 0 else [2 * b, b - 1]


# _CachedOp: node inputs [a, b] -> the subgraph's [a * b, a + 1]
_CACHED_ATTRS = dict(
    num_args=3, num_outputs=2,
    subgraphs=(_Body(lambda xp, a, b: [a * b, a + 1],
                     lambda xp, ins, g: [g[0] * ins[1] + g[1], g[0] * ins[0]], 2),))


def _cached_ref(a, b, **attrs):
    return [a * b, a + 1]


_x = _rng.normal(size=(4, 3))
_s = _rng.normal(size=(3,))
_w = _rng.normal(size=(3,))
_a = _rng.normal(size=(3, 2, 4))
_b = _rng.normal(size=(3, 2))
_ab = _rng.normal(size=(2, 3))
_bb = _rng.normal(size=(2, 3))

SAMPLES = {
    "_foreach": [
        Sample([_x, _s, _w], _RNN_ATTRS, ref=_rnn_ref),
        Sample([_x.astype(np.float32), _s.astype(np.float32), _w.astype(np.float32)],
               _RNN_ATTRS, ref=_rnn_ref, rtol=1e-5, grad=False),
        Sample([_a, _b], _PAIR_ATTRS, ref=_pair_ref),
    ],
    "_while_loop": [
        Sample([np.full(1, 0.5), _s, _w], _while_attrs(5), ref=_while_ref),
        # the condition fails at once: zeros, and the loop variables as given
        Sample([np.full(1, 7.0), _s, _w], _while_attrs(2), ref=_while_ref),
        # max_iterations stops it first
        Sample([np.full(1, 0.5), _s, _w], _while_attrs(2), ref=_while_ref),
    ],
    "_cond": [
        Sample([np.ones(1), _ab, _bb], _COND_ATTRS, ref=_cond_ref, grad=[1, 2]),
        Sample([np.zeros(1), _ab, _bb], _COND_ATTRS, ref=_cond_ref, grad=[1, 2]),
    ],
    "_CachedOp": [
        Sample([_ab, _bb], _CACHED_ATTRS, ref=_cached_ref),
    ],
}
