"""The CPU rewrite of CachedOp plans (``engine/cpu_rewrite.py``): folded inference
BatchNorm and in-place ReLU, checked against the same graphs run unrewritten."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.engine import CachedOp
from gluonlite.ops._fused_conv import FusedLayer

rng = np.random.default_rng(7)


def _conv_bn_relu(no_bias=False, fix_gamma=False, use_global_stats=False, act="Activation",
                  bn=True, relu=True):
    x = mx.sym.var("data")
    y = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=6, no_bias=no_bias,
                           name="conv")
    if bn:
        y = mx.sym.BatchNorm(y, fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                             name="bn")
    if relu:
        y = mx.sym.Activation(y, act_type="relu", name="act") if act == "Activation" \
            else mx.sym.relu(y, name="act")
    return mx.sym.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")


def _inputs(cop, data_shape=(2, 4, 8, 8), zero_filter=False):
    arrays = []
    for name in cop.list_inputs():
        if name == "data":
            a = rng.standard_normal(data_shape)
        elif name.endswith("weight"):
            a = rng.standard_normal((6, data_shape[1], 3, 3)) * 0.3
            if zero_filter:
                a[0] = 0  # a filter whose output (with a zero bias) is exactly 0
        elif name.endswith("bias"):
            a = rng.standard_normal(6) * 0.1
            if zero_filter:
                a[0] = 0
        elif name.endswith("gamma") or name.endswith("moving_var"):
            a = rng.uniform(0.5, 1.5, 6)
        else:  # beta, moving_mean
            a = rng.standard_normal(6) * 0.2
        arrays.append(mx.nd.array(a.astype(np.float32)))
    return arrays


def _copy(arrays):
    return [mx.nd.array(a.asnumpy()) for a in arrays]


def _fused_names(cop):
    return [u.op.name for plan in cop.plans.values() for u in plan.units
            if isinstance(u.op, FusedLayer)]


def _pair(monkeypatch, sym, flags=()):
    """(rewritten, unrewritten) CachedOps of ``sym``: plans read the switch when built."""
    return CachedOp(sym, flags), CachedOp(sym, flags)


def _call(cop, arrays, monkeypatch, on: bool):
    monkeypatch.setenv("GLUONLITE_CPU_REWRITE", "1" if on else "0")
    return cop(*arrays)


@pytest.mark.parametrize("no_bias", [False, True])
@pytest.mark.parametrize("fix_gamma", [False, True])
@pytest.mark.parametrize("act", ["Activation", "relu"])
@pytest.mark.parametrize("static_alloc", [False, True])
def test_fold_in_predict_mode(monkeypatch, no_bias, fix_gamma, act, static_alloc):
    sym = _conv_bn_relu(no_bias=no_bias, fix_gamma=fix_gamma, act=act)
    flags = {"static_alloc": static_alloc, "static_shape": static_alloc}
    new, ref = _pair(monkeypatch, sym, flags)
    arrays = _inputs(new)
    y = _call(new, arrays, monkeypatch, True).asnumpy()
    y_ref = _call(ref, arrays, monkeypatch, False).asnumpy()
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-6)
    assert _fused_names(new) == ["_fused_Convolution_BatchNorm_relu"]
    assert _fused_names(ref) == []
    # parameters and statistics change in place: the fold follows on the next call
    names = new.list_inputs()
    for name in ("conv_weight", "bn_gamma", "bn_moving_mean", "bn_moving_var"):
        a = arrays[names.index(name)]
        a[:] = a.asnumpy() * 1.5 + 0.1
    y = _call(new, arrays, monkeypatch, True).asnumpy()
    y_ref = _call(ref, arrays, monkeypatch, False).asnumpy()
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("data_shape,threads", [((2, 4, 8, 8), False),
                                                ((1, 4, 20, 20), False),
                                                ((2, 4, 20, 20), True)],
                         ids=["rows", "broadcast", "two-threads"])
@pytest.mark.parametrize("relu", [False, True])
def test_fold_shift_on_small_and_large_planes(monkeypatch, data_shape, threads, relu):
    """The folded shift is added as repeated rows on small planes, broadcast on large
    ones (``_fused_conv._BROADCAST_PLANE``), and on large outputs by two threads, half
    the channels each (``_PARALLEL_MIN``, lowered here): all give the unfused result."""
    from gluonlite.ops import _fused_conv
    if threads:
        monkeypatch.setattr(_fused_conv, "_PARALLEL_MIN", 1)
    new, ref = _pair(monkeypatch, _conv_bn_relu(relu=relu))
    arrays = _inputs(new, data_shape)
    y = _call(new, arrays, monkeypatch, True).asnumpy()
    y_ref = _call(ref, arrays, monkeypatch, False).asnumpy()
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-5)
    assert _fused_names(new) == ["_fused_Convolution_BatchNorm" + ("_relu" if relu else "")]


def test_fold_with_use_global_stats_in_train_mode(monkeypatch):
    new, ref = _pair(monkeypatch, _conv_bn_relu(use_global_stats=True))
    arrays = _inputs(new)
    with mx.autograd.train_mode():
        y = _call(new, arrays, monkeypatch, True).asnumpy()
        y_ref = _call(ref, arrays, monkeypatch, False).asnumpy()
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-6)
    assert _fused_names(new) == ["_fused_Convolution_BatchNorm_relu"]


def test_no_fold_with_batch_statistics(monkeypatch):
    new, ref = _pair(monkeypatch, _conv_bn_relu())
    arrays = _inputs(new)
    with mx.autograd.train_mode():
        y = _call(new, arrays, monkeypatch, True).asnumpy()
        y_ref = _call(ref, arrays, monkeypatch, False).asnumpy()
    np.testing.assert_array_equal(y, y_ref)
    assert _fused_names(new) == []


def _grads(cop, arrays, monkeypatch, on, train=True, head=None):
    arrays = _copy(arrays)
    names = cop.list_inputs()
    for name, a in zip(names, arrays):
        if "moving" not in name:
            a.attach_grad()
    monkeypatch.setenv("GLUONLITE_CPU_REWRITE", "1" if on else "0")
    with mx.autograd.record(train_mode=train):
        y = cop(*arrays)
    y.backward(head)
    grads = {n: a.grad.asnumpy() for n, a in zip(names, arrays) if "moving" not in n}
    aux = {n: a.asnumpy() for n, a in zip(names, arrays) if "moving" in n}
    return y.asnumpy(), grads, aux


@pytest.mark.parametrize("act", ["Activation", "relu"])
@pytest.mark.parametrize("no_bias", [False, True])
def test_conv_relu_training_gradients(monkeypatch, act, no_bias):
    sym = _conv_bn_relu(no_bias=no_bias, act=act, bn=False)
    new, ref = _pair(monkeypatch, sym, {"static_alloc": True})
    arrays = _inputs(new, zero_filter=not no_bias)
    y, g, _ = _grads(new, arrays, monkeypatch, True)
    y_ref, g_ref, _ = _grads(ref, arrays, monkeypatch, False)
    np.testing.assert_array_equal(y, y_ref)
    for name in g_ref:
        np.testing.assert_array_equal(g[name], g_ref[name], err_msg=name)
    assert _fused_names(new) == ["_fused_Convolution_relu"]


def test_relu_gradient_is_zero_at_zero(monkeypatch):
    """A conv output of exactly 0 gets no gradient through the fused ReLU (MXNet's rule)."""
    x = mx.sym.var("data")
    sym = mx.sym.Activation(mx.sym.Convolution(x, kernel=(1, 1), num_filter=2, name="conv"),
                            act_type="relu")
    cop = CachedOp(sym)
    names = cop.list_inputs()
    vals = {"data": np.ones((1, 1, 2, 2), np.float32),
            "conv_weight": np.array([0.0, 1.0], np.float32).reshape(2, 1, 1, 1),
            "conv_bias": np.zeros(2, np.float32)}
    arrays = [mx.nd.array(vals[n]) for n in names]
    for a in arrays:
        a.attach_grad()
    monkeypatch.setenv("GLUONLITE_CPU_REWRITE", "1")
    with mx.autograd.record():
        y = cop(*arrays)
    y.backward(mx.nd.ones(y.shape))
    assert _fused_names(cop) == ["_fused_Convolution_relu"]
    dw = arrays[names.index("conv_weight")].grad.asnumpy().ravel()
    np.testing.assert_array_equal(dw, [0.0, 4.0])


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("fix_gamma", [False, True])
def test_batchnorm_recorded_not_folded(monkeypatch, train, fix_gamma):
    """With gradients wanted nothing folds: outputs, gradients and moving statistics
    (updated in backward) equal the unrewritten plan's."""
    sym = _conv_bn_relu(fix_gamma=fix_gamma)
    new, ref = _pair(monkeypatch, sym)
    arrays = _inputs(new)
    head = mx.nd.array(rng.standard_normal((2, 6, 4, 4)).astype(np.float32))
    y, g, aux = _grads(new, arrays, monkeypatch, True, train=train, head=head)
    y_ref, g_ref, aux_ref = _grads(ref, arrays, monkeypatch, False, train=train, head=head)
    np.testing.assert_array_equal(y, y_ref)
    for name in g_ref:
        np.testing.assert_array_equal(g[name], g_ref[name], err_msg=name)
    for name in aux_ref:
        np.testing.assert_array_equal(aux[name], aux_ref[name], err_msg=name)
    assert not any("BatchNorm" in n for n in _fused_names(new))


def test_second_consumer_blocks_fusion(monkeypatch):
    x = mx.sym.var("data")
    c = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=6, name="conv")
    sym = mx.sym.Activation(c, act_type="relu") + c * 2
    new, ref = _pair(monkeypatch, sym)
    arrays = _inputs(new)
    y = _call(new, arrays, monkeypatch, True).asnumpy()
    np.testing.assert_array_equal(y, _call(ref, arrays, monkeypatch, False).asnumpy())
    assert _fused_names(new) == []
    # a BatchNorm output read twice: the fold stays, the ReLU is not absorbed
    b = mx.sym.BatchNorm(c, fix_gamma=False, name="bn")
    sym = mx.sym.Activation(b, act_type="relu") + b
    new, ref = _pair(monkeypatch, sym)
    arrays = _inputs(new)
    y = _call(new, arrays, monkeypatch, True).asnumpy()
    np.testing.assert_allclose(y, _call(ref, arrays, monkeypatch, False).asnumpy(),
                               rtol=1e-5, atol=1e-6)
    assert _fused_names(new) == ["_fused_Convolution_BatchNorm"]


