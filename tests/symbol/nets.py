"""Symbol graphs built the same way with MXNet (fixture generator) and gluonlite (tests).

Each builder takes the ``mx`` module and returns a symbol; names come from a fresh
``NameManager`` so both sides number nodes alike.
"""


def mlp(mx):
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data=data, num_hidden=8, name="fc1")
    act = mx.sym.Activation(fc, act_type="relu")
    fc2 = mx.sym.FullyConnected(act, num_hidden=3)
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def convbn(mx):
    x = mx.sym.var("x")
    c = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, pad=(1, 1))
    b = mx.sym.BatchNorm(c, fix_gamma=False)
    r = mx.sym.Activation(b, act_type="relu")
    p = mx.sym.Pooling(r, kernel=(2, 2), stride=(2, 2), pool_type="max")
    return mx.sym.FullyConnected(mx.sym.Flatten(p), num_hidden=5)


def rnn(mx):
    return mx.sym.RNN(mx.sym.var("seq"), state_size=4, num_layers=1, mode="lstm",
                      state_outputs=True)


def slices(mx):
    d = mx.sym.var("data")
    s = mx.sym.SliceChannel(d, num_outputs=3, axis=1)
    return mx.sym.Group([s[0], s[2] + 1, d, mx.sym.Concat(*s, dim=1)])


def arith(mx):
    a = mx.sym.var("a")
    b = mx.sym.var("b")
    outs = [a + b, a - b, a * b, a / b, a % b, a ** b, -a, a + 1, 1 + a, a - 1, 1 - a,
            a * 2, 2 * a, a / 2, 2 / a, a % 2, 2 % a, a ** 2, 2 ** a, a == b, a != b, a > b,
            a >= b, a < b, a <= b, a == 1, a != 1, a > 1, a >= 1, a < 1, a <= 1, 1 < a,
            abs(a), a + 1.5, mx.sym.pow(a, b), mx.sym.pow(2, a), mx.sym.maximum(a, b),
            mx.sym.maximum(a, 1), mx.sym.minimum(2, a), mx.sym.hypot(a, b),
            mx.sym.hypot(a, 3), mx.sym.power(a, 2)]
    return mx.sym.Group(outs)


def attrs(mx):
    v = mx.sym.var("v", shape=(2, 3), dtype="float16", lr_mult=2, wd_mult=0, init="zeros",
                   stype="csr", attr={"a": "b", "ctx_group": "g"}, __foo__="bar")
    with mx.AttrScope(ctx_group="dev1", __bar__="x"):
        w = mx.sym.var("w")
        fc = mx.sym.FullyConnected(v, num_hidden=3, attr={"__lr_mult__": "2"})
        with mx.AttrScope(__bar__="y", wd_mult="3"):
            e = mx.sym.exp(fc, attr={"__bar__": "z"})
    with mx.name.Prefix("pre_"):
        p = mx.sym.FullyConnected(w, num_hidden=2, name="named", no_bias=True)
        q = mx.sym.Embedding(p, input_dim=3, output_dim=2)
    bn = mx.sym.BatchNorm(q, moving_mean=mx.sym.var("mm"))
    return mx.sym.Group([e, bn])


def layers(mx):
    x = mx.sym.var("x")
    cat = mx.sym.Concat(dim=1, num_args=2)
    pre = mx.sym.LeakyReLU(x, act_type="prelu")
    drop = mx.sym.Dropout(pre, p=0.5)
    bn = mx.sym.BatchNorm(drop, output_mean_var=True, name="bnm")
    return mx.sym.Group([cat, bn, mx.sym.linalg.gemm2(x, x, transpose_b=True),
                         x.reshape((2, -1)), x.astype("float16"), x.sum(axis=1),
                         mx.sym.exp(x).expand_dims(0)])


def creation(mx):
    lo = mx.sym.var("lo")
    hi = mx.sym.var("hi")
    return mx.sym.Group([
        mx.sym.zeros((2, 3)), mx.sym.ones((2,), dtype="int32"), mx.sym.full((2,), 3),
        mx.sym.arange(0, 5), mx.sym.arange(3), mx.sym.linspace(0, 1, 5), mx.sym.eye(3),
        mx.sym.random.uniform(0, 1, shape=(2,)), mx.sym.random.uniform(lo, hi, shape=(2,)),
        mx.sym.random.normal(), mx.sym.uniform(0, 1), mx.sym.random_uniform(),
        mx.sym.sample_uniform(lo, hi), mx.sym.random.exponential(2),
        mx.sym.random.randint(0, 4, shape=(3,))])


def composed(mx):
    net = mlp(mx)
    x = mx.sym.var("x")
    y = mx.sym.exp(x, name="e")
    return net(data=y, name="renamed")


BUILDERS = {"mlp": mlp, "convbn": convbn, "rnn": rnn, "slices": slices, "arith": arith,
            "attrs": attrs, "layers": layers, "creation": creation, "composed": composed}

# (net, keyword shapes) for infer_shape / infer_shape_partial
SHAPE_CASES = [
    ("mlp", {"data": (5, 4)}),
    ("mlp", {"fc1_weight": (8, 4)}),
    ("mlp", {"softmax_label": (5,)}),
    ("convbn", {"x": (2, 3, 8, 8)}),
    ("convbn", {"x": (0, 3, 8, 8)}),
    ("rnn", {"seq": (6, 2, 3)}),
    ("slices", {"data": (2, 6)}),
    ("arith", {"a": (2, 3)}),
    ("composed", {"x": (5, 4)}),
    ("attrs", {}),
]

# (net, keyword dtypes) for infer_type / infer_type_partial
TYPE_CASES = [
    ("mlp", {"data": "float16"}),
    ("convbn", {"x": "float64"}),
    ("mlp", {}),
]

# (net, keyword shapes) that contradict each other
CONFLICT_CASES = [
    ("mlp", {"data": (5, 4), "fc1_weight": (8, 3)}),
    ("slices", {"data": (2, 5)}),
]
