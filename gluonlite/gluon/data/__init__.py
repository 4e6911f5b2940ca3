"""``gluon.data``: datasets, samplers and the DataLoader."""
from . import dataset, sampler, dataloader  # noqa: F401
from .dataset import Dataset, SimpleDataset, ArrayDataset, RecordFileDataset  # noqa: F401
from .sampler import (Sampler, SequentialSampler, RandomSampler, FilterSampler,  # noqa: F401
                      BatchSampler)
from .dataloader import DataLoader  # noqa: F401
from . import vision  # noqa: F401

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset", "Sampler",
           "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler", "DataLoader"]
