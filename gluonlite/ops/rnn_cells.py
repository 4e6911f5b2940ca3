"""Single layer, single direction recurrences for the fused ``RNN`` operator.

Each recurrence runs over time-major data ``x`` of shape ``(T, N, I)``: one
matmul projects every time step at once (``(T*N, I) @ W_i2h.T``), then a Python
loop over the time steps does one small matmul per step.  ``forward`` keeps what
``backward`` (back-propagation through time, written by hand) needs in a cache.
The LSTM, the case that matters for speed, lives in :mod:`.rnn_lstm`; these
functions hand it over.

Gate layouts (rows of ``W_i2h``/``W_h2h``, MXNet 1.9's packing):

* ``lstm``: input, forget, cell candidate, output (``i, f, g, o``);
* ``gru``: reset, update, new (``r, z, n``), with
  ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`` and ``h' = (1 - z) * n + z * h``;
* ``rnn_tanh`` / ``rnn_relu``: one gate.
"""
from __future__ import annotations

from . import _gpu_rnn
from .rnn_blas import one_blas_thread
from .rnn_lstm import lstm_backward, lstm_forward

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _sigmoid(xp, x):
    return 1.0 / (1.0 + xp.exp(-x))


class Clip:
    """LSTM cell-state clipping (``lstm_state_clip_min/max/nan``); ``None`` when off."""

    def __init__(self, lo, hi, clip_nan: bool):
        self.lo = lo
        self.hi = hi
        self.clip_nan = clip_nan

    def apply(self, xp, c):
        """Clipped cell state and the mask of positions whose gradient passes."""
        pass_mask = (c >= self.lo) & (c <= self.hi)
        out = xp.clip(c, self.lo, self.hi)
        if self.clip_nan:
            out = xp.where(xp.isnan(c), self.lo, out)
        else:
            out = xp.where(xp.isnan(c), c, out)
        return out, pass_mask


def layer_forward(xp, mode, x, w_i, w_h, b_i, b_h, h0, c0, clip=None, keep=False,
                  valid=None, w_r=None):
    """Run one direction of one layer over all time steps.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``.
    mode : str
        ``rnn_relu``, ``rnn_tanh``, ``lstm`` or ``gru``.
    x : array, shape (T, N, I)
        Inputs in processing order (reverse directions pass ``x[::-1]``).
    w_i, w_h : arrays, shapes (G*H, I), (G*H, R)
        ``R`` is the recurrent width: ``P`` for a projected LSTM, else ``H``.
    b_i, b_h : arrays, shape (G*H,)
    h0, c0 : arrays, shapes (N, R) and (N, H); ``c0`` only for LSTM.
    clip : Clip, optional
        LSTM cell-state clipping.
    keep : bool
        Keep the cache that :func:`layer_backward` needs.
    valid : array (T, N) of bool, optional
        Steps to run; at other steps the state is carried over unchanged (and
        the step's output is that carried state).
    w_r : array (P, H), optional
        LSTM projection (LSTMP): the output and recurrent state is ``W_h2r h``.

    Returns
    -------
    out : array (T, N, R), h_T, c_T (``None`` unless LSTM), cache (``None`` unless ``keep``)
    """
    if _gpu_rnn.usable(xp):     # one fused kernel per step (see :mod:`._gpu_rnn`)
        if mode == "lstm":
            return _gpu_rnn.lstm_forward(xp, x, w_i, w_h, b_i, b_h, h0, c0, clip, keep,
                                         valid, w_r)
        return _gpu_rnn.simple_forward(xp, mode, x, w_i, w_h, b_i, b_h, h0, keep, valid)
    if mode == "lstm":
        return lstm_forward(xp, x, w_i, w_h, b_i, b_h, h0, c0, clip, keep, valid, w_r)
    t_len, n, _ = x.shape
    hid = w_h.shape[1]
    dt = x.dtype
    proj = xp.matmul(x.reshape(t_len * n, -1), w_i.T).reshape(t_len, n, -1) + b_i
    out = xp.empty((t_len, n, hid), dtype=dt)
    cache = None
    if keep:
        cache = {"h_prev": xp.empty((t_len, n, hid), dtype=dt),
                 "gates": xp.empty((t_len,) + proj.shape[1:], dtype=dt)}
        if mode == "gru":
            cache["hn"] = xp.empty((t_len, n, hid), dtype=dt)
    h = h0
    w_ht = xp.ascontiguousarray(w_h.T)
    with one_blas_thread(xp, n, w_h.shape[0], hid):
        for t in range(t_len):
            h_prev = h
            hp = xp.matmul(h, w_ht) + b_h
            if keep:
                cache["h_prev"][t] = h
            if mode == "gru":
                xr, xz, xn = proj[t, :, :hid], proj[t, :, hid:2 * hid], proj[t, :, 2 * hid:]
                hr, hz, hn = hp[:, :hid], hp[:, hid:2 * hid], hp[:, 2 * hid:]
                r = _sigmoid(xp, xr + hr)
                z = _sigmoid(xp, xz + hz)
                nn_ = xp.tanh(xn + r * hn)
                h = (1 - z) * nn_ + z * h
                if keep:
                    gates = cache["gates"][t]
                    gates[:, :hid] = r
                    gates[:, hid:2 * hid] = z
                    gates[:, 2 * hid:] = nn_
                    cache["hn"][t] = hn
            else:
                pre = proj[t] + hp
                h = xp.tanh(pre) if mode == "rnn_tanh" else xp.maximum(pre, 0)
                if keep:
                    cache["gates"][t] = h
            if valid is not None:
                v = valid[t][:, None]
                h = xp.where(v, h, h_prev)
            out[t] = h
    return out, h, None, cache