def test_pinned_outputs_block_fusion(monkeypatch):
    x = mx.sym.var("data")
    c = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=6, name="conv")
    b = mx.sym.BatchNorm(c, fix_gamma=False, output_mean_var=True, name="bn")
    sym = mx.sym.Group([mx.sym.Activation(b[0], act_type="relu"), b[1]])
    new, ref = _pair(monkeypatch, sym)
    arrays = _inputs(new)
    outs = _call(new, arrays, monkeypatch, True)
    outs_ref = _call(ref, arrays, monkeypatch, False)
    for o, r in zip(outs, outs_ref):
        np.testing.assert_array_equal(o.asnumpy(), r.asnumpy())
    assert _fused_names(new) == []
    sym = mx.sym.Group([c, mx.sym.Activation(c, act_type="relu")])  # conv output is a head
    new = CachedOp(sym)
    _call(new, _inputs(new), monkeypatch, True)
    assert _fused_names(new) == []


def test_dense_relu_fuses_in_inference_only(monkeypatch):
    x = mx.sym.var("data")
    sym = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=5, name="fc"),
                            act_type="relu")
    new, ref = _pair(monkeypatch, sym)
    arrays = [mx.nd.array(rng.standard_normal(s).astype(np.float32))
              for s in ((3, 4), (5, 4), (5,))]
    y = _call(new, arrays, monkeypatch, True).asnumpy()
    np.testing.assert_array_equal(y, _call(ref, arrays, monkeypatch, False).asnumpy())
    assert _fused_names(new) == ["_fused_FullyConnected_relu"]
    new2 = CachedOp(sym)
    _, g, _ = _grads(new2, arrays, monkeypatch, True)
    assert _fused_names(new2) == []


