#!/usr/bin/python3
"""gen_torch113.py: regenerates tests/data/real-torch113.tar.xz, real networks exported by
PyTorch 1.13's TorchScript exporter (Debian 12's python3-torch and python3-torchvision 0.14),
each with the shapes ONNX Runtime observed running it and what onnx 1.12 inferred for it.

The older exporter writes what PyTorch 2.x's does not (dim names on graph outputs,
value_info and subgraph inputs; Loop and If bodies from torchvision's detection code), so
this set is scored beside tests/data/real-networks.tar.xz by the `real/networks-torch113`
test. torch is needed only here, to regenerate; `make test` reads the archive.

To regenerate (about 4 minutes of two idle cores, most of it exporting and running the
detection models; the models and the truth come out byte for byte the same each time,
only the export_s and onnx_s timings of the records differ):

    apt-get install -y --no-install-recommends python3-torch python3-torchvision python3-onnx
    tests/ort/setup.sh build/ort           # onnxruntime-node 1.30, the oracle
    tests/real/gen_torch113.py /tmp/real-torch113
    tests/real/gen_torch113.py --pack /tmp/real-torch113 tests/data/real-torch113.tar.xz

    gen_torch113.py OUT_DIR [--ort ORT_DIR] [--only NAME,NAME...]   export and record
    gen_torch113.py --list                                         the networks
    gen_torch113.py --pack OUT_DIR ARCHIVE                         the archive

For each network, OUT_DIR/NAME/ gets model.onnx and record.json in the format of the
other real-network sets:
  inputs   [name, kind, dims] per graph input (kind f: floats, i: token ids in [0, 10),
           m: an all-ones mask; dims as the model declares them, symbols named);
  truth    for two bindings of the symbols, the shape of every value a node of the main
           graph produces, as ONNX Runtime for node observed it (tests/real/record_truth.js)
           running a copy of the model in which every such value is a graph output, graph
           optimizations off;
  peers    onnx: onnx 1.12's infer_shapes(data_prop=True) (value -> dims: ints, dim_param
           strings, null for an unknown dim; a value it gave no shape is absent);
           ort_symbolic_error: ONNX Runtime's Python symbolic_shape_infer is not packaged
           for Debian 12, so that peer is absent here and scores as all missing.
Weights are random (fixed seed, weights=None: nothing is downloaded) when the truth is
recorded; afterwards every floating-point initializer of 256 elements or more is zeroed,
which changes no shape, so the archive stays small (tests/unpack_data.py writes the zeros
as holes). Data-dependent sizes (detections kept, nonzero counts) are those of the random
weights and of record_truth.js's fixed-seed inputs.
"""
import json
import lzma
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import types
import warnings

warnings.filterwarnings("ignore")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ZERO_AT = 256  # a floating-point initializer this large is a weight: zeroed after recording
ORT_SYMBOLIC_ERROR = ("not run: ONNX Runtime's Python package (onnxruntime.tools.symbolic_shape_infer) "
                      "is not installable on Debian 12; this peer is absent from this set")


# ---------------------------------------------------------------------------------------
# The networks. Each entry: name, opset, a builder returning (module, example args,
# input specs [(name, kind, dims with symbol names)], output names, extra dynamic axes
# for outputs), and two bindings. Symbols are the dims named in the input specs.

NETS = []


def net(name, opset, bindings):
    def register(build):
        NETS.append(dict(name=name, opset=opset, build=build, bindings=bindings))
        return build
    return register


def example(specs, binding):
    import torch
    g = torch.Generator().manual_seed(7)
    args = []
    for _, kind, dims, *rest in specs:
        shape = [binding[d] if isinstance(d, str) else d for d in dims]
        dtype = rest[0] if rest else None
        if kind == "f":
            args.append(torch.rand(shape, generator=g) * 2 - 1)
        elif kind == "i":
            args.append(torch.randint(0, 10, shape, generator=g))
        else:
            args.append(torch.ones(shape, dtype=dtype or torch.int64))
    return args


def tv():
    import torchvision
    return torchvision.models


IMG = [{"N": 1, "H": 64, "W": 64}, {"N": 2, "H": 80, "W": 96}]
IMG_SPEC = [("x", "f", ["N", 3, "H", "W"])]


def classifier(name, opset, make, bindings=IMG, spec=IMG_SPEC):
    @net(name, opset, bindings)
    def build():
        return make(), spec, ["logits"], {"logits": {0: "N"}}


