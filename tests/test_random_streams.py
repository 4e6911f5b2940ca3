"""Seeded CPU draws are MXNet 1.9.1's: its uniform and normal samplers (scalar, ``_like``
and ``_sample_`` forms, imperative and symbolic), Dropout's masks and the initializers
built on them.  Fixture: ``tests/fixtures/gen_random_streams.py``."""
import os
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import _rng
from tests.fresh_interpreter import assert_runs_ok

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, FIX)

import random_streams_cases as cases  # noqa: E402

REF = np.load(os.path.join(FIX, "random_streams.npz"))
# libstdc++'s polar method takes the C library's logf/log, whose last bit differs from
# a correctly rounded log on a few values: those normal draws differ by 1 ulp
NORMAL = {"normal_5", "normal_5000", "normal_float64", "randn", "normal_like", "sample_normal",
          "init_weight_1", "init_weight_3", "init_weight_4"}


@pytest.fixture(scope="module")
def drawn():
    return cases.draws(mx)


@pytest.mark.parametrize("case", [k for k in REF.files if k != "unseeded"])
def test_seeded_draws_are_mxnets(drawn, case):
    got, want = drawn[case], REF[case]
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype)
    if case in NORMAL:
        # 1 ulp of a N(0, 1) draw, then scaled and shifted
        eps = 4 * np.finfo(want.dtype).eps
        np.testing.assert_allclose(got, want, rtol=eps, atol=eps * np.abs(want).max())
        assert np.mean(got != want) < 0.01, case
    else:
        np.testing.assert_array_equal(got, want)


def test_unseeded_process_starts_at_seed_zero():
    want = REF["unseeded"].tolist()
    code = (cases.UNSEEDED.replace("import mxnet as mx", "import gluonlite as mx")
            .replace("print(", f"got = (") + f"\nassert got == {want!r}, got\nprint('ok')")
    assert_runs_ok(code)


def test_chunks_cover_every_draw_once():
    for count in (0, 1, 63, 64, 65, 1000, 65536, 65537, 70000, 10 ** 6 + 3):
        chunks = _rng.MXNetCPUStream._chunks(count)
        assert len(chunks) <= 1024
        covered = np.concatenate([np.arange(a, b) for _, a, b in chunks] or [np.empty(0)])
        np.testing.assert_array_equal(covered, np.arange(count))


def test_same_seed_same_draws_every_distribution():
    def run():
        mx.random.seed(11)
        return [mx.nd.random.gamma(2, 1, shape=(50,)).asnumpy(),
                mx.nd.random.poisson(3, shape=(50,)).asnumpy(),
                mx.nd.random.uniform(shape=(700,)).asnumpy(),
                mx.nd.random.normal(shape=(700,)).asnumpy(),
                mx.nd.random.randint(0, 9, shape=(20,)).asnumpy()]
    for a, b in zip(run(), run()):
        np.testing.assert_array_equal(a, b)



@pytest.mark.parametrize("inclusive", [True, False])
@pytest.mark.parametrize("bound", [0.0, 1e-10, 0.3, 0.5, 0.7, float(np.nextafter(
    np.float32(1), np.float32(0))), 1.0])
def test_dropout_test_on_words_is_the_float_test(bound, inclusive):
    # Dropout compares the 32-bit words with a precomputed limit; it must keep exactly
    # the draws whose float value passes MXNet's float comparison, edges included
    words, floats = _rng.MXNetCPUStream(9), _rng.MXNetCPUStream(9)
    shape = (7, 300)
    got = words.uniform01_below(shape, bound, inclusive, double=False)
    u = floats.uniform01(shape, double=False)
    want = u <= np.float32(bound) if inclusive else u < np.float32(bound)
    np.testing.assert_array_equal(got, want)
    limit = _rng._words_below(float(np.float32(bound)), inclusive)
    edge = _rng.MXNetCPUStream._canonical(
        np.array([max(limit - 1, 0), min(limit, 2 ** 32 - 1)], np.uint64), False)
    passes = (lambda v: v <= np.float32(bound)) if inclusive else (lambda v: v < np.float32(bound))
    assert limit == 0 or passes(edge[0])
    assert limit == 2 ** 32 or not passes(edge[1])
