"""``gluon.data.vision``: image transforms (the MNIST/CIFAR/ImageFolder datasets are not
in gluonlite yet)."""
from . import transforms  # noqa: F401