classifier("resnet18", 11, lambda: tv().resnet18(weights=None))
classifier("squeezenet1_1", 12, lambda: tv().squeezenet1_1(weights=None, num_classes=10))
classifier("densenet121", 13, lambda: tv().densenet121(weights=None, num_classes=10))
classifier("shufflenet_v2_x0_5", 14, lambda: tv().shufflenet_v2_x0_5(weights=None, num_classes=10))
classifier("mobilenet_v3_small", 15, lambda: tv().mobilenet_v3_small(weights=None, num_classes=10))
classifier("efficientnet_b0", 16, lambda: tv().efficientnet_b0(weights=None, num_classes=10))
classifier("googlenet", 17, lambda: tv().googlenet(weights=None, aux_logits=False, init_weights=True,
                                                   num_classes=10))
classifier("regnet_y_400mf", 12, lambda: tv().regnet_y_400mf(weights=None, num_classes=10))
classifier("convnext_tiny", 14, lambda: tv().convnext_tiny(weights=None, num_classes=10))
classifier("swin_t", 17, lambda: tv().swin_t(weights=None, num_classes=10),
           bindings=[{"N": 1, "H": 64, "W": 64}, {"N": 2, "H": 96, "W": 128}])


@net("vit_tiny", 14, [{"N": 1}, {"N": 3}])
def vit_tiny():
    from torchvision.models.vision_transformer import VisionTransformer
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                          mlp_dim=64, num_classes=10)
    return m, [("x", "f", ["N", 3, 32, 32])], ["logits"], {"logits": {0: "N"}}


# Detection: one image [3, H, W] in, torchvision's own pre- and post-processing in the
# graph (resize to min_size/max_size, anchors, NMS, per-level If and Loop bodies).
DET = [{"H": 240, "W": 320}, {"H": 320, "W": 256}]
DET_SPEC = [("image", "f", [3, "H", "W"])]


def one_image(model, keys):
    """Detection models take a list of images and return a list of dicts."""
    import torch

    class Wrap(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = model

        def forward(self, image):
            out = self.m([image])[0]
            return tuple(out[k] for k in keys)
    return Wrap()


def detector(name, opset, make, keys, bindings=DET):
    @net(name, opset, bindings)
    def build():
        return one_image(make(), keys), DET_SPEC, list(keys), {k: {0: "detections"} for k in keys}


# Small images, and a score threshold of 0 where random weights would keep no
# detection (so the per-detection mask, keypoint and Loop paths run).
SMALL = dict(min_size=240, max_size=320)
detector("fasterrcnn_mobilenet_v3_large_320_fpn", 11,
         lambda: tv().detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None,
                                                                         box_score_thresh=0.0),
         ["boxes", "labels", "scores"])
detector("maskrcnn_resnet50_fpn", 11,
         lambda: tv().detection.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=5,
                                                       box_detections_per_img=20, **SMALL),
         ["boxes", "labels", "scores", "masks"])
detector("keypointrcnn_resnet50_fpn", 11,
         lambda: tv().detection.keypointrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=2,
                                                           box_detections_per_img=10, box_score_thresh=0.0,
                                                           **SMALL),
         ["boxes", "labels", "scores", "keypoints", "keypoints_scores"])
detector("fasterrcnn_resnet50_fpn_v2", 13,
         lambda: tv().detection.fasterrcnn_resnet50_fpn_v2(weights=None, weights_backbone=None, num_classes=5,
                                                            box_detections_per_img=20, **SMALL),
         ["boxes", "labels", "scores"])
detector("retinanet_resnet50_fpn_v2", 12,
         lambda: tv().detection.retinanet_resnet50_fpn_v2(weights=None, weights_backbone=None, num_classes=5,
                                                           detections_per_img=20, score_thresh=0.0, **SMALL),
         ["boxes", "labels", "scores"])
detector("ssd300_vgg16", 14,
         lambda: tv().detection.ssd300_vgg16(weights=None, weights_backbone=None, num_classes=5,
                                              detections_per_img=20),
         ["boxes", "labels", "scores"])
detector("ssdlite320_mobilenet_v3_large", 13,
         lambda: tv().detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5,
                                                               detections_per_img=20),
         ["boxes", "labels", "scores"])
detector("fcos_resnet50_fpn", 16,
         lambda: tv().detection.fcos_resnet50_fpn(weights=None, weights_backbone=None, num_classes=5,
                                                   detections_per_img=20, score_thresh=0.0, **SMALL),
         ["boxes", "labels", "scores"])


# Segmentation: the output is upsampled back to the input's H, W.
SEG = [{"N": 1, "H": 64, "W": 64}, {"N": 2, "H": 72, "W": 96}]


def segmenter(name, opset, make):
    @net(name, opset, SEG)
    def build():
        import torch

        class Wrap(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = make()

            def forward(self, x):
                return self.m(x)["out"]
        return Wrap(), IMG_SPEC, ["out"], {"out": {0: "N", 2: "H", 3: "W"}}


def fcn_resnet18():
    from torchvision.models._utils import IntermediateLayerGetter
    from torchvision.models.segmentation.fcn import FCN, FCNHead
    backbone = IntermediateLayerGetter(tv().resnet18(weights=None), return_layers={"layer4": "out"})
    return FCN(backbone, FCNHead(512, 6))


segmenter("fcn_resnet18", 13, fcn_resnet18)
segmenter("deeplabv3_mobilenet_v3_large", 15,
          lambda: tv().segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                 num_classes=6))
