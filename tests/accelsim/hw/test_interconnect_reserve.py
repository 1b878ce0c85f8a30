"""The interconnect's reserve (`accelsim.hw.interconnect.Interconnect`: the bus's closed form,
the inlined grant over a mesh path) against the model's own `InterconnectModel.grant` and
`hold` spelled out: on random transfer streams of every cluster, the same ends, link
free-at cycles, byte counters and trace records in the same order."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim.config import load_config
from accelsim.cost.interconnect import InterconnectModel
from accelsim.hw.interconnect import Interconnect
from accelsim.trace import Trace, TraceRecord


def _reference(model: InterconnectModel, trace: Trace, free: list[int], nb: list[int],
               cluster: int, parent):  # type: ignore[no-untyped-def]
    """The reserve as the model states it (a path, `grant`, `hold`)."""
    def reserve(ready: int, nbytes: int, hold: int, xfer) -> int:  # type: ignore[no-untyped-def]
        end = parent(ready, nbytes, hold, xfer)
        kind = xfer.desc[4]
        path = model.path(cluster, kind)
        h = model.hold(nbytes)
        t0 = model.grant(free, path, ready, h)
        for k in path:
            nb[k] += nbytes
            trace.records.append(TraceRecord(model.names[k], t0, t0 + h, kind, nbytes,
                                             xfer.label, xfer.desc[5]))
        t1 = t0 + h + model.latency[cluster]
        return t1 if t1 > end else end
    return reserve


transfers = st.lists(st.tuples(st.integers(0, 15), st.integers(0, 400), st.integers(1, 5000),
                               st.sampled_from(["read", "write"]), st.integers(0, 300)),
                     min_size=1, max_size=60)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["bus", "mesh"]), transfers)
def test_reserve_equals_the_models_grant(kind: str, stream: list) -> None:  # type: ignore[type-arg]
    cfg = load_config("cluster16", {"interconnect.kind": kind})
    model = InterconnectModel.for_config(cfg)
    assert model is not None
    fast_trace, ref_trace = Trace(), Trace()
    ic = Interconnect(model, fast_trace)
    free, nb = [0] * len(model.names), [0] * len(model.names)

    def parent(ready: int, nbytes: int, hold: int, xfer) -> int:  # type: ignore[no-untyped-def]
        return ready + xfer.extra  # the shared level's part: any end

    fast = [ic.reserve_for(c, parent) for c in range(16)]
    ref = [_reference(model, ref_trace, free, nb, c, parent) for c in range(16)]
    for n, (c, ready, nbytes, k, extra) in enumerate(stream):
        xfer = SimpleNamespace(desc=(0, nbytes, nbytes, 0, k, f"t.mlir:{n}:1"), label=f"x{n}",
                               extra=extra)
        assert fast[c](ready, nbytes, 0, xfer) == ref[c](ready, nbytes, 0, xfer)
    assert ic.free_at == free and ic.bytes == nb
    assert fast_trace.records == ref_trace.records


def test_the_bus_takes_the_closed_form() -> None:
    model = InterconnectModel.for_config(load_config("cluster16"))
    assert model is not None
    ic = Interconnect(model, Trace())
    parent = lambda ready, nbytes, hold, xfer: ready
    assert ic.reserve_for(3, parent).__name__ == "reserve_one"
    mesh = InterconnectModel.for_config(load_config("cluster16", {"interconnect.kind": "mesh"}))
    assert mesh is not None
    assert Interconnect(mesh, Trace()).reserve_for(3, parent).__name__ == "reserve"
