"""MXNet 1.9.1's DGL graph operators (``gluonlite/ops/dgl_graph.py``): the deterministic
ones and the samplers where every neighbour is taken against MXNet (fixture
``dgl_graph.npz`` from ``tests/fixtures/gen_dgl_graph.py``), the random draws by their
invariants and frequencies, and the errors."""
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "dgl_graph.npz"))
N = 30
G = mx.nd.sparse.csr_matrix((F["g_data"], F["g_indices"], F["g_indptr"]), shape=(N, N))
DEG = int(np.diff(F["g_indptr"]).max())
CASES = sorted({k.split("_")[0] for k in F.files if k.startswith("case")})


def _csr_equal(a, key):
    assert a.stype == "csr"
    assert a.shape == tuple(F[key + "_shape"])
    np.testing.assert_array_equal(a.indptr.asnumpy(), F[key + "_indptr"])
    np.testing.assert_array_equal(a.indices.asnumpy(), F[key + "_indices"])
    np.testing.assert_array_equal(a.data.asnumpy(), F[key + "_data"])
    assert a.data.dtype == F[key + "_data"].dtype


def test_edge_id():
    gf = mx.nd.sparse.csr_matrix((F["g_data"].astype(np.float32) * 0.5, F["g_indices"],
                                  F["g_indptr"]), shape=(N, N))
    out = mx.nd.contrib.edge_id(gf, mx.nd.array(F["u"]), mx.nd.array(F["v"]))
    assert out.dtype == np.float32 and out.stype == "default"
    np.testing.assert_array_equal(out.asnumpy(), F["edge_id"])
    out = mx.nd.contrib.edge_id(G, mx.nd.array(F["u"], dtype="int64"),
                                mx.nd.array(F["v"], dtype="int64"))
    np.testing.assert_array_equal(out.asnumpy(), F["edge_id_int"])


def test_adjacency():
    _csr_equal(mx.nd.contrib.dgl_adjacency(G), "adj")


def test_subgraph_with_mapping():
    subs = mx.nd.contrib.dgl_subgraph(G, mx.nd.array(F["v0"], dtype="int64"),
                                      mx.nd.array(F["v1"], dtype="int64"),
                                      return_mapping=True)
    assert len(subs) == 4
    for i, s in enumerate(subs):
        _csr_equal(s, f"sub{i}")
    one = mx.nd.contrib.dgl_subgraph(G, mx.nd.array(F["v0"], dtype="int64"),
                                     return_mapping=False)
    _csr_equal(one, "sub0")


@pytest.mark.parametrize("case", CASES)
def test_samplers_taking_every_neighbour(case):
    seeds = mx.nd.array(F[case + "_seeds"], dtype="int64")
    hops, cap = (int(x) for x in F[case + "_cfg"])
    out = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
        G, seeds, num_args=2, num_hops=hops, num_neighbor=DEG, max_num_vertices=cap)
    assert len(out) == 3
    n = int(F[case + "_ids"][-1])
    ids = out[0].asnumpy()  # past the n vertices MXNet leaves memory uninitialized
    np.testing.assert_array_equal(ids[:n], F[case + "_ids"][:n])
    assert ids[-1] == n and not ids[n:-1].any()
    _csr_equal(out[1], case + "_sub")
    np.testing.assert_array_equal(out[2].asnumpy()[:n], F[case + "_layer"][:n])
    w = mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(
        G, mx.nd.array(F["prob"]), seeds, num_args=3, num_hops=hops, num_neighbor=DEG,
        max_num_vertices=cap)
    assert len(w) == 4
    np.testing.assert_array_equal(w[0].asnumpy()[:n], F[case + "_w_ids"][:n])
    _csr_equal(w[1], case + "_w_sub")
    np.testing.assert_array_equal(w[2].asnumpy()[:n], F[case + "_w_prob"][:n])
    np.testing.assert_array_equal(w[3].asnumpy()[:n], F[case + "_w_layer"][:n])
    if case + "_compact_indptr" in F.files:
        compact = mx.nd.contrib.dgl_graph_compact(out[1], out[0], graph_sizes=(n,),
                                                  return_mapping=False)
        _csr_equal(compact, case + "_compact")