segmenter("lraspp_mobilenet_v3_large", 16,
          lambda: tv().segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=6))
segmenter("deeplabv3_resnet50", 17,
          lambda: tv().segmentation.deeplabv3_resnet50(weights=None, weights_backbone=None, num_classes=6,
                                                       aux_loss=False))


# Video: clips [N, 3, T, H, W].
VID = [{"N": 1, "T": 8, "H": 48, "W": 48}, {"N": 2, "T": 12, "H": 64, "W": 56}]
VID_SPEC = [("clip", "f", ["N", 3, "T", "H", "W"])]
classifier("r3d_18", 13, lambda: tv().video.r3d_18(weights=None, num_classes=10), VID, VID_SPEC)
classifier("r2plus1d_18", 15, lambda: tv().video.r2plus1d_18(weights=None, num_classes=10), VID, VID_SPEC)


@net("raft_small", 16, [{"N": 1, "H": 64, "W": 64}, {"N": 2, "H": 96, "W": 128}])
def raft_small():
    import torch

    def corr_volume(self, fmap1, fmap2):
        # torchvision's own divides by torch.sqrt(torch.tensor(num_channels)), which
        # 1.13 exports as a Sqrt of an int64 tensor that ONNX Runtime refuses to load;
        # the same division by a float is what a user exporting RAFT writes instead.
        batch_size, num_channels, h, w = fmap1.shape
        fmap1 = fmap1.view(batch_size, num_channels, h * w)
        fmap2 = fmap2.view(batch_size, num_channels, h * w)
        corr = torch.matmul(fmap1.transpose(1, 2), fmap2).view(batch_size, h, w, 1, h, w)
        return corr / float(num_channels) ** 0.5

    class Wrap(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = tv().optical_flow.raft_small(weights=None)
            self.m.corr_block._compute_corr_volume = types.MethodType(corr_volume, self.m.corr_block)

        def forward(self, a, b):
            return self.m(a, b, num_flow_updates=3)[-1]
    spec = [("image1", "f", ["N", 3, "H", "W"]), ("image2", "f", ["N", 3, "H", "W"])]
    return Wrap(), spec, ["flow"], {"flow": {0: "N", 2: "H", 3: "W"}}


# Hand-written modules of the kinds users export.
SEQ = [{"batch": 2, "seq": 7}, {"batch": 3, "seq": 12}]


@net("lstm_tagger", 11, SEQ)
def lstm_tagger():
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 32)
            self.rnn = nn.LSTM(32, 24, num_layers=2, bidirectional=True, batch_first=True)
            self.out = nn.Linear(48, 5)

        def forward(self, tokens):
            h, _ = self.rnn(self.emb(tokens))
            return torch.log_softmax(self.out(h), -1)
    return M(), [("tokens", "i", ["batch", "seq"])], ["tags"], {"tags": {0: "batch", 1: "seq"}}


@net("gru_packed", 14, SEQ)
def gru_packed():
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 16)
            self.rnn = nn.GRU(16, 20, batch_first=True)
            self.out = nn.Linear(20, 4)

        def forward(self, tokens, mask):
            lengths = mask.sum(1)
            packed = nn.utils.rnn.pack_padded_sequence(self.emb(tokens), lengths, batch_first=True,
                                                       enforce_sorted=False)
            # An explicit initial state: the exporter's own one keeps the traced batch size.
            h, last = self.rnn(packed, torch.zeros(1, tokens.size(0), 20))
            h, _ = nn.utils.rnn.pad_packed_sequence(h, batch_first=True)
            return self.out(h), last[0]
    return (M(), [("tokens", "i", ["batch", "seq"]), ("mask", "m", ["batch", "seq"])], ["per_step", "last"],
            {})


@net("transformer_seq2seq", 13, [{"batch": 2, "src": 7, "tgt": 5}, {"batch": 3, "src": 11, "tgt": 9}])
def transformer_seq2seq():
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_emb = nn.Embedding(10, 32)
            self.tgt_emb = nn.Embedding(10, 32)
            self.t = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                    dim_feedforward=64, dropout=0.0, batch_first=True)
            self.out = nn.Linear(32, 10)

        def forward(self, src, tgt, src_mask):
            pos = torch.arange(tgt.size(1))
            causal = torch.zeros(pos.size(0), pos.size(0)).masked_fill(pos[None, :] > pos[:, None], float("-inf"))
            pad = src_mask == 0
            h = self.t(self.src_emb(src), self.tgt_emb(tgt), tgt_mask=causal, src_key_padding_mask=pad,
                       memory_key_padding_mask=pad)
            return self.out(h)
    spec = [("src", "i", ["batch", "src"]), ("tgt", "i", ["batch", "tgt"]), ("src_mask", "m", ["batch", "src"])]
    return M(), spec, ["logits"], {"logits": {0: "batch", 1: "tgt"}}


