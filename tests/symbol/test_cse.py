"""Common subexpression elimination in bound executors (MXNet's savings, same results)."""
import numpy as np
import pytest

import gluonlite as mx


def _bind(sym, monkeypatch, flag, grad_req="write", **shapes):
    monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", flag)
    return sym.simple_bind(mx.cpu(), grad_req=grad_req, **shapes)


def _cases():
    a, b, c = (mx.sym.Variable(n) for n in "abc")
    d = a + 1
    # (symbol, arguments, nodes saved: MXNet 1.9.1's test_eliminate_common_expr)
    return [((a + 1) + (a + 2), "a", 0), ((a + b) + (a + b), "ab", 1),
            (((a + b) + c) + ((a + b) + c), "abc", 2),
            (mx.sym.Group([a * d, a * d]), "a", 0),       # merged, then a copy for the head
            (mx.sym.Group([a * d + b, a * d + b]), "ab", 1),
            (mx.sym.Dropout(a) + mx.sym.Dropout(a), "a", 0)]  # random: never merged


@pytest.mark.parametrize("case", range(6))
@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_savings_and_results_match_mxnet(monkeypatch, case, grad_req):
    sym, names, saved = _cases()[case]
    shapes = {n: (3, 4) for n in names}
    rng = np.random.default_rng(case)
    data = {n: mx.nd.array(rng.uniform(size=(3, 4))) for n in names}
    plain = _bind(sym, monkeypatch, "0", grad_req, **shapes)
    merged = _bind(sym, monkeypatch, "1", grad_req, **shapes)
    assert len(plain.get_optimized_symbol().get_internals()) == \
        len(merged.get_optimized_symbol().get_internals()) + saved
    if case == 5:
        return  # Dropout draws differ between the two executors
    outs = []
    for exe in (plain, merged):
        y = exe.forward(is_train=True, **data)
        exe.backward([mx.nd.ones_like(o) for o in y])
        outs.append([o.asnumpy() for o in y] + [g.asnumpy() for g in exe.grad_arrays])
    for p, m in zip(*outs):
        np.testing.assert_allclose(m, p, rtol=1e-6)
    assert merged.outputs[0] is not merged.outputs[-1] or len(merged.outputs) == 1
