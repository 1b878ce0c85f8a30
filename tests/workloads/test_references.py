"""Each numpy reference against a naive pure-Python loop nest written from the kernel's
definition (PolyBench/C 4.2 for the PolyBench kernels), on tiny sizes, in float64.

The naive versions index plain nested lists and share no code with the references, so a
wrong transpose, a missed alpha or an off-by-one boundary in a reference fails here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import workloads

Lists = dict[str, Any]
NAIVE: dict[str, Callable[..., Lists]] = {}


def naive(name: str) -> Callable[[Callable[..., Lists]], Callable[..., Lists]]:
    def register(fn: Callable[..., Lists]) -> Callable[..., Lists]:
        NAIVE[name] = fn
        return fn
    return register


@naive("gemm")
def _gemm(a: Lists, M: int, N: int, K: int, **_: Any) -> Lists:
    C = a["C"]
    for i in range(M):
        for j in range(N):
            acc = C[i][j]
            for k in range(K):
                acc += a["A"][i][k] * a["B"][k][j]
            C[i][j] = acc
    return {"C": C}


@naive("batched_gemm")
def _batched_gemm(a: Lists, batch: int, M: int, N: int, K: int, **_: Any) -> Lists:
    C = a["C"]
    for n in range(batch):
        for i in range(M):
            for j in range(N):
                C[n][i][j] += sum(a["A"][n][i][k] * a["B"][n][k][j] for k in range(K))
    return {"C": C}


@naive("vector_add")
def _vector_add(a: Lists, N: int, **_: Any) -> Lists:
    return {"z": [a["x"][i] + a["y"][i] for i in range(N)]}


@naive("saxpy")
def _saxpy(a: Lists, N: int, a_: float, **_: Any) -> Lists:
    return {"y": [a_ * a["x"][i] + a["y"][i] for i in range(N)]}


@naive("row_sum")
def _row_sum(a: Lists, M: int, N: int, **_: Any) -> Lists:
    sums = []
    for i in range(M):
        total = 0.0
        for j in range(N):
            total += a["A"][i][j]
        sums.append(total)
    return {"sums": sums}


NAIVE["row_sum_iter"] = _row_sum


@naive("softmax")
def _softmax(a: Lists, M: int, N: int, **_: Any) -> Lists:
    Y = []
    for i in range(M):
        row = a["X"][i]
        biggest = max(row)
        exps = [math.exp(v - biggest) for v in row]
        Y.append([e / math.fsum(exps) for e in exps])
    return {"Y": Y}


@naive("conv2d")
def _conv2d(a: Lists, N: int, C: int, H: int, W: int, K: int, R: int, S: int, stride: int,
            **_: Any) -> Lists:
    out = a["output"]
    P, Q = len(out[0][0]), len(out[0][0][0])
    assert ((H - R) // stride + 1, (W - S) // stride + 1) == (P, Q)
    for n in range(N):
        for k in range(K):
            for p in range(P):
                for q in range(Q):
                    for c in range(C):
                        for r in range(R):
                            for s in range(S):
                                y, x = p * stride + r, q * stride + s
                                out[n][k][p][q] += a["input"][n][c][y][x] * a["filter"][k][c][r][s]
    return {"output": out}


@naive("depthwise_conv2d")
def _depthwise(a: Lists, N: int, C: int, R: int, S: int, stride: int, **_: Any) -> Lists:
    out = a["output"]
    for n in range(N):
        for c in range(C):
            for p in range(len(out[n][c])):
                for q in range(len(out[n][c][p])):
                    window = [a["input"][n][c][p * stride + r][q * stride + s] * a["filter"][c][r][s]
                              for r in range(R) for s in range(S)]
                    out[n][c][p][q] += sum(window)
    return {"output": out}


@naive("jacobi-2d")
def _jacobi_2d(a: Lists, N: int, T: int, **_: Any) -> Lists:
    # PolyBench/C 4.2 kernel_jacobi_2d with TSTEPS = T // 2, plus one A -> B sweep if T is odd.
    A, B = a["A"], a["B"]
    for step in range(T // 2 + T % 2):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j])
        if step == T // 2:
            break  # the odd last sweep
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j])
    return {"A": A, "B": B} if T >= 2 else {"B": B}


# PolyBench/C 4.2, transcribed from the kernel_* functions.

@naive("2mm")
def _2mm(a: Lists, NI: int, NJ: int, NK: int, NL: int, alpha: float, beta: float, **_: Any) -> Lists:
    tmp, A, B, C, D = a["tmp"], a["A"], a["B"], a["C"], a["D"]
    for i in range(NI):
        for j in range(NJ):
            tmp[i][j] = 0.0
            for k in range(NK):
                tmp[i][j] += alpha * A[i][k] * B[k][j]
    for i in range(NI):
        for j in range(NL):
            D[i][j] *= beta
            for k in range(NJ):
                D[i][j] += tmp[i][k] * C[k][j]
    return {"tmp": tmp, "D": D}


@naive("atax")
def _atax(a: Lists, M: int, N: int, **_: Any) -> Lists:
    A, x, y, tmp = a["A"], a["x"], a["y"], a["tmp"]
    for i in range(N):
        y[i] = 0.0
    for i in range(M):
        tmp[i] = 0.0
        for j in range(N):
            tmp[i] = tmp[i] + A[i][j] * x[j]
        for j in range(N):
            y[j] = y[j] + A[i][j] * tmp[i]
    return {"y": y, "tmp": tmp}


@naive("bicg")
def _bicg(a: Lists, M: int, N: int, **_: Any) -> Lists:
    A, s, q, p, r = a["A"], a["s"], a["q"], a["p"], a["r"]
    for i in range(M):
        s[i] = 0.0
    for i in range(N):
        q[i] = 0.0
        for j in range(M):
            s[j] = s[j] + r[i] * A[i][j]
            q[i] = q[i] + A[i][j] * p[j]
    return {"s": s, "q": q}


@naive("mvt")
def _mvt(a: Lists, N: int, **_: Any) -> Lists:
    x1, x2, y_1, y_2, A = a["x1"], a["x2"], a["y_1"], a["y_2"], a["A"]
    for i in range(N):
        for j in range(N):
            x1[i] = x1[i] + A[i][j] * y_1[j]
    for i in range(N):
        for j in range(N):
            x2[i] = x2[i] + A[j][i] * y_2[j]
    return {"x1": x1, "x2": x2}


@naive("syrk")
def _syrk(a: Lists, N: int, M: int, alpha: float, beta: float, **_: Any) -> Lists:
    C, A = a["C"], a["A"]
    for i in range(N):
        for j in range(i + 1):
            C[i][j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i][j] += alpha * A[i][k] * A[j][k]
    return {"C": C}


# network-layer kernels (workloads/layers.py)
@naive("relu")
def _relu(a: Lists, N: int, **_: Any) -> Lists:
    return {"y": [x if x > 0 else 0.0 for x in a["x"]]}


@naive("sigmoid")
def _sigmoid(a: Lists, N: int, **_: Any) -> Lists:
    return {"y": [1.0 / (1.0 + math.exp(-x)) for x in a["x"]]}


@naive("silu")
def _silu(a: Lists, N: int, **_: Any) -> Lists:
    return {"y": [x / (1.0 + math.exp(-x)) for x in a["x"]]}


@naive("gelu")
def _gelu(a: Lists, N: int, **_: Any) -> Lists:
    c = math.sqrt(2.0 / math.pi)
    return {"y": [0.5 * x * (1.0 + math.tanh(c * (x + 0.044715 * x * x * x))) for x in a["x"]]}


@naive("vector_mul")
def _vector_mul(a: Lists, N: int, **_: Any) -> Lists:
    return {"z": [a["x"][i] * a["y"][i] for i in range(N)]}


def _pool(a: Lists, N: int, C: int, H: int, W: int, R: int, S: int, stride: int,
          combine: Callable[[list[float]], float]) -> Lists:
    P, Q = (H - R) // stride + 1, (W - S) // stride + 1
    x = a["input"]
    return {"output": [[[[combine([x[n][c][p * stride + r][q * stride + s]
                                   for r in range(R) for s in range(S)])
                          for q in range(Q)] for p in range(P)] for c in range(C)] for n in range(N)]}


@naive("maxpool2d")
def _maxpool2d(a: Lists, **p: Any) -> Lists:
    return _pool(a, p["N"], p["C"], p["H"], p["W"], p["R"], p["S"], p["stride"], max)


@naive("avgpool2d")
def _avgpool2d(a: Lists, **p: Any) -> Lists:
    return _pool(a, p["N"], p["C"], p["H"], p["W"], p["R"], p["S"], p["stride"],
                 lambda v: sum(v) / len(v))


@naive("layernorm")
def _layernorm(a: Lists, M: int, N: int, eps: float, **_: Any) -> Lists:
    Y, means, rstds = [], [], []
    for row in a["X"]:
        mean = sum(row) / N
        var = sum((v - mean) ** 2 for v in row) / N
        Y.append([(row[j] - mean) / math.sqrt(var + eps) * a["gamma"][j] + a["beta"][j] for j in range(N)])
        means.append(mean)
        rstds.append(1.0 / math.sqrt(var + eps))
    return {"Y": Y, "mean": means, "rstd": rstds}


@naive("rmsnorm")
def _rmsnorm(a: Lists, M: int, N: int, eps: float, **_: Any) -> Lists:
    rstds = [1.0 / math.sqrt(sum(v * v for v in row) / N + eps) for row in a["X"]]
    return {"Y": [[row[j] * r * a["gamma"][j] for j in range(N)] for row, r in zip(a["X"], rstds)],
            "rstd": rstds}


@naive("pad2d")
def _pad2d(a: Lists, N: int, C: int, H: int, W: int, top: int, left: int, bottom: int, right: int,
           value: float, **_: Any) -> Lists:
    x = a["input"]

    def at(n: int, c: int, h: int, w: int) -> float:
        inside = top <= h < top + H and left <= w < left + W
        return x[n][c][h - top][w - left] if inside else value
    return {"output": [[[[at(n, c, h, w) for w in range(W + left + right)]
                         for h in range(H + top + bottom)] for c in range(C)] for n in range(N)]}


@naive("permute")
def _permute(a: Lists, **p: Any) -> Lists:
    dims = [p[f"d{i}"] for i in range(4)]
    perm = [p[f"p{i}"] for i in range(4)]
    out_dims = [dims[k] for k in perm]
    x = a["input"]

    def at(o: tuple[int, ...]) -> float:
        i = [0] * 4
        for axis, k in enumerate(perm):
            i[k] = o[axis]
        return x[i[0]][i[1]][i[2]][i[3]]
    return {"output": [[[[at((o0, o1, o2, o3)) for o3 in range(out_dims[3])] for o2 in range(out_dims[2])]
                        for o1 in range(out_dims[1])] for o0 in range(out_dims[0])]}


@naive("im2col")
def _im2col(a: Lists, C: int, H: int, W: int, R: int, S: int, stride: int, dilation: int,
            **_: Any) -> Lists:
    P = (H - dilation * (R - 1) - 1) // stride + 1
    Q = (W - dilation * (S - 1) - 1) // stride + 1
    x = a["input"]
    return {"cols": [[x[c][p * stride + r * dilation][q * stride + s * dilation]
                      for p in range(P) for q in range(Q)]
                     for c in range(C) for r in range(R) for s in range(S)]}


# Tiny specs per workload: each exercises a size of 1 and non-square, prime extents.
TINY: dict[str, list[str]] = {
    "gemm": ["gemm:M=1,N=1,K=1", "gemm:M=3,N=5,K=2", "gemm:M=7,N=2,K=11"],
    "batched_gemm": ["batched_gemm:batch=1,M=2,N=3,K=5", "batched_gemm:batch=3,M=5,N=1,K=2"],
    "vector_add": ["vector_add:N=1", "vector_add:N=13"],
    "saxpy": ["saxpy:N=1", "saxpy:N=11,a=-1.25"],
    "row_sum": ["row_sum:M=1,N=1", "row_sum:M=5,N=3"],
    "row_sum_iter": ["row_sum_iter:M=1,N=1", "row_sum_iter:M=3,N=7"],
    "softmax": ["softmax:M=1,N=1", "softmax:M=4,N=7", "softmax:M=3,N=2"],
    "conv2d": ["conv2d:N=1,C=1,H=1,W=1,K=1,R=1,S=1",
               "conv2d:N=2,C=3,H=7,W=5,K=2,R=3,S=2,stride=1",
               "conv2d:N=1,C=2,H=8,W=7,K=3,R=3,S=2,stride=2",
               "conv2d:N=1,C=1,H=5,W=4,K=1,R=5,S=4,stride=3"],
    "2mm": ["2mm:NI=1,NJ=1,NK=1,NL=1", "2mm:NI=2,NJ=3,NK=5,NL=7", "2mm:NI=3,NJ=2,NK=1,NL=4,alpha=-2,beta=0"],
    "atax": ["atax:M=1,N=1", "atax:M=3,N=5", "atax:M=6,N=2"],
    "bicg": ["bicg:M=1,N=1", "bicg:M=3,N=5", "bicg:M=7,N=2"],
    "mvt": ["mvt:N=1", "mvt:N=5"],
    "syrk": ["syrk:N=1,M=1", "syrk:N=5,M=3", "syrk:N=4,M=7,alpha=0.5,beta=-3"],
    "jacobi-2d": ["jacobi-2d:N=3,T=1", "jacobi-2d:N=7,T=1", "jacobi-2d:N=5,T=2", "jacobi-2d:N=6,T=5"],
    "depthwise_conv2d": ["depthwise_conv2d:N=1,C=1,H=1,W=1,R=1,S=1",
                         "depthwise_conv2d:N=2,C=3,H=6,W=7,R=3,S=2,stride=2",
                         "depthwise_conv2d:N=1,C=2,H=5,W=5,R=2,S=3,stride=1"],
    "relu": ["relu:N=1", "relu:N=13"],
    "sigmoid": ["sigmoid:N=1", "sigmoid:N=11"],
    "silu": ["silu:N=1", "silu:N=11"],
    "gelu": ["gelu:N=1", "gelu:N=11"],
    "vector_mul": ["vector_mul:N=1", "vector_mul:N=13"],
    "maxpool2d": ["maxpool2d:N=1,C=1,H=1,W=1,R=1,S=1,stride=1", "maxpool2d:N=2,C=3,H=7,W=6,R=3,S=2,stride=2"],
    "avgpool2d": ["avgpool2d:N=1,C=1,H=1,W=1,R=1,S=1,stride=1", "avgpool2d:N=1,C=2,H=5,W=5,R=5,S=5,stride=1",
                  "avgpool2d:N=2,C=2,H=7,W=5,R=2,S=3,stride=2"],
    "layernorm": ["layernorm:M=1,N=1", "layernorm:M=3,N=7,eps=0.01"],
    "rmsnorm": ["rmsnorm:M=1,N=1", "rmsnorm:M=3,N=7,eps=0.01"],
    "pad2d": ["pad2d:N=1,C=1,H=1,W=1,top=0,left=0,bottom=0,right=0",
              "pad2d:N=2,C=2,H=3,W=4,top=1,left=2,bottom=0,right=3,value=-1.5"],
    "permute": ["permute:d0=1,d1=1,d2=1,d3=1", "permute:d0=2,d1=3,d2=4,d3=5,p0=3,p1=0,p2=2,p3=1"],
    "im2col": ["im2col:C=1,H=1,W=1,R=1,S=1", "im2col:C=2,H=7,W=6,R=3,S=2,stride=2,dilation=1",
               "im2col:C=2,H=9,W=8,R=3,S=2,stride=1,dilation=2"],
}


def _cases() -> list[str]:
    return [spec for name in workloads.names() for spec in TINY.get(name, [])]


def test_every_workload_has_a_naive_version_and_tiny_sizes() -> None:
    assert sorted(NAIVE) == workloads.names()
    assert sorted(TINY) == workloads.names()


@pytest.mark.parametrize("spec", _cases())
def test_reference_matches_naive_loops(spec: str) -> None:
    w = workloads.get(spec + ",dtype=f64")
    inputs = w.random_inputs(seed=11)
    expected = w.reference(inputs)
    lists = {k: v.tolist() for k, v in inputs.items()}
    params = {("a_" if k == "a" else k): v for k, v in w.params.items()}
    got = NAIVE[w.name](lists, **params)
    assert got, "naive version returned nothing"
    assert set(got) == set(w.outputs)
    for name, value in got.items():
        np.testing.assert_allclose(expected[name], np.array(value), rtol=1e-12, atol=1e-12, err_msg=name)
    for name in set(inputs) - set(w.outputs):
        np.testing.assert_array_equal(expected[name], inputs[name], err_msg=f"{name} is not an output")
