"""``gluon.contrib.nn.SparseEmbedding``: an embedding whose weight and gradient are
row_sparse, so a Trainer (through its kvstore) updates only the looked-up rows."""
from __future__ import annotations

from .... import ndarray as _nd
from ...block import Block

__all__ = ["SparseEmbedding"]


class SparseEmbedding(Block):
    """Map indices to rows of a ``row_sparse`` weight of shape (input_dim, output_dim).

    The forward pulls only the rows ``x`` needs (``weight.row_sparse_data(x)``), so the
    block must be trained with a ``gluon.Trainer``; it is not hybridizable (as MXNet's).

    Parameters
    ----------
    input_dim : int
        Vocabulary size.
    output_dim : int
        Embedding width.
    dtype : str
        Weight type.
    weight_initializer : Initializer, optional
    """

    def __init__(self, input_dim: int, output_dim: int, dtype: str = "float32",
                 weight_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": True}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      grad_stype="row_sparse", stype="row_sparse")

    def forward(self, x):
        weight = self.weight.row_sparse_data(x)
        return _nd.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self._kwargs['input_dim']} -> "
                f"{self._kwargs['output_dim']}, {self._kwargs['dtype']})")
