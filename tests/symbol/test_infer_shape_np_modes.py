"""``infer_shape``/``infer_shape_partial`` under MXNet 1.x and NumPy shape semantics.

Legacy mode: an unknown shape is ``()`` and an unknown dim 0 (a given -1 reads as 0).
NumPy shape mode (``mx.np_shape()``): an unknown shape is ``None``, an unknown dim -1
and 0 a zero-size dim.  Every expected value below is what MXNet 1.9.1 returns
(``~/.venvs/mxnet-ref``, its test_infer_shape.py / test_operator.py cases and direct
runs), recorded as literals.
"""
import warnings

import pytest

import gluonlite as mx


def _partial_out(sym, **shapes):
    return sym.infer_shape_partial(**shapes)[1]


def _full(sym, **shapes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sym.infer_shape(**shapes)


def test_completely_unknown_shape():
    ret = mx.sym.sin(mx.sym.var("data"))
    assert ret.infer_shape_partial() == ([()], [()], [])
    with mx.np_shape():
        assert ret.infer_shape_partial() == ([None], [None], [])
        assert _full(ret) == (None, None, None)


def test_legacy_mode_reads_minus_one_and_empty_shape_as_unknown():
    ret = mx.sym.sin(mx.sym.var("x"))
    assert ret.infer_shape_partial(x=(-1, 3)) == ([(0, 3)], [(0, 3)], [])
    assert ret.infer_shape_partial(x=()) == ([()], [()], [])
    assert _full(ret, x=()) == (None, None, None)
    assert _full(ret, x=(2, 0)) == (None, None, None)


def test_np_mode_zero_is_a_dimension():
    x = mx.sym.var("x")
    ret = mx.sym.sin(x)
    with mx.np_shape():
        assert _full(ret, x=(0, 3)) == ([(0, 3)], [(0, 3)], [])
        assert _full(ret, x=(2, 0)) == ([(2, 0)], [(2, 0)], [])
        assert _full(ret, x=()) == ([()], [()], [])
        assert ret.infer_shape_partial(x=(-1, 3)) == ([(-1, 3)], [(-1, 3)], [])
        assert _full(ret, x=(-1, 3)) == (None, None, None)
        fc = mx.sym.FullyConnected(x, num_hidden=4, name="fc")
        assert _full(fc, x=(0, 3)) == ([(0, 3), (4, 3), (4,)], [(0, 4)], [])
        assert fc.infer_shape_partial(x=(-1, 3)) == ([(-1, 3), (4, 3), (4,)], [(-1, 4)], [])
        y = mx.sym.var("y")
        assert _full(mx.sym.dot(x, y), x=(2, 3, 0), y=(0, 5)) == \
            ([(2, 3, 0), (0, 5)], [(2, 3, 5)], [])


def test_np_mode_variable_shape_hint():
    with mx.np_shape():
        v = mx.sym.var("v", shape=(-1, 3))
        assert mx.sym.sin(v).infer_shape_partial() == ([(-1, 3)], [(-1, 3)], [])
    v = mx.sym.var("v", shape=(0, 3))
    assert mx.sym.sin(v).infer_shape_partial() == ([(0, 3)], [(0, 3)], [])


def test_dot_partial_shape():
    z = mx.sym.dot(mx.sym.var("x"), mx.sym.var("y"))
    assert _partial_out(z, x=(0, 3, 4), y=(4, 5)) == [(0, 3, 5)]
    with mx.np_shape(True):
        assert _partial_out(z, x=(-1, 3, 4), y=(4, 5)) == [(-1, 3, 5)]
        assert _full(z, x=(0, 3, 4), y=(4, 5)) == ([(0, 3, 4), (4, 5)], [(0, 3, 5)], [])


def test_batch_dot_partial_shape():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    z = mx.sym.batch_dot(x, y)
    assert _partial_out(z, x=(0, 3, 4), y=(0, 4, 5)) == [(0, 3, 5)]
    # rhs's second dim unknown: nothing inferred, rhs left as given
    assert z.infer_shape_partial(x=(0, 3, 4), y=(0, 0, 5)) == \
        ([(0, 3, 4), (0, 0, 5)], [()], [])
    with mx.np_shape(True):
        assert _partial_out(z, x=(-1, 3, 4), y=(-1, 4, 5)) == [(-1, 3, 5)]
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(-1, -1, 5)) == \
            ([(-1, 3, 4), (-1, -1, 5)], [None], [])


