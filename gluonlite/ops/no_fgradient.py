"""Operators that have no gradient in MXNet 1.9.1 (no ``FGradient``).

MXNet refuses to differentiate through them: building a gradient graph that needs
one of their input gradients raises "Operator X is non-differentiable because it
didn't register FGradient attribute" (at ``bind``/``simple_bind`` with a
``grad_req`` other than ``'null'``, and at ``autograd.backward``), unless every
gradient reaching them is zero (a ``stop_gradient``/``BlockGrad`` in between).
Operators whose gradient MXNet defines as zeros (``argmax``, ``argsort``,
``one_hot``, ``shape_array``: ``MakeZeroGradNodes``) are not listed.

Operator knowledge, so it lives with the operators.  Made by probing each registered
operator that has no gradient here (``differentiable=False`` or no ``backward``) on
MXNet 1.9.1 with its op-harness sample: ``tests/fixtures/gen_no_fgradient.py`` (the
raw results in ``tests/fixtures/no_fgradient.json``; the ones it could not build
there are not listed).
"""
from __future__ import annotations

__all__ = ["NO_FGRADIENT"]

NO_FGRADIENT = frozenset([
    "_contrib_RROIAlign", "_contrib_allclose", "_contrib_calibrate_entropy",
    "_contrib_dgl_adjacency", "_contrib_dgl_csr_neighbor_non_uniform_sample",
    "_contrib_dgl_csr_neighbor_uniform_sample", "_contrib_dgl_graph_compact",
    "_contrib_dgl_subgraph", "_contrib_edge_id", "_contrib_getnnz",
    "_contrib_quantized_act", "_contrib_quantized_elemwise_add",
    "_contrib_quantized_rnn", "_histogram", "_mp_adamw_update", "_multi_adamw_update",
    "_multi_mp_adamw_update", "_onehot_encode", "_shuffle", "adam_update", "all_finite",
    "argmax_channel", "batch_take", "fill_element_0index", "ftml_update", "ftrl_update",
    "khatri_rao", "lamb_update_phase1", "lamb_update_phase2", "mp_lamb_update_phase1",
    "mp_lamb_update_phase2", "mp_nag_mom_update", "mp_sgd_mom_update", "mp_sgd_update",
    "multi_all_finite", "multi_lars", "multi_mp_sgd_mom_update", "multi_mp_sgd_update",
    "multi_sgd_update", "multi_sum_sq", "nag_mom_update",
    "preloaded_multi_mp_sgd_mom_update", "preloaded_multi_mp_sgd_update",
    "preloaded_multi_sgd_update", "rmsprop_update", "rmspropalex_update",
    "sgd_mom_update", "sgd_update", "signsgd_update", "signum_update",
])
