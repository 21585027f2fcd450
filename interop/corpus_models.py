"""The corpus's inference models: what users build with ``paddle.vision`` and ``paddle.nn``.

Each builder takes the ``paddle`` module (static mode, inside ``program_guard``) and returns
``(feeds, targets)``: the ``paddle.static.data`` variables, each with a ``corpus_feed`` spec
(shape with the batch, dtype, and for integers the exclusive ``high`` of their values), and the
variables to save as the model's outputs. Every network is at the smallest scale or width its
constructor allows, with 10 classes, in eval mode (dropout off, BatchNorm's running stats);
images are 3x32x32 where the network's adaptive pooling allows it, batch 2 (1 for the large
ones). Imported by ``interop/make_corpus.py`` with PaddlePaddle 2.6.2's venv only.
"""


def _data(paddle, name, shape, dtype="float32", high=None, batch_free=True):
    """A feed; its first dimension is -1 (any batch) unless ``batch_free`` is False."""
    declared = [None if batch_free and k == 0 else d for k, d in enumerate(shape)]
    var = paddle.static.data(name, declared, dtype)
    var.corpus_feed = {"shape": list(shape), "dtype": dtype, "high": high}
    return var


def _outputs(out):
    """A network's result as a list: GoogLeNet returns its two auxiliary heads too."""
    if isinstance(out, (list, tuple)):
        return [o for item in out for o in _outputs(item)]
    return [out]


def _vision(make, shape=(2, 3, 32, 32)):
    def build(paddle):
        model = make(paddle.vision.models)
        model.eval()
        image = _data(paddle, "image", shape)
        return [image], _outputs(model(image))
    return build


VISION = {
    "lenet": _vision(lambda m: m.LeNet(num_classes=10), (2, 1, 28, 28)),
    # AlexNet's classifier takes 256x6x6 features: 224x224 is the input it is built for
    "alexnet": _vision(lambda m: m.AlexNet(num_classes=10), (1, 3, 224, 224)),
    "vgg11": _vision(lambda m: m.vgg11(num_classes=10), (1, 3, 32, 32)),
    "resnet18": _vision(lambda m: m.resnet18(num_classes=10)),
    "resnext50_32x4d": _vision(lambda m: m.resnext50_32x4d(num_classes=10), (1, 3, 32, 32)),
    "wide_resnet50_2": _vision(lambda m: m.wide_resnet50_2(num_classes=10), (1, 3, 32, 32)),
    "mobilenet_v1": _vision(lambda m: m.mobilenet_v1(scale=0.25, num_classes=10)),
    "mobilenet_v2": _vision(lambda m: m.mobilenet_v2(scale=0.25, num_classes=10)),
    "mobilenet_v3_small": _vision(lambda m: m.mobilenet_v3_small(scale=0.25, num_classes=10)),
    "mobilenet_v3_large": _vision(lambda m: m.mobilenet_v3_large(scale=0.25, num_classes=10)),
    "shufflenet_v2_x0_25": _vision(lambda m: m.shufflenet_v2_x0_25(num_classes=10)),
    "shufflenet_v2_swish": _vision(lambda m: m.ShuffleNetV2(scale=0.25, act="swish",
                                                            num_classes=10)),
    "squeezenet1_0": _vision(lambda m: m.squeezenet1_0(num_classes=10)),
    "squeezenet1_1": _vision(lambda m: m.squeezenet1_1(num_classes=10)),
    "densenet121": _vision(lambda m: m.densenet121(num_classes=10)),
    # GoogLeNet's auxiliary heads take 128x3x3 features: 185x185 to 232x232 inputs give them
    "googlenet": _vision(lambda m: m.googlenet(num_classes=10), (1, 3, 192, 192)),
    # Inception v3's stem and its 3x3 stride-2 reductions need at least 75x75
    "inception_v3": _vision(lambda m: m.inception_v3(num_classes=10), (1, 3, 75, 75)),
}


def _transformer_encoder(paddle):
    layer = paddle.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu")
    encoder = paddle.nn.TransformerEncoder(layer, 2, norm=paddle.nn.LayerNorm(16))
    encoder.eval()
    src = _data(paddle, "src", (2, 5, 16))
    # a padding mask: the second sequence's last two positions are not attended to
    mask = _data(paddle, "src_mask", (2, 1, 1, 5))
    return [src, mask], [encoder(src, src_mask=mask)]


