"""``mx.random`` / ``nd.random``: seeding, dispatch by argument type, signatures and
parameter checks (the samplers' distributions are checked by the op harness samples)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

nd = mx.nd

_DRAWS = [
    lambda: nd.random.uniform(-1, 2, shape=(3, 4)),
    lambda: nd.random.normal(0, 1, shape=5),
    lambda: nd.random.randn(2, 3),
    lambda: nd.random.randint(0, 100, shape=(6,)),
    lambda: nd.random.exponential(2.0, shape=4),
    lambda: nd.random.gamma(2, 1, shape=4),
    lambda: nd.random.poisson(3, shape=4),
    lambda: nd.random.negative_binomial(3, 0.5, shape=4),
    lambda: nd.random.generalized_negative_binomial(2, 0.5, shape=4),
    lambda: nd.random.normal(nd.array([0.0, 5.0]), nd.array([1.0, 2.0]), shape=3),
    lambda: nd.random.multinomial(nd.array([[0.2, 0.3, 0.5]]), shape=8),
    lambda: nd.random.shuffle(nd.arange(10)),
    lambda: nd.random.uniform_like(nd.zeros((2, 2))),
    lambda: mx.random.uniform(shape=(2,)),
]


@pytest.mark.parametrize("draw", _DRAWS, ids=range(len(_DRAWS)))
def test_seed_makes_draws_repeatable(draw):
    mx.random.seed(1234)
    a = [draw().asnumpy() for _ in range(2)]
    mx.random.seed(1234)
    b = [draw().asnumpy() for _ in range(2)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_different_seeds_differ():
    mx.random.seed(1)
    a = nd.random.uniform(shape=(50,)).asnumpy()
    mx.random.seed(2)
    b = nd.random.uniform(shape=(50,)).asnumpy()
    assert not np.array_equal(a, b)


def test_negative_and_large_seeds_work_as_a_c_int():
    # MXNet takes any int as a C int (MXNet's own test_random_seed draws negative seeds)
    for seed, same in [(-5, 2 ** 32 - 5), (-(1 << 31), 1 << 31), (2 ** 32 + 3, 3)]:
        mx.random.seed(seed)
        a = nd.random.uniform(shape=(6,)).asnumpy()
        mx.random.seed(same, ctx=mx.cpu())
        b = nd.random.uniform(shape=(6,)).asnumpy()
        np.testing.assert_array_equal(a, b)


def test_seed_one_context():
    mx.random.seed(7, ctx=mx.cpu())
    a = nd.random.normal(shape=(4,)).asnumpy()
    mx.random.seed(7, ctx=mx.cpu(0))
    b = nd.random.normal(shape=(4,)).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_seed_rejects_non_int():
    with pytest.raises(ValueError):
        mx.random.seed(1.5)


def test_scalar_params_give_random_op():
    y = nd.random.uniform()
    assert y.shape == (1,) and y.dtype == np.float32
    y = nd.random.normal(1, 2, shape=(2, 3), dtype="float64")
    assert y.shape == (2, 3) and y.dtype == np.float64
    assert nd.random.randint(-2, 3, shape=(4,)).dtype == np.int32
    assert nd.random.randint(-2, 3, shape=4, dtype="int64").dtype == np.int64
    assert nd.random.uniform(shape=2, ctx=mx.cpu()).context == mx.cpu()


def test_array_params_give_sample_op():
    mu = nd.array([0.0, 10.0], dtype="float64")
    sigma = nd.array([1.0, 2.0], dtype="float64")
    y = nd.random.normal(mu, sigma, shape=(3, 4))
    assert y.shape == (2, 3, 4) and y.dtype == np.float32
    assert nd.random.normal(mu, sigma).shape == (2,)
    y = nd.random.uniform(nd.array([[0, 1], [2, 3]]), nd.array([[1, 2], [3, 4]]), shape=2)
    assert y.shape == (2, 2, 2)
    lows = np.array([[0, 1], [2, 3]])[..., None]
    assert np.all((y.asnumpy() >= lows) & (y.asnumpy() < lows + 1))


def test_mixed_or_bad_params_raise():
    with pytest.raises(AssertionError, match="same type"):
        nd.random.normal(nd.array([0.0]), 1)
    with pytest.raises(ValueError, match="NDArray or numbers"):
        nd.random.normal("a")
    with pytest.raises(MXNetError):
        nd.random.randint(nd.array([0]), nd.array([3]))


def test_exponential_takes_a_scale():
    mx.random.seed(3)
    assert abs(nd.random.exponential(4, shape=20000).asnumpy().mean() - 4) < 0.2
    y = nd.random.exponential(nd.array([1.0, 100.0]), shape=5000).asnumpy().mean(axis=1)
    np.testing.assert_allclose(y, [1, 100], rtol=0.1)


def test_randn_signature():
    assert nd.random.randn(2, 3).shape == (2, 3)
    mx.random.seed(4)
    y = nd.random.randn(4000, loc=5, scale=0.1).asnumpy()
    assert abs(y.mean() - 5) < 0.02 and abs(y.std() - 0.1) < 0.01


def test_out_argument():
    buf = nd.zeros((2, 3))
    assert nd.random.uniform(shape=(2, 3), out=buf) is buf
    assert nd.random.normal(out=buf) is buf and buf.asnumpy().std() > 0


def test_like_samplers():
    d = nd.zeros((3, 4), dtype="float64")
    y = nd.random.uniform_like(d, 2, 3)
    assert y.shape == (3, 4) and y.dtype == np.float64
    assert y.asnumpy().min() >= 2 and y.asnumpy().max() < 3
    assert nd.random.normal_like(d, loc=1, scale=0.5).shape == (3, 4)
    assert nd.random.poisson_like(d, lam=2).dtype == np.float64


def test_mx_random_reexports():
    for name in ("uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson",
                 "negative_binomial", "generalized_negative_binomial", "multinomial",
                 "shuffle"):
        assert getattr(mx.random, name) is getattr(nd.random, name)


@pytest.mark.parametrize("call,match", [
    (lambda: nd.random.uniform(2, 1, shape=3), "low must be less or equal"),
    (lambda: nd.random.normal(0, -1, shape=3), "scale"),
    (lambda: nd.random.gamma(-1, 1, shape=2), "alpha"),
    (lambda: nd.random.poisson(-1, shape=2), "lambda"),
    (lambda: nd.random.exponential(-1, shape=2), "lambda"),
    (lambda: nd.random.randint(5, 5, shape=2), "low must be less than high"),
    (lambda: nd.random.uniform(shape=2, dtype="int32"), "dtype"),
])
def test_parameter_checks(call, match):
    with pytest.raises(MXNetError, match=match):
        call()


def test_multinomial_shapes_and_log_prob_gradient():
    p = nd.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    assert nd.random.multinomial(p).shape == (2,)
    assert nd.random.multinomial(p, shape=(4,)).shape == (2, 4)
    assert nd.random.multinomial(nd.array([0.2, 0.8])).shape == (1,)
    assert nd.random.multinomial(p, dtype="float32").dtype == np.float32
    p.attach_grad()
    with mx.autograd.record():
        s, logp = nd.random.multinomial(p, shape=(3,), get_prob=True)
    assert s.dtype == np.int32 and logp.dtype == np.float32
    np.testing.assert_allclose(logp.asnumpy(),
                               np.log(np.take_along_axis(p.asnumpy(), s.asnumpy(), 1)),
                               rtol=1e-6)
    logp.backward(nd.ones_like(logp) * 2)
    expected = np.zeros((2, 3))
    for row in range(2):
        for j in s.asnumpy()[row]:
            expected[row, j] += 2 / p.asnumpy()[row, j]
    np.testing.assert_allclose(p.grad.asnumpy(), expected, rtol=1e-5)


def test_multinomial_unnormalized_takes_first_crossing():
    # like MXNet: the cumulative sum is compared with a uniform draw in [0, 1)
    s = nd.random.multinomial(nd.array([2.0, 6.0]), shape=(100,)).asnumpy()
    assert np.all(s == 0)


def test_shuffle_permutes_first_axis():
    x = nd.array(np.arange(12).reshape(4, 3))
    y = nd.random.shuffle(x).asnumpy()
    assert sorted(map(tuple, y.tolist())) == sorted(map(tuple, x.asnumpy().tolist()))


def test_sampler_inference():
    op = mx.ops.get_op("_sample_normal")
    attrs = op.parse_attrs({"shape": (3,)})
    assert op.infer_shape(attrs, [(2, 2), None]) == ([(2, 2), (2, 2)], [(2, 2, 3)])
    assert op.infer_type(attrs, [np.dtype("float64"), None]) == (
        [np.dtype("float64")] * 2, [np.dtype("float32")])
    op = mx.ops.get_op("_sample_multinomial")
    attrs = op.parse_attrs({"shape": (3,), "get_prob": True})
    assert op.infer_type(attrs, [np.dtype("float64")])[1] == [np.dtype("int32"),
                                                             np.dtype("float64")]
    assert op.infer_shape(attrs, [(2, 5)])[1] == [(2, 3), (2, 3)]
    op = mx.ops.get_op("_random_randint")
    assert op.infer_type(op.parse_attrs({"low": 0, "high": 2, "shape": (2,)}), [])[1] == \
        [np.dtype("int32")]


def test_out_of_a_dtype_the_sampler_cannot_draw_is_refused_as_in_mxnet():
    import gluonlite as mx
    ints = mx.nd.zeros((3,), dtype="int32")
    with pytest.raises(mx.MXNetError, match="_random_uniform"):
        mx.nd.random.uniform(0, 10, shape=(3,), out=ints)
    doubles = mx.nd.zeros((3,), dtype="float64")
    mx.nd.random.uniform(0, 10, out=doubles)
    assert doubles.dtype == np.float64 and (doubles.asnumpy() > 0).any()
    mx.nd.random.randint(0, 10, out=ints)
    assert ints.dtype == np.int32