def test_embedding_partial_shape():
    y = mx.sym.Embedding(data=mx.sym.var("x"), weight=mx.sym.var("w"), input_dim=100,
                         output_dim=10)
    assert _partial_out(y, x=(0, 5), w=(100, 10)) == [(0, 5, 10)]
    with mx.np_shape(True):
        assert _partial_out(y, x=(-1, 5), w=(100, 10)) == [(-1, 5, 10)]


def test_transpose_partial_shape():
    y = mx.sym.transpose(mx.sym.var("x"), axes=[0, 3, 2, 1])
    assert _partial_out(y, x=(0, 3, 224, 224)) == [(0, 224, 224, 3)]
    with mx.np_shape(True):
        assert _partial_out(y, x=(-1, 3, 224, 224)) == [(-1, 224, 224, 3)]


def test_pick_partial_shape():
    y = mx.sym.pick(mx.sym.var("x"), mx.sym.var("index"), axis=1)
    assert _partial_out(y, x=(0, 3, 3), index=(0, 3)) == [(0, 3)]
    with mx.np_shape(True):
        assert _partial_out(y, x=(-1, 3, 3), index=(-1, 3)) == [(-1, 3)]


def test_where_needs_a_known_condition():
    w = mx.sym.where(mx.sym.var("cond"), mx.sym.var("x"), mx.sym.var("y"))
    assert w.infer_shape_partial(cond=(0, 2), x=(0, 2), y=(0, 2)) == \
        ([(0, 2), (0, 2), (0, 2)], [()], [])
    assert w.infer_shape_partial(cond=(0,), x=(2, 2), y=(2, 2)) == \
        ([(0,), (2, 2), (2, 2)], [()], [])
    with mx.np_shape(True):
        assert w.infer_shape_partial(cond=(-1, 2), x=(-1, 2), y=(-1, 2)) == \
            ([(-1, 2), (-1, 2), (-1, 2)], [None], [])
        assert w.infer_shape_partial(cond=(-1,), x=(2, 2), y=(2, 2)) == \
            ([(-1,), (2, 2), (2, 2)], [None], [])


@pytest.mark.parametrize("np_mode, shape, expected", [
    (False, (0, 20), [(0, 10), (0, 5), (0, 7), (0, 7), (0, 7), (0, 7), (0, 3)]),
    (True, (-1, 20), [(-1, 10), (-1, 5), (-1, 7), (-1, 7), (-1, 7), (-1, 7), (-1, 3)]),
])
def test_slice_partial_shape(np_mode, shape, expected):
    cases = [((None, None), (None, 10), []), ((None, None), (None, 10), (None, 2)),
             ((None, 3), (None, 10), []), ((None, 3), (5, 10), []),
             ((2, 3), (None, 10), []), ((2, 3), (None, 10), (None, 1)),
             ((2, 3), (None, 10), (3, 3))]
    with mx.np_shape(np_mode):
        data = mx.sym.var("data", shape=shape)
        got = [_partial_out(mx.sym.slice(data, begin=b, end=e, step=s))[0]
               for b, e, s in cases]
    assert got == expected


@pytest.mark.parametrize("np_mode, unknown", [(False, 0), (True, -1)])
def test_slice_axis_partial_shape(np_mode, unknown):
    with mx.np_shape(np_mode):
        data = mx.sym.var("data", shape=(10, unknown))
        assert _partial_out(mx.sym.slice_axis(data, axis=0, begin=0, end=5)) == \
            [(5, unknown)]
        assert _partial_out(mx.sym.slice_axis(data, axis=1, begin=0, end=5)) == \
            [(10, unknown)]


@pytest.mark.parametrize("np_mode", [False, True])
def test_creation_with_unknown_dims_and_transpose_back_inference(np_mode):
    with mx.np_shape(np_mode):
        ones = mx.sym.ones(shape=[2, -1])
        assert _partial_out(ones) == [(2, -1) if np_mode else (2, 0)]
        mixed = ones + mx.sym.transpose(mx.sym.ones(shape=[3, -1]))
        assert _partial_out(mixed) == [(2, 3)]
        back = mx.sym.ones(shape=[2, 3]) + mx.sym.transpose(mx.sym.ones(shape=[-1, -1]))
        assert _partial_out(back) == [(2, 3)]
        for sym in (mixed, back):
            out = sym.bind(mx.cpu(), args={}).forward()[0]
            assert out.shape == (2, 3) and float(out.asnumpy().sum()) == 12.0
