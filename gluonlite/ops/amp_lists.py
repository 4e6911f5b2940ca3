"""Which operators AMP runs in float16, which it keeps in float32, and which cast
their inputs to the widest float type among them (MXNet 1.9's classification, the
lists ``mx.contrib.amp.list_fp16_ops()`` and its siblings publish).

Operator knowledge, so it lives with the operators; ``contrib/amp`` reads it."""

# compute-bound operators that are safe and fast in float16
FP16_FUNCS = ["Convolution", "Deconvolution", "FullyConnected", "RNN"]

# operators whose float16 results lose too much (reductions, exponentials, norms,
# losses): their inputs are cast to float32
FP32_FUNCS = [
    "arccos", "arcsin", "cosh", "erfinv", "sinh", "tan", "arctanh", "radians", "degrees",
    "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt", "rcbrt",
    "gamma", "gammaln", "erf", "softmax", "log_softmax", "softmin", "SoftmaxOutput",
    "SoftmaxActivation", "LinearRegressionOutput", "LogisticRegressionOutput",
    "MAERegressionOutput", "softmax_cross_entropy", "smooth_l1", "CTCLoss", "ctc_loss",
    "MakeLoss", "make_loss", "norm", "L2Normalization", "LayerNorm", "InstanceNorm",
    "GroupNorm", "sum", "nansum", "prod", "nanprod", "mean", "topk", "sort",
    "argsort", "broadcast_power", "power", "cumsum", "SVMOutput", "IdentityAttachKLSparseReg",
]

# operators combining several inputs: all are cast to the widest float type present
WIDEST_TYPE_CASTS = [
    "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "broadcast_add",
    "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_maximum",
    "broadcast_minimum", "broadcast_hypot", "broadcast_equal", "broadcast_not_equal",
    "broadcast_greater", "broadcast_greater_equal", "broadcast_lesser",
    "broadcast_lesser_equal", "maximum", "minimum", "add_n", "ElementWiseSum", "concat",
    "Concat", "stack", "where", "dot", "batch_dot", "Crop", "khatri_rao", "Correlation",
]

# (operator, attribute, values): float32 only for those attribute values
CONDITIONAL_FP32_FUNCS = [("Activation", "act_type", ["softrelu"]),
                          ("LeakyReLU", "act_type", ["elu", "selu"])]