def layer_backward(xp, mode, x, w_i, w_h, cache, d_out, d_h, d_c, valid=None, w_r=None):
    """Back-propagation through time for one direction of one layer.

    Parameters
    ----------
    x : array (T, N, I)
        The inputs given to :func:`layer_forward` (same order).
    cache : dict
        From :func:`layer_forward` with ``keep=True``.
    d_out : array (T, N, R)
        Gradient of the per-step outputs (same order as ``x``).
    d_h, d_c : arrays (N, R), (N, H)
        Gradients of the final recurrent (and cell) state.
    valid : array (T, N) of bool, optional
        As given to :func:`layer_forward`.
    w_r : array (P, H), optional
        As given to :func:`layer_forward`.

    Returns
    -------
    dx, dw_i, dw_h, db_i, db_h, dh0, dc0, dw_r (``dc0`` is ``None`` unless LSTM,
    ``dw_r`` unless projected)
    """
    if _gpu_rnn.usable(xp):
        if mode == "lstm":
            return _gpu_rnn.lstm_backward(xp, x, w_i, w_h, cache, d_out, d_h, d_c, valid,
                                          w_r)
        return _gpu_rnn.simple_backward(xp, mode, x, w_i, w_h, cache, d_out, d_h, valid)
    if mode == "lstm":
        return lstm_backward(xp, x, w_i, w_h, cache, d_out, d_h, d_c, valid, w_r)
    t_len, n, _ = x.shape
    hid = w_h.shape[1]
    gates_all = cache["gates"]
    d_xg = xp.empty_like(gates_all)          # gradient of the input projection
    d_hg = d_xg if mode != "gru" else xp.empty_like(gates_all)
    dh = d_h
    with one_blas_thread(xp, n, hid, w_h.shape[0]):
        for t in range(t_len - 1, -1, -1):
            dh = dh + d_out[t]
            gates = gates_all[t]
            if valid is not None:
                v = valid[t][:, None]
                dh_skip = dh
                dh = dh * v
            if mode == "gru":
                r, z, nn_ = gates[:, :hid], gates[:, hid:2 * hid], gates[:, 2 * hid:]
                h_prev = cache["h_prev"][t]
                dn = dh * (1 - z) * (1 - nn_ * nn_)
                dz = dh * (h_prev - nn_) * z * (1 - z)
                dr = dn * cache["hn"][t] * r * (1 - r)
                dxg, dhg = d_xg[t], d_hg[t]
                dxg[:, :hid] = dr
                dxg[:, hid:2 * hid] = dz
                dxg[:, 2 * hid:] = dn
                dhg[:, :2 * hid] = dxg[:, :2 * hid]
                dhg[:, 2 * hid:] = dn * r
                dh = dh * z + xp.matmul(dhg, w_h)
            else:
                h = gates
                dpre = dh * (1 - h * h) if mode == "rnn_tanh" else dh * (h > 0)
                d_xg[t] = dpre
                dh = xp.matmul(dpre, w_h)
            if valid is not None:
                dh = xp.where(v, dh, dh_skip)
    flat_xg = d_xg.reshape(t_len * n, -1)
    flat_hg = d_hg.reshape(t_len * n, -1)
    dx = xp.matmul(flat_xg, w_i).reshape(x.shape)
    dw_i = xp.matmul(flat_xg.T, x.reshape(t_len * n, -1))
    dw_h = xp.matmul(flat_hg.T, cache["h_prev"].reshape(t_len * n, hid))
    db_i = flat_xg.sum(axis=0)
    db_h = flat_hg.sum(axis=0)
    return dx, dw_i, dw_h, db_i, db_h, dh, None, None