def _row_edges(sub, ids, n):
    ptr, cols, eids = (x.asnumpy() for x in (sub.indptr, sub.indices, sub.data))
    return {int(ids[r]): (cols[ptr[r]:ptr[r + 1]], eids[ptr[r]:ptr[r + 1]]) for r in range(n)}


@pytest.mark.parametrize("weighted", [False, True])
def test_sampler_invariants(weighted):
    """Sampled edges are edges of the graph with their ids, min(degree, k) per expanded
    vertex, vertices sorted and unique, layers within num_hops."""
    mx.random.seed(3)
    indptr, indices, data = F["g_indptr"], F["g_indices"], F["g_data"]
    k = 2
    for seeds in ([0, 1, 2], [5], [7, 7, 9]):
        s = mx.nd.array(seeds, dtype="int64")
        if weighted:
            out = mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(
                G, mx.nd.array(F["prob"]), s, num_hops=2, num_neighbor=k,
                max_num_vertices=20)
            ids, sub, layer = out[0], out[1], out[3]
        else:
            ids, sub, layer = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
                G, s, num_hops=2, num_neighbor=k, max_num_vertices=20)
        ids = ids.asnumpy()
        n = int(ids[-1])
        assert np.all(np.diff(ids[:n]) > 0) and set(seeds) <= set(ids[:n])
        assert np.all(layer.asnumpy()[:n] <= 2)
        sub.check_format(full_check=True)
        for vtx, (cols, eids) in _row_edges(sub, ids, n).items():
            row = slice(indptr[vtx], indptr[vtx + 1])
            lookup = dict(zip(indices[row], data[row]))
            assert len(cols) in (0, min(k, indptr[vtx + 1] - indptr[vtx]))
            assert all(lookup[c] == e for c, e in zip(cols, eids))
            if weighted:
                assert np.all(np.diff(cols) > 0)


@pytest.mark.parametrize("weighted", [False, True])
def test_sampler_frequencies(weighted):
    """One hop, one neighbour from a vertex with 4 neighbours: uniform, or proportional
    to the probabilities (MXNet's heap draws successively by weight)."""
    indptr = np.array([0, 4, 4, 4, 4, 4], dtype=np.int64)
    indices = np.array([1, 2, 3, 4], dtype=np.int64)
    g = mx.nd.sparse.csr_matrix((np.arange(4, dtype=np.int64), indices, indptr), shape=(5, 5))
    prob = np.array([0, 0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    mx.random.seed(0)
    counts = np.zeros(5)
    trials = 2000
    for _ in range(trials):  # noqa: statistics over many calls
        s = mx.nd.array([0], dtype="int64")
        if weighted:
            sub = mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(
                g, mx.nd.array(prob), s, num_neighbor=1, max_num_vertices=5)[1]
        else:
            sub = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
                g, s, num_neighbor=1, max_num_vertices=5)[1]
        counts[sub.indices.asnumpy()] += 1
    expected = prob / prob.sum() if weighted else np.array([0, .25, .25, .25, .25])
    assert np.all(np.abs(counts / trials - expected) < 0.04), counts / trials


def test_sampler_two_seed_arrays():
    out = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
        G, mx.nd.array([0], dtype="int64"), mx.nd.array([1, 2], dtype="int64"),
        num_neighbor=DEG, max_num_vertices=30)
    assert len(out) == 6
    assert [o.stype for o in out] == ["default"] * 2 + ["csr"] * 2 + ["default"] * 2
    assert out[0].shape == (31,) and out[2].shape == (30, 30) and out[4].shape == (30,)


def test_errors():
    with pytest.raises(MXNetError, match="sorted"):
        mx.nd.contrib.dgl_subgraph(G, mx.nd.array([3, 1], dtype="int64"),
                                   return_mapping=False)
    with pytest.raises(MXNetError, match="int64"):
        mx.nd.contrib.dgl_adjacency(G.astype(np.float32))
    with pytest.raises(MXNetError, match="max_num_vertices"):
        mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
            G, mx.nd.array([0, 1, 2], dtype="int64"), max_num_vertices=2)
    with pytest.raises(MXNetError, match="graph"):
        mx.nd.contrib.dgl_graph_compact(G, mx.nd.arange(31, dtype="int64"),
                                        graph_sizes=(5,), return_mapping=False)
