"""Write the model zoo (workloads/networks/*.csv, *.layers) from the architectures' public
definitions; nothing is downloaded.

    python workloads/networks/generate.py            # rewrite the files next to this script
    python workloads/networks/generate.py --check    # exit 1 if a committed file is stale

- ResNet-18 / ResNet-50: He et al., "Deep Residual Learning for Image Recognition" (CVPR 2016),
  Table 1; ResNet-50 with the stride on the first 1x1 convolution of a downsampling block
  (the paper's v1, as SCALE-Sim's own Resnet50.csv). SCALE-Sim topology CSVs (convolutions
  and the classifier only, as SCALE-Sim models a network); IFMAP sizes are the extent the
  windows cover, padding included (229 for conv1: 224 + 3 + 2, the last padding row is never
  read), so every output extent is the paper's under SCALE-Sim's convention and ours.
- MobileNetV2: Sandler et al. (CVPR 2018), Table 2: inverted residual blocks (t, c, n, s),
  ReLU6 run as ReLU (the same cost), depthwise 3x3 convolutions, residual adds.
- BERT-base encoder layer: Devlin et al. (2019): hidden 768, 12 heads of 64, FFN 3072,
  post-norm, GELU; sequence length 128.
- GPT-2 (small): Radford et al. (2019), 12 pre-norm blocks, hidden 768, 12 heads, FFN 3072,
  vocabulary 50257; prefill of 128 tokens, LM head on every position.
- Llama-2-7B layer: Touvron et al. (2023): hidden 4096, 32 heads of 128, SwiGLU FFN 11008,
  RMSNorm, rotary embeddings (two elementwise products and an add on Q and K); a prefill of
  512 tokens and one decode step with 512 cached tokens.
Every tensor is f32 (4 bytes); batch 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
CSV_HEADER = ("Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
              "Num Filter, Strides,")


# ---------------------------------------------------------------------------------------------
# SCALE-Sim topologies

def _row(name: str, h: int, w: int, r: int, s: int, c: int, k: int, stride: int) -> str:
    return f"{name}, {h}, {w}, {r}, {s}, {c}, {k}, {stride},"


def _conv(name: str, size: int, r: int, c: int, k: int, stride: int = 1) -> str:
    """A 'same'-padded r x r convolution of a size x size input: the IFMAP is the extent its
    windows cover, (out - 1)·stride + r (padding included, never-read trailing rows not), so
    SCALE-Sim's ceil and a convolution's floor give the same output extent."""
    out = (size + 2 * ((r - 1) // 2) - r) // stride + 1
    extent = (out - 1) * stride + r
    return _row(name, extent, extent, r, r, c, k, stride)


def _pointwise(name: str, size: int, c: int, k: int, stride: int) -> str:
    """A 1x1 convolution (no padding): IFMAP covered by its windows, as `_conv`."""
    extent = (size - 1) // stride * stride + 1
    return _row(name, extent, extent, 1, 1, c, k, stride)


def resnet18(image: int = 224) -> Iterator[str]:
    """`image` other than 224 (e.g. 32, for a peer too slow for the full size) scales every
    spatial extent; conv1 and the max pool each halve it, as in the paper."""
    yield f"# ResNet-18 (He et al. 2016, Table 1), {image}x{image}, batch 1; IFMAP sizes include padding"
    yield CSV_HEADER
    yield _conv("conv1", image, 7, 3, 64, 2)
    size, c = image // 4, 64
    for stage, k in enumerate((64, 128, 256, 512), start=2):
        for block in range(2):
            stride = 2 if block == 0 and stage > 2 else 1
            yield _conv(f"conv{stage}_{block + 1}a", size, 3, c, k, stride)
            out = size // stride
            yield _conv(f"conv{stage}_{block + 1}b", out, 3, k, k)
            if stride == 2:
                yield _pointwise(f"conv{stage}_{block + 1}_down", size, c, k, 2)
            size, c = out, k
    yield _row("fc", 1, 1, 1, 1, 512, 1000, 1)


def resnet50() -> Iterator[str]:
    yield "# ResNet-50 (He et al. 2016, Table 1; stride on the first 1x1 of a block), 224x224, batch 1"
    yield CSV_HEADER
    yield _conv("conv1", 224, 7, 3, 64, 2)
    size, c = 56, 64
    for stage, (width, blocks) in enumerate(((64, 3), (128, 4), (256, 6), (512, 3)), start=2):
        for block in range(blocks):
            stride = 2 if block == 0 and stage > 2 else 1
            out = size // stride
            name = f"conv{stage}_{block + 1}"
            yield _pointwise(f"{name}a", size, c, width, stride)
            yield _conv(f"{name}b", out, 3, width, width)
            yield _row(f"{name}c", out, out, 1, 1, width, 4 * width, 1)
            if block == 0:
                yield _pointwise(f"{name}_down", size, c, 4 * width, stride)
            size, c = out, 4 * width
    yield _row("fc", 1, 1, 1, 1, 2048, 1000, 1)


# ---------------------------------------------------------------------------------------------
# layer lists

def mobilenetv2() -> Iterator[str]:
    yield "# MobileNetV2 (Sandler et al. 2018, Table 2), 224x224, batch 1; ReLU6 runs as ReLU"
    yield "conv1  conv:C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1"
    yield f"conv1.relu  relu:N={32 * 112 * 112}"
    size, c = 112, 32
    blocks = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
              (6, 160, 3, 2), (6, 320, 1, 1))
    index = 0
    for t, k, n, s in blocks:
        for i in range(n):
            index += 1
            stride = s if i == 0 else 1
            hidden = c * t
            out = (size + 2 - 3) // stride + 1
            name = f"block{index}"
            if t != 1:
                yield f"{name}.expand  conv:C={c},H={size},W={size},K={hidden},R=1,S=1"
                yield f"{name}.expand.relu  relu:N={hidden * size * size}"
            yield (f"{name}.dw  conv:C={hidden},H={size},W={size},K={hidden},R=3,S=3,stride={stride},"
                   f"pad=1,groups={hidden}")
            yield f"{name}.dw.relu  relu:N={hidden * out * out}"
            yield f"{name}.project  conv:C={hidden},H={out},W={out},K={k},R=1,S=1"
            if stride == 1 and c == k:
                yield f"{name}.add  vector_add:N={k * out * out}"
            size, c = out, k
    yield f"conv_last  conv:C={c},H={size},W={size},K=1280,R=1,S=1"
    yield f"conv_last.relu  relu:N={1280 * size * size}"
    yield f"pool  avgpool2d:N=1,C=1280,H={size},W={size},R={size},S={size},stride=1"
    yield "fc  gemm:M=1,N=1000,K=1280"


def _attention(prefix: str, tokens: int, context: int, heads: int, dim: int) -> Iterator[str]:
    """Scores, softmax and context of multi-head attention: `tokens` queries over `context` keys."""
    yield f"{prefix}.scores  batched_gemm:batch={heads},M={tokens},N={context},K={dim}"
    yield f"{prefix}.softmax  softmax:M={heads * tokens},N={context}"
    yield f"{prefix}.context  batched_gemm:batch={heads},M={tokens},N={dim},K={context}"


def bert_base_layer(seq: int = 128) -> Iterator[str]:
    h, heads, dim, ffn = 768, 12, 64, 3072
    yield f"# BERT-base encoder layer (Devlin et al. 2019): hidden {h}, {heads} heads, FFN {ffn}, seq {seq}"
    yield f"qkv  gemm:M={seq},N={3 * h},K={h}"
    yield f"qkv.split_heads  permute:d0={seq},d1=3,d2={heads},d3={dim},p0=1,p1=2,p2=0,p3=3"
    yield from _attention("attn", seq, seq, heads, dim)
    yield f"attn.merge_heads  permute:d0=1,d1={heads},d2={seq},d3={dim},p0=0,p1=2,p2=1,p3=3"
    yield f"attn.out  gemm:M={seq},N={h},K={h}"
    yield f"attn.residual  vector_add:N={seq * h}"
    yield f"attn.norm  layernorm:M={seq},N={h},eps=1e-12"
    yield f"ffn.up  gemm:M={seq},N={ffn},K={h}"
    yield f"ffn.gelu  gelu:N={seq * ffn}"
    yield f"ffn.down  gemm:M={seq},N={h},K={ffn}"
    yield f"ffn.residual  vector_add:N={seq * h}"
    yield f"ffn.norm  layernorm:M={seq},N={h},eps=1e-12"


def gpt2(seq: int = 128, blocks: int = 12) -> Iterator[str]:
    h, heads, dim, ffn, vocab = 768, 12, 64, 3072, 50257
    yield (f"# GPT-2 small (Radford et al. 2019): {blocks} blocks, hidden {h}, {heads} heads, "
           f"prefill {seq} tokens")
    for b in range(blocks):
        p = f"h{b}"
        yield f"{p}.ln1  layernorm:M={seq},N={h}"
        yield f"{p}.qkv  gemm:M={seq},N={3 * h},K={h}"
        yield f"{p}.split_heads  permute:d0={seq},d1=3,d2={heads},d3={dim},p0=1,p1=2,p2=0,p3=3"
        yield from _attention(f"{p}.attn", seq, seq, heads, dim)
        yield f"{p}.merge_heads  permute:d0=1,d1={heads},d2={seq},d3={dim},p0=0,p1=2,p2=1,p3=3"
        yield f"{p}.proj  gemm:M={seq},N={h},K={h}"
        yield f"{p}.residual1  vector_add:N={seq * h}"
        yield f"{p}.ln2  layernorm:M={seq},N={h}"
        yield f"{p}.fc  gemm:M={seq},N={ffn},K={h}"
        yield f"{p}.gelu  gelu:N={seq * ffn}"
        yield f"{p}.fc_proj  gemm:M={seq},N={h},K={ffn}"
        yield f"{p}.residual2  vector_add:N={seq * h}"
    yield f"ln_f  layernorm:M={seq},N={h}"
    yield f"lm_head  gemm:M={seq},N={vocab},K={h}"


def llama2_7b_layer(tokens: int, context: int, what: str) -> Iterator[str]:
    h, heads, dim, ffn = 4096, 32, 128, 11008
    yield (f"# Llama-2-7B decoder layer (Touvron et al. 2023): hidden {h}, {heads} heads of {dim}, "
           f"SwiGLU {ffn}; {what}")
    yield f"attn_norm  rmsnorm:M={tokens},N={h},eps=1e-05"
    yield f"qkv  gemm:M={tokens},N={3 * h},K={h}"
    yield f"rope.cos  vector_mul:N={2 * tokens * h}"
    yield f"rope.sin  vector_mul:N={2 * tokens * h}"
    yield f"rope.add  vector_add:N={2 * tokens * h}"
    yield f"split_heads  permute:d0={tokens},d1=3,d2={heads},d3={dim},p0=1,p1=2,p2=0,p3=3"
    yield from _attention("attn", tokens, context, heads, dim)
    yield f"merge_heads  permute:d0=1,d1={heads},d2={tokens},d3={dim},p0=0,p1=2,p2=1,p3=3"
    yield f"attn.out  gemm:M={tokens},N={h},K={h}"
    yield f"attn.residual  vector_add:N={tokens * h}"
    yield f"ffn_norm  rmsnorm:M={tokens},N={h},eps=1e-05"
    yield f"ffn.gate_up  gemm:M={tokens},N={2 * ffn},K={h}"
    yield f"ffn.silu  silu:N={tokens * ffn}"
    yield f"ffn.mul  vector_mul:N={tokens * ffn}"
    yield f"ffn.down  gemm:M={tokens},N={h},K={ffn}"
    yield f"ffn.residual  vector_add:N={tokens * h}"


ZOO = {
    "resnet18.csv": resnet18,
    "resnet50.csv": resnet50,
    "mobilenetv2.layers": mobilenetv2,
    "bert_base_layer.layers": bert_base_layer,
    "gpt2.layers": gpt2,
    "llama2_7b_prefill.layers": lambda: llama2_7b_layer(512, 512, "prefill of 512 tokens"),
    "llama2_7b_decode.layers": lambda: llama2_7b_layer(1, 513, "one decode step, 512 cached tokens"),
}


def render(name: str, lines: list[str] | None = None) -> str:
    lines = list(ZOO[name]()) if lines is None else lines
    tag = "# Generated by workloads/networks/generate.py; do not edit."
    if name.endswith(".csv"):
        # a SCALE-Sim topology's first line is its header: the comments go nowhere, SCALE-Sim
        # would read them as rows. The source is named in the generator instead.
        return "\n".join(line for line in lines if not line.startswith("#")) + "\n"
    return "\n".join([lines[0], tag, *lines[1:]]) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true")
    p.add_argument("--out", type=Path, default=HERE)
    args = p.parse_args(argv)
    stale = []
    for name in ZOO:
        path = args.out / name
        text = render(name)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    for name in stale:
        print(f"{name} is stale; run: python workloads/networks/generate.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
