"""Predefined and pretrained models (``mxnet.gluon.model_zoo``)."""
from . import model_store
from . import vision