def _transformer_decoder(paddle):
    layer = paddle.nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, normalize_before=True)
    decoder = paddle.nn.TransformerDecoder(layer, 2, norm=paddle.nn.LayerNorm(16))
    decoder.eval()
    tgt = _data(paddle, "tgt", (2, 4, 16))
    memory = _data(paddle, "memory", (2, 5, 16))
    # the causal mask, built in the program as Transformer.generate_square_subsequent_mask does
    causal = paddle.triu(paddle.full([4, 4], float("-inf"), "float32"), diagonal=1)
    return [tgt, memory], [decoder(tgt, memory, tgt_mask=causal)]


def _multi_head_attention(paddle):
    attention = paddle.nn.MultiHeadAttention(16, 2, kdim=12, vdim=10, need_weights=True)
    attention.eval()
    q = _data(paddle, "query", (2, 4, 16))
    k = _data(paddle, "key", (2, 5, 12))
    v = _data(paddle, "value", (2, 5, 10))
    out, weights = attention(q, k, v)
    return [q, k, v], [out, weights]


def _recurrent(cell, lengths):
    """``cell`` ("LSTM", "GRU", "SimpleRNN"): 2 layers, bidirectional, batch-major."""
    def build(paddle):
        net = getattr(paddle.nn, cell)(8, 6, num_layers=2, direction="bidirect")
        net.eval()
        x = _data(paddle, "x", (2, 5, 8))
        feeds, kwargs = [x], {}
        if lengths:
            seq = _data(paddle, "seq_len", (2,), "int64", high=6)
            feeds.append(seq)
            kwargs["sequence_length"] = seq
        y, state = net(x, **kwargs)
        return feeds, [y, *_outputs(state)]
    return build


def _text_cnn(paddle):
    """Embedding -> Conv1D over the words -> ReLU -> max over time -> Linear."""
    ids = _data(paddle, "ids", (2, 12), "int64", high=50)
    embedded = paddle.nn.Embedding(50, 16)(ids)                   # [N, T, 16]
    conv = paddle.nn.Conv1D(16, 8, 3, data_format="NLC")
    features = paddle.nn.functional.relu(conv(embedded))          # [N, T-2, 8]
    pooled = paddle.max(features, axis=1)                         # max over time
    return [ids], [paddle.nn.Linear(8, 4)(pooled)]


def _upsample(paddle):
    """Conv2DTranspose x2, GroupNorm, LeakyReLU, bilinear x2, conv, nearest to 20x20."""
    x = _data(paddle, "x", (2, 4, 8, 8))
    up = paddle.nn.Conv2DTranspose(4, 6, 4, stride=2, padding=1)(x)         # 16x16
    h = paddle.nn.LeakyReLU(0.1)(paddle.nn.GroupNorm(2, 6)(up))
    h = paddle.nn.functional.interpolate(h, scale_factor=2, mode="bilinear",
                                         align_corners=False)               # 32x32
    h = paddle.nn.Conv2D(6, 4, 3, padding=1)(h)
    out = paddle.nn.functional.interpolate(h, size=[20, 20], mode="nearest")
    return [x], [out]


NN = {
    "transformer_encoder": _transformer_encoder,
    "transformer_decoder": _transformer_decoder,
    "multi_head_attention": _multi_head_attention,
    "lstm": _recurrent("LSTM", False),
    "lstm_seqlen": _recurrent("LSTM", True),
    "gru": _recurrent("GRU", False),
    "gru_seqlen": _recurrent("GRU", True),
    "simple_rnn": _recurrent("SimpleRNN", False),
    "simple_rnn_seqlen": _recurrent("SimpleRNN", True),
    "text_cnn": _text_cnn,
    "upsample": _upsample,
}

INFERENCE = {**VISION, **NN}

# feeds whose values are not random: a padding mask, and lengths that leave a short sequence
FIXED_FEEDS = {
    ("transformer_encoder", "src_mask"): lambda np: np.array(
        [0, 0, 0, 0, 0, 0, 0, 0, -1e9, -1e9], "float32").reshape(2, 1, 1, 5),
    ("lstm_seqlen", "seq_len"): lambda np: np.array([5, 3], "int64"),
    ("gru_seqlen", "seq_len"): lambda np: np.array([5, 3], "int64"),
    ("simple_rnn_seqlen", "seq_len"): lambda np: np.array([5, 3], "int64"),
}
