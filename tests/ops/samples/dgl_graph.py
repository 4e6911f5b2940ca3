"""Samples for the DGL graph operators (``dgl_graph.py``), run on dense graphs (the
nonzeros are the edges; results densified); ``tests/ops/test_dgl_graph.py`` checks the
csr kernels against MXNet."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(21)
_mask = _rng.uniform(size=(6, 6)) < 0.4
_A = np.where(_mask, np.cumsum(_mask).reshape(6, 6), 0).astype(np.int64)  # edge ids 1..
_Af = _A.astype(np.float32) * 0.5
_u = np.array([0, 1, 2, 5, 3, 4], dtype=np.float32)
_v = np.array([1, 1, 0, 5, 2, 3], dtype=np.float32)
_V = np.array([0, 2, 3, 5], dtype=np.int64)


def _edge_id_ref(a, u, v):
    hit = a[u.astype(np.int64), v.astype(np.int64)]
    return np.where(hit != 0, hit, -1).astype(a.dtype)


def _renumbered(sub):
    """``sub``'s nonzeros numbered 0, 1, ... in row-major order (new edge ids)."""
    out = np.zeros_like(sub)
    nz = sub != 0
    out[nz] = np.arange(nz.sum())
    return out


def _subgraph_ref(a, *vs, return_mapping, num_args):
    subs = [a[np.ix_(v, v)] for v in vs]
    return [_renumbered(s) for s in subs] + (subs if return_mapping else [])


# a sampler's output for graph _A from seed 0: rows of sampled vertices, ids + count last
_CAP = 6


def _sampled():
    ids = np.unique(np.concatenate([[0], np.nonzero(_A[0])[0]]))
    sub = np.zeros((_CAP, 6), dtype=np.int64)
    sub[np.searchsorted(ids, 0)] = _A[0] * np.isin(np.arange(6), ids)
    vids = np.zeros(_CAP + 1, dtype=np.int64)
    vids[:ids.size], vids[-1] = ids, ids.size
    return sub, vids, ids


_SUB, _VIDS, _IDS = _sampled()


def _compact_ref(sub, vids, graph_sizes, return_mapping, num_args):
    n = int(graph_sizes[0])
    dense = sub[:n][:, vids[:n]]
    return [_renumbered(dense)] + ([dense] if return_mapping else [])


def _sample_check(weighted, n_hops=1, k=2):
    def check(outs, inputs):
        a = inputs[0]
        ids, sub, layer = outs[0], outs[1], outs[-1]
        n = int(ids[-1])
        assert ids.shape == (_CAP + 1,) and sub.shape == (_CAP, 6) and layer.shape == (_CAP,)
        assert np.all(np.diff(ids[:n]) > 0) and 0 in ids[:n]
        assert np.all(layer[:n] <= n_hops)
        for r in range(n):  # every sampled edge is an edge of the graph, with its id
            cols = np.nonzero(sub[r])[0]
            assert np.all(sub[r, cols] == a[ids[r], cols])
            assert cols.size in (0, min(k, np.count_nonzero(a[ids[r]])))
        if weighted:
            np.testing.assert_allclose(outs[2][:n], inputs[1][ids[:n]])
    return check


_P = np.linspace(0.1, 1.0, 6).astype(np.float32)
_S0 = np.array([0], dtype=np.int64)

SAMPLES = {
    "_contrib_edge_id": [
        Sample([_Af, _u, _v], ref=_edge_id_ref, grad=False),
        Sample([_A, _u.astype(np.int64), _v.astype(np.int64)], ref=_edge_id_ref, grad=False),
    ],
    "_contrib_dgl_adjacency": [
        Sample([_A], ref=lambda a: (a != 0).astype(np.float32), grad=False),
    ],
    "_contrib_dgl_subgraph": [
        Sample([_A, _V], {"num_args": 2, "return_mapping": True}, ref=_subgraph_ref, grad=False),
        Sample([_A, _V, _V[1:]], {"num_args": 3, "return_mapping": False}, ref=_subgraph_ref, grad=False),
    ],
    "_contrib_dgl_graph_compact": [
        Sample([_SUB, _VIDS], {"num_args": 2, "graph_sizes": (int(_IDS.size),),
                                 "return_mapping": True},
               ref=_compact_ref, grad=False),
    ],
    "_contrib_dgl_csr_neighbor_uniform_sample": [
        Sample([_A, _S0], {"num_args": 2, "num_hops": 1, "num_neighbor": 2, "max_num_vertices": _CAP},
               check=_sample_check(False), grad=False),
        Sample([_A, np.array([0, 3], dtype=np.int64)],
               {"num_args": 2, "num_hops": 2, "num_neighbor": 2, "max_num_vertices": _CAP},
               check=_sample_check(False, 2), grad=False),
    ],
    "_contrib_dgl_csr_neighbor_non_uniform_sample": [
        Sample([_A, _P, _S0], {"num_args": 3, "num_hops": 2, "num_neighbor": 2, "max_num_vertices": _CAP},
               check=_sample_check(True, 2), grad=False),
    ],
}
