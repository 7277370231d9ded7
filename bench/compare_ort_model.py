"""The ONNX graph bench/compare_ort.py times: qkv's attention layer with qkv's dumped weights.

X [1, n, d_model] → Q, K, V = X @ W_Q, X @ W_K, X @ W_V (MatMul, weights as initializers, no biases,
qkv's convention) → ONNX Runtime's fused CPU operator com.microsoft.MultiHeadAttention (num_heads = h;
unidirectional = 1 for causal, the attribute its contrib-operator docs give for "every token can only
attend to previous tokens") → Z = A @ W_O. Needs Debian's python3-onnx.
"""
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17        # the newest python3-onnx 1.12 knows; ORT 1.30 runs it
MS_OPSET = 1      # com.microsoft's MultiHeadAttention has been there since its version 1


def attention_model(W, n, d_model, heads, causal):
    """The model for inputs of n tokens; W maps "W_Q", "W_K", "W_V", "W_O" to float32 arrays."""
    mha = helper.make_node("MultiHeadAttention", ["Q", "K", "V"], ["A"], domain="com.microsoft",
                           num_heads=heads, unidirectional=1 if causal else 0)
    nodes = [helper.make_node("MatMul", ["X", w], [w[-1]]) for w in ("W_Q", "W_K", "W_V")]
    nodes += [mha, helper.make_node("MatMul", ["A", "W_O"], ["Z"])]
    shape = [1, n, d_model]
    graph = helper.make_graph(
        nodes, "qkv_attention",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("Z", TensorProto.FLOAT, shape)],
        initializer=[numpy_helper.from_array(W[name], name) for name in ("W_Q", "W_K", "W_V", "W_O")])
    model = helper.make_model(graph, producer_name="qkv bench/compare_ort.py",
                              opset_imports=[helper.make_opsetid("", OPSET),
                                             helper.make_opsetid("com.microsoft", MS_OPSET)])
    onnx.checker.check_model(model)  # the standard part; com.microsoft is ORT's to check at load
    return model


def save_attention_model(path, W, n, d_model, heads, causal):
    onnx.save(attention_model(W, n, d_model, heads, causal), path)
    return path
