"""One layer of a network, zoomed in: its kernels simulated again with every trace record, so
the engine timeline of that layer (DMA engines, DRAM channels, compute) can be drawn."""

from __future__ import annotations

from typing import Any

from accelsim.errors import InputError
from accelsim.network.model import Network


def layer_runs(network: Network, layer_name: str, config: str = "default") -> list[tuple[str, Any]]:
    """(workload spec, SimResult with records) of each kernel of layer `layer_name`, timing only,
    compiled as the network run compiles it."""
    from accelsim.config import load_config
    from accelsim.dse.evaluate import compiled_module
    from accelsim.dse.spec import Point
    from accelsim.sim.options import SimOptions
    from accelsim.sim.simulate import simulate

    layer = next((x for x in network.layers if x.name == layer_name), None)
    if layer is None:
        names = [x.name for x in network.layers]
        shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        raise InputError(f"--layer {layer_name!r}: no such layer in {network.name} (layers: {shown})")
    if not layer.kernels:
        raise InputError(f"--layer {layer_name!r}: a {layer.lowering} layer runs no kernel")
    cfg = load_config(config)
    runs = []
    for kernel in layer.kernels:
        import workloads

        point = Point(workload=kernel.workload, config=config, compiler=(("tile_sizes", "search"),),
                      fidelity="event")
        module = compiled_module(point, cfg)
        func = workloads.get(kernel.workload).func_name
        runs.append((kernel.workload, simulate(module, cfg, func=func, functional=False,
                                               options=SimOptions(keep_records=True))))
    return runs
