"""``mx.gluon.contrib.cnn``: MXNet 1.9's deformable convolution layers."""
from .conv_layers import *  # noqa: F401,F403
from . import conv_layers  # noqa: F401
