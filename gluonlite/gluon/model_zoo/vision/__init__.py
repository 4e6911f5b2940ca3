"""MXNet 1.9's Gluon vision model zoo (``mxnet.gluon.model_zoo.vision``).

Every architecture keeps MXNet's block tree, prefixes and parameter names, so
parameter files MXNet wrote (``save_parameters`` or its published pretrained files
under ``$MXNET_HOME/models``) load unchanged.
"""
from __future__ import annotations

# the modules first: the star imports then rebind ``alexnet`` to the function, as in MXNet
from . import alexnet as _alexnet, densenet as _densenet, inception as _inception
from . import mobilenet as _mobilenet, resnet as _resnet, squeezenet as _squeezenet
from . import vgg as _vgg
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403

_models = {
    **{f"resnet{n}_v{v}": getattr(_resnet, f"resnet{n}_v{v}")
       for v in (1, 2) for n in (18, 34, 50, 101, 152)},
    **{f"vgg{n}{bn}": getattr(_vgg, f"vgg{n}{bn}") for bn in ("", "_bn")
       for n in (11, 13, 16, 19)},
    "alexnet": _alexnet.alexnet,
    **{f"densenet{n}": getattr(_densenet, f"densenet{n}") for n in (121, 161, 169, 201)},
    "squeezenet1.0": _squeezenet.squeezenet1_0,
    "squeezenet1.1": _squeezenet.squeezenet1_1,
    "inceptionv3": _inception.inception_v3,
    "mobilenet1.0": _mobilenet.mobilenet1_0,
    "mobilenet0.75": _mobilenet.mobilenet0_75,
    "mobilenet0.5": _mobilenet.mobilenet0_5,
    "mobilenet0.25": _mobilenet.mobilenet0_25,
    "mobilenetv2_1.0": _mobilenet.mobilenet_v2_1_0,
    "mobilenetv2_0.75": _mobilenet.mobilenet_v2_0_75,
    "mobilenetv2_0.5": _mobilenet.mobilenet_v2_0_5,
    "mobilenetv2_0.25": _mobilenet.mobilenet_v2_0_25,
}


def get_model(name: str, **kwargs):
    """A model of the zoo by name.

    Parameters
    ----------
    name : str
        Model name, e.g. ``'resnet18_v1'``, ``'mobilenet0.25'``, ``'inceptionv3'``
        (case-insensitive).
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root``.
    classes : int, default 1000
        Output classes.
    ctx : Context, default cpu()
        Where pretrained parameters are loaded.
    root : str, default ``$MXNET_HOME/models``
        Directory of the pretrained parameter files.

    Returns
    -------
    HybridBlock
        The model.
    """
    name = name.lower()
    if name not in _models:
        raise ValueError("Model %s is not supported. Available options are\n\t%s"
                         % (name, "\n\t".join(sorted(_models))))
    return _models[name](**kwargs)
