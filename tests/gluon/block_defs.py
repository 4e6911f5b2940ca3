"""Small Blocks written once against an ``mx`` module (MXNet or gluonlite).

``tests/fixtures/gen_blocks.py`` builds them under MXNet 1.9 to record names, output
values and gradients; ``tests/gluon/test_block*.py`` builds the very same code under
gluonlite and compares.  Only ``self.params.get`` and ``F.<op>`` are used (no nn layers).
"""


def make(mx):
    """The block classes for module ``mx``, by name."""
    gluon = mx.gluon

    class Lin(gluon.HybridBlock):
        """FullyConnected with a deferred ``in_units``."""

        def __init__(self, units, in_units=0, use_bias=True, **kwargs):
            super().__init__(**kwargs)
            self._units = units
            with self.name_scope():
                self.weight = self.params.get("weight", shape=(units, in_units),
                                              allow_deferred_init=True)
                self.bias = self.params.get("bias", shape=(units,), init="zeros") \
                    if use_bias else None

        def hybrid_forward(self, F, x, weight, bias=None):
            if bias is None:
                return F.FullyConnected(x, weight, no_bias=True, num_hidden=self._units)
            return F.FullyConnected(x, weight, bias, num_hidden=self._units)

        def __repr__(self):
            return "Lin(%d)" % self._units

    class ConvBN(gluon.HybridBlock):
        """Convolution (deferred in_channels) + BatchNorm + relu."""

        def __init__(self, channels, **kwargs):
            super().__init__(**kwargs)
            self._channels = channels
            with self.name_scope():
                self.weight = self.params.get("weight", shape=(channels, 0, 3, 3),
                                              allow_deferred_init=True)
                self.bias = self.params.get("bias", shape=(channels,), init="zeros")
                self.gamma = self.params.get("gamma", shape=(channels,), init="ones")
                self.beta = self.params.get("beta", shape=(channels,), init="zeros")
                self.running_mean = self.params.get("running_mean", shape=(channels,),
                                                    grad_req="null", init="zeros")
                self.running_var = self.params.get("running_var", shape=(channels,),
                                                   grad_req="null", init="ones")

        def hybrid_forward(self, F, x, weight, bias, gamma, beta, running_mean, running_var):
            y = F.Convolution(x, weight, bias, kernel=(3, 3), pad=(1, 1),
                              num_filter=self._channels)
            y = F.BatchNorm(y, gamma, beta, running_mean, running_var, fix_gamma=False,
                            momentum=0.9)
            return F.relu(y)

    class Net(gluon.HybridBlock):
        """ConvBN -> pooling -> Lin -> relu -> Lin: nested HybridBlocks."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.features = ConvBN(4)
                self.hidden = Lin(8)
                self.output = Lin(3)

        def hybrid_forward(self, F, x):
            y = self.features(x)
            y = F.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type="max")
            y = F.relu(self.hidden(y))
            return self.output(y)

    class TwoIn(gluon.HybridBlock):
        """Two inputs and two outputs."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.a = Lin(3)
                self.b = Lin(3)

        def hybrid_forward(self, F, x, y):
            u = self.a(x)
            v = self.b(y)
            return u + v, F.tanh(u) * v

    class Counting(gluon.HybridBlock):
        """Counts its hybrid_forward calls (by F)."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.calls = []
            with self.name_scope():
                self.weight = self.params.get("weight", shape=(2, 0),
                                              allow_deferred_init=True)

        def hybrid_forward(self, F, x, weight):
            self.calls.append(F.__name__.split(".")[-1])
            return F.FullyConnected(x, weight, no_bias=True, num_hidden=2) * 2

    class Seq(gluon.Block):
        """A plain (imperative) container running its children in order."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)

        def add(self, *blocks):
            for b in blocks:
                self.register_child(b)

        def forward(self, x):
            for b in self._children.values():
                x = b(x)
            return x

    class HSeq(gluon.HybridBlock):
        """A hybrid container running its children in order."""

        def add(self, *blocks):
            for b in blocks:
                self.register_child(b)

        def hybrid_forward(self, F, x):
            for b in self._children.values():
                x = b(x)
            return x

    class Rich(gluon.HybridBlock):
        """Convolution, BatchNorm, pooling, LayerNorm, Dense and elementwise math."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.features = ConvBN(6)
                self.ln_gamma = self.params.get("ln_gamma", shape=(0,), init="ones",
                                                allow_deferred_init=True)
                self.ln_beta = self.params.get("ln_beta", shape=(0,), init="zeros",
                                               allow_deferred_init=True)
                self.scale = self.params.get("scale", shape=(1,), init="ones")
                self.dense = Lin(5)

        def hybrid_forward(self, F, x, ln_gamma, ln_beta, scale):
            y = self.features(x)
            y = F.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type="avg")
            y = F.LayerNorm(y, ln_gamma, ln_beta, axis=-1, eps=1e-5)
            y = F.broadcast_mul(F.tanh(y), scale) + F.sigmoid(y) * y - F.exp(-F.abs(y))
            return self.dense(F.relu(y) + 0.1 * y)

    def nn_net():
        """The same kind of network from MXNet's nn layers."""
        nn = gluon.nn
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                    nn.MaxPool2D(2), nn.LayerNorm(), nn.Dense(8, activation="tanh"),
                    nn.Dropout(0.0), nn.Dense(3))
        return net

    return dict(Lin=Lin, ConvBN=ConvBN, Net=Net, TwoIn=TwoIn, Counting=Counting, Seq=Seq,
                HSeq=HSeq, Rich=Rich, nn_net=nn_net)
