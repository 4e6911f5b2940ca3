"""``gluon.data.vision``: image transforms and the vision datasets (MNIST, FashionMNIST,
CIFAR10, CIFAR100 read from local files; ImageFolderDataset, ImageListDataset,
ImageRecordDataset)."""
from . import datasets  # noqa: F401
from .datasets import (MNIST, FashionMNIST, CIFAR10, CIFAR100,  # noqa: F401
                       ImageRecordDataset, ImageFolderDataset, ImageListDataset)
from . import transforms  # noqa: F401

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
           "ImageFolderDataset", "ImageListDataset"]