@net("mha_masks", 12, [{"batch": 2, "seq": 6}, {"batch": 4, "seq": 10}])
def mha_masks():
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.att = nn.MultiheadAttention(32, 4, batch_first=True)
            self.norm = nn.LayerNorm(32)

        def forward(self, x, mask):
            n = x.size(1)
            pos = torch.arange(n)
            causal = pos[None, :] > pos[:, None]
            y, w = self.att(x, x, x, key_padding_mask=mask == 0, attn_mask=causal)
            return self.norm(x + y), w
    spec = [("x", "f", ["batch", "seq", 32]), ("mask", "m", ["batch", "seq"])]
    return M(), spec, ["y", "weights"], {"y": {0: "batch", 1: "seq"}}


@net("tiny_gpt", 14, SEQ)
def tiny_gpt():
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x, bias):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / (c // self.heads) ** 0.5)
            att = torch.softmax(att.masked_fill(bias, float("-inf")), dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
            x = x + self.proj(y)
            return x + self.mlp(self.ln2(x))

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(10, 32)
            self.pos = nn.Embedding(64, 32)
            self.blocks = nn.ModuleList([Block(32, 4) for _ in range(2)])
            self.head = nn.Linear(32, 10, bias=False)

        def forward(self, tokens, mask):
            t = tokens.size(1)
            x = self.tok(tokens) + self.pos(torch.arange(t, device=tokens.device))[None]
            causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
            bias = causal[None, None] | (mask[:, None, None, :] == 0)
            for blk in self.blocks:
                x = blk(x, bias)
            return self.head(x)
    spec = [("tokens", "i", ["batch", "seq"]), ("mask", "m", ["batch", "seq"])]
    return M(), spec, ["logits"], {"logits": {0: "batch", 1: "seq"}}


@net("unet", 11, [{"N": 1, "H": 37, "W": 45}, {"N": 2, "H": 64, "W": 50}])
def unet():
    import torch
    from torch import nn
    import torch.nn.functional as F

    def double(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                             nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class Up(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.up = nn.ConvTranspose2d(i, i // 2, 2, stride=2)
            self.conv = double(i, o)

        def forward(self, x1, x2):
            x1 = self.up(x1)
            dy = x2.size(2) - x1.size(2)
            dx = x2.size(3) - x1.size(3)
            x1 = F.pad(x1, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
            return self.conv(torch.cat([x2, x1], dim=1))

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.inc = double(3, 8)
            self.d1 = nn.Sequential(nn.MaxPool2d(2), double(8, 16))
            self.d2 = nn.Sequential(nn.MaxPool2d(2), double(16, 32))
            self.d3 = nn.Sequential(nn.MaxPool2d(2), double(32, 64))
            self.u1, self.u2, self.u3 = Up(64, 32), Up(32, 16), Up(16, 8)
            self.outc = nn.Conv2d(8, 2, 1)

        def forward(self, x):
            x1 = self.inc(x)
            x2 = self.d1(x1)
            x3 = self.d2(x2)
            x4 = self.d3(x3)
            return self.outc(self.u3(self.u2(self.u1(x4, x3), x2), x1))
    return M(), IMG_SPEC, ["mask"], {"mask": {0: "N", 2: "H", 3: "W"}}


@net("yolo_head", 12, [{"N": 1, "H": 64, "W": 64}, {"N": 2, "H": 96, "W": 128}])
def yolo_head():
    import torch
    from torch import nn

    def conv(i, o, s):
        return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.SiLU())

    class Detect(nn.Module):
        def __init__(self, nc, chans, strides):
            super().__init__()
            self.no, self.na = nc + 5, 3
            self.strides = strides
            self.register_buffer("anchors", torch.tensor([[10., 13, 16, 30, 33, 23], [30., 61, 62, 45, 59, 119],
                                                          [116., 90, 156, 198, 373, 326]]).view(3, 3, 2))
            self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in chans)

        def forward(self, feats):
            z = []
            for i, x in enumerate(feats):
                x = self.m[i](x)
                bs, _, ny, nx = x.shape
                x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
                yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
                grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()
                anchor = self.anchors[i].view(1, self.na, 1, 1, 2)
                y = x.sigmoid()
                xy = (y[..., 0:2] * 2 - 0.5 + grid) * self.strides[i]
                wh = (y[..., 2:4] * 2) ** 2 * anchor
                y = torch.cat((xy, wh, y[..., 4:]), -1)
                z.append(y.view(bs, -1, self.no))
            return torch.cat(z, 1)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.s1 = nn.Sequential(conv(3, 8, 2), conv(8, 16, 2), conv(16, 16, 2))
            self.s2 = conv(16, 32, 2)
            self.s3 = conv(32, 32, 2)
            self.detect = Detect(4, [16, 32, 32], [8, 16, 32])

        def forward(self, x):
            a = self.s1(x)
            b = self.s2(a)
            return self.detect([a, b, self.s3(b)])
    return M(), IMG_SPEC, ["pred"], {"pred": {0: "N", 1: "anchors"}}


@net("index_nonzero", 11, [{"N": 2, "L": 9}, {"N": 3, "L": 14}])
def index_nonzero():
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(16, 16)

        def forward(self, x):
            h = self.lin(x)
            keep = h[..., 0] > h[..., 1]
            filled = h.masked_fill(~keep[..., None], 0.0)
            picked = h[keep]  # (count, 16): rows a nonzero index selects
            where = torch.nonzero(keep)  # (count, 2)
            return filled, picked, where, picked.sum(0)
    return (M(), [("x", "f", ["N", "L", 16])], ["filled", "picked", "where", "total"], {})


@net("topk_gather_scatter", 13, [{"N": 2, "L": 9}, {"N": 3, "L": 16}])
def topk_gather_scatter():
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.score = nn.Linear(16, 1)

        def forward(self, x):
            s = self.score(x).squeeze(-1)
            k = x.size(1) // 2
            vals, idx = s.topk(k, dim=1)
            g = torch.gather(x, 1, idx[..., None].expand(-1, -1, x.size(2)))
            out = torch.zeros_like(x).scatter(1, idx[..., None].expand(-1, -1, x.size(2)), g)
            counts = torch.zeros(x.size(0), x.size(1)).scatter_add(1, idx, torch.ones_like(vals))
            first = vals[:, : min(k, 3)]
            return g * vals[..., None], out, counts, first
    return M(), [("x", "f", ["N", "L", 16])], ["picked", "scattered", "counts", "first"], {}


@net("strided_posenc", 15, [{"N": 2, "L": 12}, {"N": 3, "L": 21}])
def strided_posenc():
    import math
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(16, 16)

        def forward(self, x):
            flat = self.lin(x).reshape(x.size(0), -1)  # (N, 16 L): four interleaved coordinates
            dx, dy, dw, dh = flat[:, 0::4], flat[:, 1::4], flat[:, 2::4], flat[:, 3::4]
            boxes = torch.stack((dx - dw.exp(), dy - dh.exp(), dx + dw.exp(), dy + dh.exp()), dim=2)
            sub = x[:, ::2]  # a subsampled sequence with a positional encoding over its length
            pos = torch.arange(sub.size(1), dtype=torch.float32)[:, None]
            div = torch.exp(torch.arange(0, 16, 2, dtype=torch.float32) * (-math.log(10000.0) / 16))
            pe = torch.cat((torch.sin(pos * div), torch.cos(pos * div)), dim=1)
            odd = x[:, 1::3]
            return boxes, sub + pe[None], odd.mean(1)
    return M(), [("x", "f", ["N", "L", 16])], ["boxes", "encoded", "odd"], {}


@net("crnn", 12, [{"N": 1, "W": 64}, {"N": 2, "W": 100}])
def crnn():
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.cnn = nn.Sequential(
                nn.Conv2d(1, 16, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2, 2),
                nn.Conv2d(16, 32, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2, 2),
                nn.Conv2d(32, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d((2, 1), (2, 1)),
                nn.Conv2d(32, 32, (4, 1)))
            self.rnn = nn.LSTM(32, 32, bidirectional=True)
            self.fc = nn.Linear(64, 11)

        def forward(self, x):
            f = self.cnn(x).squeeze(2).permute(2, 0, 1)  # (W/4, N, C)
            h, _ = self.rnn(f)
            return self.fc(h).log_softmax(2)
    return M(), [("image", "f", ["N", 1, 32, "W"])], ["logprobs"], {"logprobs": {0: "steps", 1: "N"}}


@net("dgcnn_knn", 11, [{"N": 1, "P": 32}, {"N": 2, "P": 48}])
def dgcnn_knn():
    import torch
    from torch import nn

    def knn(x, k):
        inner = -2 * torch.matmul(x.transpose(2, 1), x)
        xx = torch.sum(x ** 2, dim=1, keepdim=True)
        return (-xx - inner - xx.transpose(2, 1)).topk(k=k, dim=-1)[1]

    def edge(x, k):
        n, c, p = x.shape
        idx = knn(x, k) + torch.arange(0, n).view(-1, 1, 1) * p
        feat = x.transpose(2, 1).contiguous().view(n * p, -1)[idx.view(-1), :].view(n, p, k, c)
        x = x.transpose(2, 1).view(n, p, 1, c).repeat(1, 1, k, 1)
        return torch.cat((feat - x, x), dim=3).permute(0, 3, 1, 2)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Sequential(nn.Conv2d(6, 16, 1, bias=False), nn.BatchNorm2d(16), nn.LeakyReLU(0.2))
            self.c2 = nn.Sequential(nn.Conv2d(32, 16, 1, bias=False), nn.BatchNorm2d(16), nn.LeakyReLU(0.2))
            self.fc = nn.Linear(32, 8)

        def forward(self, pts):
            x1 = self.c1(edge(pts, 8)).max(dim=-1)[0]
            x2 = self.c2(edge(x1, 8)).max(dim=-1)[0]
            x = torch.cat((x1, x2), 1)
            return self.fc(x.max(-1)[0])
    return M(), [("points", "f", ["N", 3, "P"])], ["logits"], {"logits": {0: "N"}}


@net("espcn_upsample", 11, [{"N": 1, "H": 24, "W": 24}, {"N": 2, "H": 30, "W": 40}])
def espcn_upsample():
    from torch import nn
    import torch.nn.functional as F

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 16, 5, padding=2), nn.Tanh(), nn.Conv2d(16, 12, 3, padding=1))
            self.shuffle = nn.PixelShuffle(2)

        def forward(self, x):
            y = self.shuffle(self.body(x))
            base = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)
            half = F.interpolate(y, size=(x.size(2), x.size(3)), mode="nearest")
            return y + base, half
    return M(), IMG_SPEC, ["sr", "half"], {"sr": {0: "N", 2: "H2", 3: "W2"}}


@net("conformer_subsample", 17, [{"N": 1, "T": 40}, {"N": 2, "T": 67}])
def conformer_subsample():
    import math
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = nn.Sequential(nn.Conv2d(1, 8, 3, 2), nn.ReLU(), nn.Conv2d(8, 8, 3, 2), nn.ReLU())
            self.proj = nn.Linear(8 * 19, 32)
            self.ln = nn.LayerNorm(32)
            self.pw1 = nn.Conv1d(32, 64, 1)
            self.dw = nn.Conv1d(32, 32, 7, padding=3, groups=32)
            self.bn = nn.BatchNorm1d(32)
            self.pw2 = nn.Conv1d(32, 32, 1)

        def forward(self, feats, mask):
            x = self.sub(feats[:, None])  # (N, 8, T', 19)
            n, c, t, f = x.shape
            x = self.proj(x.transpose(1, 2).reshape(n, t, c * f))
            pos = torch.arange(t, dtype=torch.float32)[:, None]
            div = torch.exp(torch.arange(0, 32, 2, dtype=torch.float32) * (-math.log(10000.0) / 32))
            pe = torch.zeros(t, 32)
            pe[:, 0::2] = torch.sin(pos * div)
            pe[:, 1::2] = torch.cos(pos * div)
            x = self.ln(x * math.sqrt(32) + pe)
            sub_mask = mask[:, :-2:2][:, :-2:2]  # the mask follows the two stride-2 convolutions
            y = nn.functional.glu(self.pw1(x.transpose(1, 2)), dim=1)
            y = self.pw2(nn.functional.silu(self.bn(self.dw(y))))
            return x + y.transpose(1, 2), sub_mask
    spec = [("feats", "f", ["N", "T", 80]), ("mask", "m", ["N", "T"])]
    return M(), spec, ["encoded", "encoded_mask"], {"encoded": {0: "N", 1: "frames"}}


@net("tcn_causal", 16, [{"N": 1, "T": 50}, {"N": 3, "T": 33}])
def tcn_causal():
    import torch
    from torch import nn
    import torch.nn.functional as F

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = nn.ModuleList(nn.Conv1d(8 if i else 4, 8, 3, dilation=2 ** i) for i in range(4))
            self.out = nn.Conv1d(8, 2, 1)

        def forward(self, x):
            for i, conv in enumerate(self.convs):
                y = conv(F.pad(x, (2 * 2 ** i, 0)))
                x = torch.tanh(y) * torch.sigmoid(y) + (x if x.size(1) == 8 else 0)
            return self.out(x)[:, :, -x.size(2) // 2:]
    return M(), [("signal", "f", ["N", 4, "T"])], ["tail"], {}


@net("moe_router", 15, [{"batch": 2, "seq": 5}, {"batch": 3, "seq": 8}])
def moe_router():
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(16, 4)
            self.experts = nn.ModuleList(nn.Linear(16, 16) for _ in range(4))

        def forward(self, x):
            b, s, d = x.shape
            flat = x.reshape(-1, d)
            probs = torch.softmax(self.gate(flat), -1)
            w, sel = probs.topk(2, dim=-1)
            w = w / w.sum(-1, keepdim=True)
            out = torch.zeros_like(flat)
            for e, expert in enumerate(self.experts):
                hit = (sel == e).any(-1)
                rows = torch.nonzero(hit).squeeze(1)
                weight = (w * (sel == e).float()).sum(-1)[rows]
                out = out.index_add(0, rows, expert(flat[rows]) * weight[:, None])
            return out.view(b, s, d), sel.view(b, s, 2)
    return M(), [("x", "f", ["batch", "seq", 16])], ["mixed", "experts"], {}


@net("scripted_rnn_loop", 14, SEQ)
def scripted_rnn_loop():
    import torch
    from torch import nn

    class Cell(nn.Module):
        def __init__(self):
            super().__init__()
            self.ih = nn.Linear(8, 12)
            self.hh = nn.Linear(12, 12)
            self.out = nn.Linear(12, 3)

        def forward(self, x):
            h = torch.zeros(x.size(0), 12)
            steps = []
            for t in range(x.size(1)):
                h = torch.tanh(self.ih(x[:, t]) + self.hh(h))
                steps.append(self.out(h))
            return torch.stack(steps, 1), h
    return (torch.jit.script(Cell()), [("x", "f", ["batch", "seq", 8])], ["steps", "last"],
            {"steps": {0: "batch", 1: "seq"}})


# ---------------------------------------------------------------------------------------
# Export, peers, truth, zeroing.

ORT_TYPES = {1: "float32", 11: "float64", 7: "int64", 6: "int32", 2: "uint8", 3: "int8", 9: "bool"}


def dims_of(t):
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.tensor_type.shape.dim]


def node_outputs(graph):
    seen, names = set(), []
    for n in graph.node:
        for o in n.output:
            if o and o not in seen:
                seen.add(o)
                names.append(o)
    return names


def export(entry, path):
    import torch
    torch.manual_seed(0)
    model, specs, outputs, out_axes = entry["build"]()
    model.eval()
    args = example(specs, entry["bindings"][0])
    axes = {}
    for name, _, dims, *_ in specs:
        named = {k: d for k, d in enumerate(dims) if isinstance(d, str)}
        if named:
            axes[name] = named
    axes.update(out_axes)
    t = time.time()
    # Not under torch.no_grad(): without grad, nn.MultiheadAttention and the
    # Transformer layers take their fused fast path, which 1.13 cannot export.
    torch.onnx.export(model, tuple(args), path, opset_version=entry["opset"],
                      input_names=[s[0] for s in specs], output_names=outputs, dynamic_axes=axes,
                      do_constant_folding=True)
    return time.time() - t, {s[0]: s[1] for s in specs}


def onnx_peer(model):
    import onnx
    t = time.time()
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception as e:  # the peer's own failure is part of the record
        return {"onnx_error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}", "onnx_s": time.time() - t}
    spent = time.time() - t
    known = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        d = dims_of(vi.type)
        if d is not None:
            known[vi.name] = d
    return {"onnx": {n: known[n] for n in node_outputs(model.graph) if n in known}, "onnx_s": spent}


def elem_types(model):
    import onnx
    types = {}
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
        vis = list(inferred.graph.value_info) + list(inferred.graph.output)
    except Exception:
        vis = list(model.graph.value_info) + list(model.graph.output)
    for vi in vis:
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
            types[vi.name] = vi.type.tensor_type.elem_type
        elif vi.type.WhichOneof("value"):
            types[vi.name] = None  # a sequence or optional: ONNX Runtime returns no tensor
    return types


def probe(model, path):
    """A copy of model with every tensor a main-graph node produces as a graph output."""
    import onnx
    from onnx import helper
    p = onnx.ModelProto()
    p.CopyFrom(model)
    types = elem_types(model)
    have = {o.name for o in p.graph.output}
    wanted = [n for n in node_outputs(p.graph) if n not in have and types.get(n, 0) is not None]
    keep = [vi for vi in p.graph.value_info if vi.name not in set(wanted)]
    del p.graph.value_info[:]
    p.graph.value_info.extend(keep)
    for n in wanted:
        if types.get(n):
            p.graph.output.append(helper.make_tensor_value_info(n, types[n], None))
        else:
            p.graph.output.append(onnx.ValueInfoProto(name=n))
    onnx.save(p, path)


def truth(model, probe_path, kinds, bindings, ort_dir):
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    record_inputs = [[i.name, kinds[i.name], dims_of(i.type)] for i in inputs]
    runs = []
    for b in bindings:
        feeds = []
        for i in inputs:
            dims = [b[d] if isinstance(d, str) else d for d in dims_of(i.type)]
            feeds.append([i.name, kinds[i.name], ORT_TYPES[i.type.tensor_type.elem_type], dims])
        runs.append({"feeds": feeds})
    with tempfile.TemporaryDirectory() as tmp:
        job, out = os.path.join(tmp, "job.json"), os.path.join(tmp, "out.json")
        with open(job, "w") as f:
            json.dump({"model": probe_path, "runs": runs}, f)
        subprocess.run(["node", os.path.join(HERE, "record_truth.js"), ort_dir, job, out], check=True, timeout=1800)
        with open(out) as f:
            got = json.load(f)["runs"]
    produced = node_outputs(model.graph)
    result = []
    for b, r in zip(bindings, got):
        if "error" in r:
            raise RuntimeError(f"ONNX Runtime at {b}: {r['error']}")
        result.append({"binding": b, "shapes": {n: r["shapes"][n] for n in produced if n in r["shapes"]}})
    return record_inputs, result


def zero_weights(model):
    from onnx import TensorProto as T
    floats = {T.FLOAT: 4, T.FLOAT16: 2, T.DOUBLE: 8, T.BFLOAT16: 2}
    for t in model.graph.initializer:
        count = 1
        for d in t.dims:
            count *= d
        if t.data_type in floats and count >= ZERO_AT:
            for field in ("float_data", "double_data", "int32_data"):
                t.ClearField(field)
            t.raw_data = bytes(count * floats[t.data_type])


def generate(entry, out_dir, ort_dir):
    import onnx
    import torch
    d = os.path.join(out_dir, entry["name"])
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    export_s, kinds = export(entry, path)
    model = onnx.load(path)
    peers = onnx_peer(model)
    peers["ort_symbolic_error"] = ORT_SYMBOLIC_ERROR
    probe_path = os.path.join(d, "probe.onnx")
    try:
        probe(model, probe_path)
        inputs, runs = truth(model, probe_path, kinds, entry["bindings"], ort_dir)
    finally:
        if os.path.exists(probe_path):
            os.remove(probe_path)
    zero_weights(model)
    onnx.save(model, path)
    record = {"inputs": inputs, "opset": entry["opset"], "exporter": "torchscript", "torch": torch.__version__,
              "export_s": round(export_s, 1), "truth": runs, "peers": peers, "nodes": len(model.graph.node)}
    with open(os.path.join(d, "record.json"), "w") as f:
        json.dump(record, f)
    return record


def pack(src, archive):
    """A reproducible archive: sorted names, one mtime, root owner, fixed modes."""
    top = "real-torch113"

    def member(name, path):
        info = tarfile.TarInfo(name)
        info.mtime = 1700000000
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        if os.path.isdir(path):
            info.type, info.mode = tarfile.DIRTYPE, 0o755
        else:
            info.size, info.mode = os.path.getsize(path), 0o644
        return info

    tmp = archive + ".tmp"
    with lzma.open(tmp, "wb", preset=9) as xz, tarfile.open(fileobj=xz, mode="w|", format=tarfile.GNU_FORMAT) as tar:
        tar.addfile(member(top + "/", src))
        for name in sorted(os.listdir(src)):
            d = os.path.join(src, name)
            files = ["model.onnx", "record.json"]
            if not os.path.isdir(d) or not all(os.path.exists(os.path.join(d, f)) for f in files):
                continue
            tar.addfile(member(f"{top}/{name}/", d))
            for f in files:
                p = os.path.join(d, f)
                with open(p, "rb") as fh:
                    tar.addfile(member(f"{top}/{name}/{f}", p), fh)
    os.replace(tmp, archive)


def main():
    argv = sys.argv[1:]
    if "--list" in argv:
        for e in NETS:
            print(f"{e['name']:40} opset {e['opset']}  {e['bindings']}")
        return 0
    if "--pack" in argv:
        k = argv.index("--pack")
        pack(argv[k + 1], argv[k + 2])
        return 0
    if not argv or argv[0].startswith("--"):
        sys.exit(__doc__)
    out_dir = argv[0]
    ort_dir = os.path.join(ROOT, "build", "ort")
    if "--ort" in argv:
        ort_dir = argv[argv.index("--ort") + 1]
    only = None
    if "--only" in argv:
        only = set(argv[argv.index("--only") + 1].split(","))
    failed = []
    start = time.time()
    for e in NETS:
        if only and e["name"] not in only:
            continue
        t = time.time()
        try:
            r = generate(e, out_dir, ort_dir)
            n = len(r["truth"][0]["shapes"])
            print(f"{e['name']:40} opset {e['opset']:2}  {r['nodes']:5} nodes {n:5} values  {time.time() - t:6.1f} s",
                  flush=True)
        except Exception as ex:  # one network that does not export or run does not stop the rest
            failed.append(e["name"])
            print(f"{e['name']:40} FAILED: {type(ex).__name__}: {str(ex).splitlines()[0][:400] if str(ex) else ''}",
                  flush=True)
    print(f"{time.time() - start:.0f} s; failed: {', '.join(failed) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
