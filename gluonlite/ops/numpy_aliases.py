"""MXNet's ``mx.np``/``mx.npx`` names of operators that gluonlite defines once under
their legacy names (``_npi_exp`` is ``exp``, ``_npx_relu`` is ``relu``): a graph MXNet
wrote under ``npx.set_np()`` names them so, and loads here.  Only operators whose
inputs, attributes and results are the same under both names are listed.  ``_all``
imports this module after every operator module."""
from .registry import add_alias

# MXNet name: gluonlite's operator
_ALIASES = {
    "_np_copy": "_copy", "_np_repeat": "repeat", "_npi_concatenate": "Concat",
    "_npi_stack": "stack", "_npi_clip": "clip", "_npi_expand_dims": "expand_dims",
    "_npi_zeros": "_zeros", "_npi_ones": "_ones", "_npi_cast": "Cast",
    "_npi_boolean_mask": "_contrib_boolean_mask", "_npi_inv": "_linalg_inverse",
    "_npi_argsort": "argsort", "_npi_sort": "sort", "_npi_swapaxes": "SwapAxis",
    "_npi_logical_not": "logical_not", "_npi_slice": "slice",
    "_npi_nonzero": "_npx_nonzero", "_npi_histogram": "_histogram",
    "_npx_activation": "Activation", "_npx_batch_dot": "batch_dot",
    "_npx_batch_flatten": "Flatten", "_npx_batch_norm": "BatchNorm", "_npx_cast": "Cast",
    "_npx_convolution": "Convolution", "_npx_deconvolution": "Deconvolution",
    "_npx_dropout": "Dropout", "_npx_embedding": "Embedding",
    "_npx_fully_connected": "FullyConnected", "_npx_layer_norm": "LayerNorm",
    "_npx_leaky_relu": "LeakyReLU", "_npx_log_softmax": "log_softmax",
    "_npx_pooling": "Pooling", "_npx_reshape_like": "reshape_like", "_npx_rnn": "RNN",
    "_npx_roi_pooling": "ROIPooling", "_npx_sequence_mask": "SequenceMask",
    "_npx_shape_array": "shape_array", "_npx_slice": "slice", "_npx_smooth_l1": "smooth_l1",
    "_npx_softmax": "softmax", "_npx_topk": "topk",
}
# elementwise functions: the same name with MXNet's prefix
_UNARY = ("abs arccos arccosh arcsin arcsinh arctan arctanh cbrt ceil cos cosh degrees exp "
          "expm1 fix floor log log10 log1p log2 negative radians reciprocal rint sign sin "
          "sinh sqrt square tan tanh trunc").split()
_NPX_UNARY = "erf erfinv gamma gammaln relu sigmoid".split()
_IMAGE = ("adjust_lighting crop flip_left_right flip_top_bottom normalize random_brightness "
          "random_color_jitter random_contrast random_flip_left_right "
          "random_flip_top_bottom random_hue random_lighting random_saturation resize "
          "to_tensor").split()

for _alias, _target in _ALIASES.items():
    add_alias(_target, _alias)
for _name in _UNARY:
    add_alias(_name, f"_npi_{_name}")
add_alias("abs", "_npi_absolute")
for _name in _NPX_UNARY:
    add_alias(_name, f"_npx_{_name}")
for _name in _IMAGE:
    add_alias(f"_image_{_name}", f"_npx__image_{_name}")