def test_nan_semantics_kept(monkeypatch):
    """``Activation(relu)`` maps NaN to 0, ``relu`` keeps it, fused or not."""
    for act in ("Activation", "relu"):
        sym = _conv_bn_relu(act=act, bn=False, relu=True)
        new, ref = _pair(monkeypatch, sym)
        arrays = _inputs(new)
        data = arrays[0].asnumpy()
        data[0, 0, 2, 2] = np.nan
        arrays[0] = mx.nd.array(data)
        y = _call(new, arrays, monkeypatch, True).asnumpy()
        np.testing.assert_array_equal(y, _call(ref, arrays, monkeypatch, False).asnumpy())


def test_monitor_disables_rewrite(monkeypatch):
    monkeypatch.setenv("GLUONLITE_CPU_REWRITE", "1")
    sym = _conv_bn_relu()
    cop = CachedOp(sym)
    arrays = _inputs(cop)
    given = dict(zip(cop.list_inputs(), _copy(arrays)))
    aux = {n: given.pop(n) for n in list(given) if "moving" in n}
    exe = sym.bind(mx.cpu(), given, grad_req="null", aux_states=aux)
    y_plain = exe.forward(is_train=False)[0].asnumpy()
    mon = mx.mon.Monitor(1, pattern=".*")
    mon.install(exe)
    mon.tic()
    y = exe.forward(is_train=False)[0].asnumpy()
    names = [name for _, name, _ in mon.toc()]
    for node in ("conv_output", "bn_output", "act_output"):
        assert node in names, (node, names)
    np.testing.assert_allclose(y, y_plain, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, cop(*arrays).asnumpy(), rtol=1e-5, atol=1e-6)
    assert _fused_names(cop) == ["_fused_Convolution_BatchNorm_relu"]


