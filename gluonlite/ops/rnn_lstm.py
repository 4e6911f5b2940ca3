"""One direction of one LSTM layer for the fused ``RNN`` operator, forward and BPTT.

The time goes into the matmuls and, at small sizes, the per-step elementwise calls,
so the point is to do no matmul twice, keep each one as large as possible, and
allocate nothing per step:

* the input projection of every step is one matmul (multi-threaded BLAS), with both
  biases folded in once; it becomes the gate cache ``(T, N, 4H)``: step ``t`` adds its
  one recurrent matmul and applies the activations in place;
* the per-step matmuls read contiguous transposed weights and run on one BLAS thread
  when small (see :mod:`.rnn_blas`);
* hidden and cell states live in ``(T + 1, N, H)`` buffers (row 0 is the initial
  state), so the previous state of step ``t`` is a view, never a copy;
* backward writes the gate gradients of every step into one ``(T, N, 4H)`` array
  (MXNet's packed gate order) and, after the loop over time, computes ``dx``,
  ``dW_i2h`` and ``dW_h2h`` with one matmul each.

With a projection (LSTMP, ``w_r`` of shape ``(P, H)``) each step also computes
``r = h @ W_h2r.T``: ``r`` is the step's output and the recurrent state (the
``(T + 1, N, P)`` buffer), ``h`` is kept per step for the backward, which gets
``dW_h2r`` with one more matmul after the loop.

Gate order of MXNet's packing: input, forget, cell candidate, output (``i, f, g, o``).
"""
from __future__ import annotations

from .rnn_blas import one_blas_thread


def _sigmoid_(xp, a):
    """``a = 1 / (1 + exp(-a))`` in place."""
    xp.negative(a, out=a)
    xp.exp(a, out=a)
    a += 1
    xp.reciprocal(a, out=a)


def lstm_forward(xp, x, w_i, w_h, b_i, b_h, h0, c0, clip=None, keep=False, valid=None,
                 w_r=None):
    """Run the LSTM over ``x`` of shape ``(T, N, I)``; see :func:`.rnn_cells.layer_forward`.

    Returns ``out (T, N, R)``, ``r_T``, ``c_T`` and the cache (``None`` unless ``keep``),
    where ``R`` is the projection size with ``w_r``, else the hidden size.
    """
    t_len, n, in_size = x.shape
    hid = w_i.shape[0] // 4
    rec = w_h.shape[1]
    dt = x.dtype
    # one gemm for the input projection of every step, both biases folded in once;
    # it then becomes the gate cache: step t overwrites gates[t] with its activations
    gates = xp.matmul(x.reshape(t_len * n, in_size), w_i.T).reshape(t_len, n, 4 * hid)
    gates += b_i + b_h
    # contiguous (R, 4H) / (H, P): a C-ordered right operand is ~1.6x faster in OpenBLAS
    w_ht = xp.ascontiguousarray(w_h.T)
    w_rt = xp.ascontiguousarray(w_r.T) if w_r is not None else None
    hs = xp.empty((t_len + 1, n, rec), dtype=dt)      # recurrent states (r with projection)
    cs = xp.empty((t_len + 1, n, hid), dtype=dt)
    hs[0] = h0
    cs[0] = c0
    rec_buf = xp.empty((n, 4 * hid), dtype=dt)
    tmp = xp.empty((n, hid), dtype=dt)
    hh = None                                          # unprojected h of every step
    if w_r is not None:
        hh = xp.empty((t_len if keep else 1, n, hid), dtype=dt)
    cmask = None
    if keep:
        tcs = xp.empty((t_len, n, hid), dtype=dt)
        cmask = xp.empty((t_len, n, hid), dtype=bool) if clip is not None else None
    with one_blas_thread(xp, n, 4 * hid, rec):
        for t in range(t_len):
            gt = gates[t]
            xp.matmul(hs[t], w_ht, out=rec_buf)
            gt += rec_buf
            i, f, g, o = (gt[:, :hid], gt[:, hid:2 * hid], gt[:, 2 * hid:3 * hid],
                          gt[:, 3 * hid:])
            _sigmoid_(xp, gt[:, :2 * hid])
            xp.tanh(g, out=g)
            _sigmoid_(xp, o)
            c_new = cs[t + 1]
            xp.multiply(f, cs[t], out=c_new)
            xp.multiply(i, g, out=tmp)
            c_new += tmp
            if clip is not None:
                clipped, mask = clip.apply(xp, c_new)
                c_new[...] = clipped
                if keep:
                    cmask[t] = mask
            tc = tcs[t] if keep else tmp
            xp.tanh(c_new, out=tc)
            if w_r is None:
                xp.multiply(o, tc, out=hs[t + 1])
            else:
                h_t = hh[t] if keep else hh[0]
                xp.multiply(o, tc, out=h_t)
                xp.matmul(h_t, w_rt, out=hs[t + 1])
            if valid is not None:
                v = valid[t][:, None]
                hs[t + 1] = xp.where(v, hs[t + 1], hs[t])
                cs[t + 1] = xp.where(v, c_new, cs[t])
    if not keep:
        return hs[1:], hs[t_len], cs[t_len], None
    # the returned output must not alias the cache (callers may write into it)
    return hs[1:].copy(), hs[t_len], cs[t_len], lstm_cache(gates, hs, cs, tcs, cmask, hh)


