"""Which operators name their outputs in MXNet 1.9.1 (NNVM's ``FListOutputNames``).

Graph passes that name new nodes after the output they read use it: MXNet's AMP
conversion names a cast of output ``i`` of node ``n`` ``n_<output name>_amp_cast_<dtype>``
when the operator lists its output names, ``n_<i>_amp_cast_<dtype>`` otherwise.

Operator knowledge, so it lives with the operators.  Made by building each registered
operator in MXNet 1.9.1 and converting it with AMP (the cast's name shows the suffix:
``tests/fixtures/gen_listed_outputs.py``), completed from MXNet's operator sources for
the operators that script cannot build (``Custom``, ``SyncBatchNorm``, NumPy-interface
and quantized operators).
"""
from __future__ import annotations

__all__ = ["LISTED_OUTPUTS", "output_suffix"]

LISTED_OUTPUTS = frozenset([
    "Activation", "BatchNorm", "BatchNorm_v1", "BilinearSampler", "Concat",
    "Convolution", "Convolution_v1", "Correlation", "Crop", "Custom", "Deconvolution",
    "Dropout", "FullyConnected", "GridGenerator", "GroupNorm",
    "IdentityAttachKLSparseReg", "InstanceNorm", "L2Normalization", "LRN", "LayerNorm",
    "LeakyReLU", "MakeLoss", "Pad", "Pooling", "Pooling_v1", "RNN", "ROIPooling",
    "SVMOutput", "SequenceLast", "SequenceMask", "SequenceReverse", "SliceChannel",
    "Softmax", "SoftmaxActivation", "SoftmaxOutput", "SpatialTransformer", "SwapAxis",
    "UpSampling", "_Plus", "_add", "_contrib_BatchNormWithReLU",
    "_contrib_DeformableConvolution", "_contrib_DeformablePSROIPooling",
    "_contrib_ModulatedDeformableConvolution", "_contrib_MultiBoxDetection",
    "_contrib_MultiBoxPrior", "_contrib_MultiBoxTarget", "_contrib_MultiProposal",
    "_contrib_PSROIPooling", "_contrib_Proposal", "_contrib_ROIAlign",
    "_contrib_RROIAlign", "_contrib_SyncBatchNorm", "_contrib_calibrate_entropy",
    "_contrib_count_sketch", "_contrib_fft", "_contrib_ifft", "_contrib_index_array",
    "_contrib_interleaved_matmul_encdec_qk",
    "_contrib_interleaved_matmul_encdec_valatt",
    "_contrib_interleaved_matmul_selfatt_qk",
    "_contrib_interleaved_matmul_selfatt_valatt", "_contrib_quantize_asym",
    "_contrib_quantized_act", "_contrib_quantized_batch_norm",
    "_contrib_quantized_concat", "_contrib_quantized_conv",
    "_contrib_quantized_elemwise_add", "_contrib_quantized_elemwise_mul",
    "_contrib_quantized_flatten", "_contrib_quantized_fully_connected",
    "_contrib_quantized_pooling", "_npi_concatenate", "_npi_dstack", "_npi_hstack",
    "_npi_matmul", "_npi_std", "_npi_var", "_npx_activation", "_npx_batch_norm",
    "_npx_convolution", "_npx_deconvolution", "_npx_dropout", "_npx_fully_connected",
    "_npx_layer_norm", "_npx_leaky_relu", "_npx_multibox_detection",
    "_npx_multibox_prior", "_npx_multibox_target", "_npx_pooling", "_npx_rnn",
    "_npx_roi_pooling", "_npx_sequence_mask", "_npx_softmax", "_plus",
    "_rnn_param_concat", "col2im", "concat", "elemwise_add", "im2col", "make_loss",
    "softmax", "softmin", "split", "swapaxes",
])


def output_suffix(op, attrs, index: int) -> str:
    """``_<output name>`` for an operator that lists its outputs, else ``_<index>``."""
    if op.name in LISTED_OUTPUTS:
        return "_" + op.output_names(attrs)[index]
    return f"_{index}"