def test_debug_poisoned_buffers(monkeypatch):
    sym = _conv_bn_relu()
    new, ref = _pair(monkeypatch, sym, {"debug": True, "static_alloc": True})
    arrays = _inputs(new)
    for _ in range(2):
        y = _call(new, arrays, monkeypatch, True).asnumpy()
        y_ref = _call(ref, arrays, monkeypatch, False).asnumpy()
        np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-6)


def test_gluon_predict_and_train_steps(monkeypatch):
    """A hybridized Conv2D-BatchNorm-relu net: predict mode matches the imperative net,
    and a recorded training step updates the same parameters and statistics."""
    monkeypatch.setenv("GLUONLITE_CPU_REWRITE", "1")

    def make():
        net = mx.gluon.nn.HybridSequential()
        net.add(mx.gluon.nn.Conv2D(4, 3, padding=1, activation="relu"),
                mx.gluon.nn.Conv2D(4, 3, padding=1), mx.gluon.nn.BatchNorm(),
                mx.gluon.nn.Activation("relu"), mx.gluon.nn.Dense(3))
        net.initialize(mx.init.Xavier())
        return net

    a, b = make(), make()
    a.hybridize(static_alloc=True)
    x = mx.nd.array(rng.standard_normal((2, 3, 6, 6)).astype(np.float32))
    a(x)
    b(x)
    for pa, pb in zip(a.collect_params().values(), b.collect_params().values()):
        pb.set_data(pa.data().copy())
    np.testing.assert_allclose(a(x).asnumpy(), b(x).asnumpy(), rtol=1e-5, atol=1e-5)
    for net in (a, b):
        with mx.autograd.record():
            loss = net(x).sum()
        loss.backward()
    for (na, pa), (_, pb) in zip(a.collect_params().items(), b.collect_params().items()):
        np.testing.assert_allclose(pa.data().asnumpy(), pb.data().asnumpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=na)
        if pa.grad_req != "null":
            np.testing.assert_allclose(pa.grad().asnumpy(), pb.grad().asnumpy(), rtol=1e-4,
                                       atol=1e-5, err_msg=na)
    np.testing.assert_allclose(a(x).asnumpy(), b(x).asnumpy(), rtol=1e-5, atol=1e-5)
    assert "_fused_Convolution_BatchNorm_relu" in _fused_names(a._cached_op)


@pytest.mark.parametrize("no_bias", [False, True])
def test_fold_scales_output_when_weight_is_larger(monkeypatch, no_bias):
    """Outputs smaller than the weight: the step scales the output instead."""
    new, ref = _pair(monkeypatch, _conv_bn_relu(no_bias=no_bias), {"static_alloc": True})
    arrays = _inputs(new, data_shape=(1, 16, 2, 2))
    y = _call(new, arrays, monkeypatch, True).asnumpy()
    np.testing.assert_allclose(y, _call(ref, arrays, monkeypatch, False).asnumpy(),
                               rtol=1e-5, atol=1e-6)
    fused = [u.op for plan in new.plans.values() for u in plan.units
             if isinstance(u.op, FusedLayer)]
    assert len(fused) == 1 and fused[0].post_scale


def test_fold_of_negative_variance_is_silent(monkeypatch):
    """A negative moving variance (untrained statistics) gives nan, as unfused, and no
    NumPy RuntimeWarning."""
    import warnings
    new, ref = _pair(monkeypatch, _conv_bn_relu(relu=False))
    arrays = _inputs(new)
    names = new.list_inputs()
    arrays[names.index("bn_moving_var")][:] = -1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        y = _call(new, arrays, monkeypatch, True).asnumpy()
    assert _fused_names(new) == ["_fused_Convolution_BatchNorm"]
    assert np.isnan(y).all()