def lstm_cache(gates, hs, cs, tcs, cmask, hh) -> dict:
    """What :func:`lstm_backward` reads (the CPU and GPU forwards keep the same)."""
    cache = {"gates": gates, "hs": hs, "cs": cs, "tc": tcs}
    if cmask is not None:
        cache["cmask"] = cmask
    if hh is not None:
        cache["hh"] = hh
    return cache


def lstm_backward(xp, x, w_i, w_h, cache, d_out, d_h, d_c, valid=None, w_r=None):
    """Back-propagation through time; see :func:`.rnn_cells.layer_backward`.

    Returns ``dx, dw_i, dw_h, db_i, db_h, dh0, dc0, dw_r`` (``dw_r`` is ``None``
    without a projection).
    """
    t_len, n, in_size = x.shape
    hid = w_i.shape[0] // 4
    rec = w_h.shape[1]
    dt = x.dtype
    gates, hs, cs, tcs = cache["gates"], cache["hs"], cache["cs"], cache["tc"]
    cmask = cache.get("cmask")
    d_g = xp.empty((t_len, n, 4 * hid), dtype=dt)   # pre-activation gradients, packed
    dr = xp.empty((n, rec), dtype=dt)               # gradient of the recurrent state
    dr[...] = d_h
    dc = xp.empty((n, hid), dtype=dt)
    dc[...] = d_c
    if w_r is not None:
        d_rs = xp.empty((t_len, n, rec), dtype=dt)  # gradient of every step's r
        dh = xp.empty((n, hid), dtype=dt)
    else:
        dh = dr
    a = xp.empty((n, hid), dtype=dt)
    b = xp.empty((n, hid), dtype=dt)
    with one_blas_thread(xp, n, rec, 4 * hid):
        for t in range(t_len - 1, -1, -1):
            dr += d_out[t]
            if valid is not None:
                v = valid[t][:, None]
                dr_skip, dc_skip = dr.copy(), dc.copy()
                dr *= v
                dc *= v
            if w_r is not None:
                d_rs[t] = dr
                xp.matmul(dr, w_r, out=dh)
            gt = gates[t]
            i, f, g, o = (gt[:, :hid], gt[:, hid:2 * hid], gt[:, 2 * hid:3 * hid],
                          gt[:, 3 * hid:])
            tc = tcs[t]
            dgt = d_g[t]
            di, df, dgg, do = (dgt[:, :hid], dgt[:, hid:2 * hid],
                               dgt[:, 2 * hid:3 * hid], dgt[:, 3 * hid:])
            # dc += dh * o * (1 - tanh(c)^2);  do = dh * tanh(c) * o * (1 - o)
            xp.multiply(tc, tc, out=a)
            xp.subtract(1, a, out=a)
            a *= o
            a *= dh
            dc += a
            if cmask is not None:
                dc *= cmask[t]
            xp.subtract(1, o, out=a)
            a *= o
            a *= tc
            xp.multiply(dh, a, out=do)
            # di = dc * g * i * (1 - i)
            xp.subtract(1, i, out=a)
            a *= i
            a *= g
            xp.multiply(dc, a, out=di)
            # df = dc * c_prev * f * (1 - f)
            xp.subtract(1, f, out=a)
            a *= f
            a *= cs[t]
            xp.multiply(dc, a, out=df)
            # dg = dc * i * (1 - g^2)
            xp.multiply(g, g, out=b)
            xp.subtract(1, b, out=b)
            b *= i
            xp.multiply(dc, b, out=dgg)
            dc *= f
            xp.matmul(dgt, w_h, out=dr)
            if valid is not None:
                dr[...] = xp.where(v, dr, dr_skip)
                dc[...] = xp.where(v, dc, dc_skip)
    flat = d_g.reshape(t_len * n, 4 * hid)
    dx = xp.matmul(flat, w_i).reshape(x.shape)
    dw_i = xp.matmul(flat.T, x.reshape(t_len * n, in_size))
    dw_h = xp.matmul(flat.T, hs[:t_len].reshape(t_len * n, rec))
    db = flat.sum(axis=0)
    dw_r = None
    if w_r is not None:
        dw_r = xp.matmul(d_rs.reshape(t_len * n, rec).T,
                         cache["hh"].reshape(t_len * n, hid))
    return dx, dw_i, dw_h, db, db, dr, dc, dw_r
