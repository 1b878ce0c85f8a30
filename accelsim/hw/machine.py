"""The machine: one SimPy environment and every hardware component, built from a config.

One machine for any memory chain (`HardwareConfig.memory_chain()`; two levels, DRAM and SRAM,
is the chain of one link): a capacity per level (`levels`, by memory space), a port group per
on-chip level and the engines of every link (`links`, in `config.links()` order); `sram` is
the level beside the compute unit and `engines` the first link's.

With `clusters` > 1 each cluster is a `Machine` built on one `SharedParts` (`cluster=k`):
the environment, trace, DRAM, the shared levels (every level but the last: capacity, ports,
the links between them) and the interconnect are the shared parts'; the last level, the
engines of the link into it (whose reserve crosses the interconnect), the compute unit and
the control processor are the cluster's own, their trace names prefixed `c<k>.`.

`units`: user-defined SimPy units (`accelsim.hw.units`), attached when the machine is built."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from accelsim.config import HardwareConfig
from accelsim.cost.dram_timing import DramTiming
from accelsim.cost.engine import EnginePolicy
from accelsim.errors import ConfigError
from accelsim.hw import ComputeUnit, ControlProcessor, Dram, SimEnv, Sram, TagFile
from accelsim.hw.dma import Transfer
from accelsim.hw.interconnect import Interconnect
from accelsim.hw.levels import LinkEngines, PortGroup
from accelsim.hw.units import Unit, check_units
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__  # a record without the NamedTuple's generated __new__ frame


class SharedParts:
    """What the clusters of a many-cluster machine share (see the module docstring)."""

    def __init__(self, config: HardwareConfig, env: SimEnv, trace: Trace):
        from accelsim.cost.interconnect import InterconnectModel

        self.env, self.trace = env, trace
        self.dram = Dram(config.dram, trace, DramTiming.for_config(config)
                         if config.dram.model == "timing" else None)
        model = InterconnectModel.for_config(config)
        self.interconnect = Interconnect(model, trace) if model is not None else None
        chain = config.memory_chain()
        self.levels = {lv.space: Sram.for_level(lv, config.level_names()) for lv in chain[:-1]}
        self.ports = {lv.name: PortGroup(lv, trace) for lv in chain[1:-1]}
        self.links: list[LinkEngines] = []  # the links between shared levels
        for k, lk in enumerate(config.links()[:-1]):
            parent = self.dram if k == 0 else self.ports[chain[k].name]
            self.links.append(LinkEngines(lk, EnginePolicy.for_link(config, k), parent,
                                          config.engine_names(k)))


class Machine:
    def __init__(self, config: HardwareConfig, trace: Trace | None = None, *,
                 shared: SharedParts | None = None, cluster: int = 0, units: Sequence[Unit] = ()):
        self.config = config
        self.env = shared.env if shared is not None else SimEnv()
        if shared is not None:
            trace = shared.trace
        self.trace = trace if trace is not None else Trace()
        self.dram = shared.dram if shared is not None else Dram(
            config.dram, self.trace,
            DramTiming.for_config(config) if config.dram.model == "timing" else None)
        self.tags = TagFile()
        self._slots = self.tags.slots
        self.compute = ComputeUnit(self.env, 0, self.trace)
        pre = f"c{cluster}." if shared is not None else ""
        chain = config.memory_chain()
        names = config.level_names()
        if shared is None:
            self.levels = {lv.space: Sram.for_level(lv, names) for lv in chain}
            self.ports = {lv.name: PortGroup(lv, self.trace) for lv in chain[1:]}
            self.links: list[LinkEngines] = []
        else:
            self.levels = {**shared.levels, chain[-1].space: Sram.for_level(chain[-1], names)}
            self.ports = {**shared.ports, chain[-1].name: PortGroup(chain[-1], self.trace)}
            self.ports[chain[-1].name].names[:] = [pre + n for n in self.ports[chain[-1].name].names]
            self.links = list(shared.links)
        self.sram = self.levels[chain[-1].space]
        for k, lk in enumerate(config.links()):
            if k < len(self.links):
                continue
            parent = self.dram if k == 0 else self.ports[chain[k].name]
            self.links.append(LinkEngines(lk, EnginePolicy.for_link(config, k), parent,
                                          config.engine_names(k)))
        self.engines = self.links[0]
        own = self.links[-1]
        if shared is not None:
            self.compute.name = pre + self.compute.name
            own.names[:] = [pre + n for n in own.names]
            ic = shared.interconnect
            if ic is not None:  # the link into the cluster's level crosses the interconnect
                own.reserve = ic.reserve_for(cluster, own.reserve, len(self.links) == 1)
        self.cp = ControlProcessor(self.env, self.engines, self.dram, config.control.issue_cycles,
                                   self.trace, self.links)
        if shared is not None:
            self.cp.name = pre + "cp"
        self.issue_cycles = self.cp.issue_cycles  # per descriptor and call
        self._kernel_records = self.compute.trace.records
        self.units = tuple(units)  # user-defined units (`accelsim.hw.units`)
        if self.units:
            if shared is not None:
                raise ConfigError("user-defined units run on one cluster (clusters = 1)")
            link = check_units(self.units, config)
            for u in self.units:
                u.attach(self.env, config, self.trace)
            if link is not None:
                self.cp.attach_unit(link, config.dram.burst_bytes,
                                    config.dram.bandwidth_bytes_per_cycle)

    # ---- the Machine protocol (`accelsim.cost.machine`) -----------------------------------
    # (the executor's handlers inline these methods, `accelsim.sim.codegen.specialize`: the
    # attributes they read are fixed once the machine is built, `issue_cycles` written into
    # the handlers' code)
    @property
    def now(self) -> int:
        return self.env.now

    def start_dma(self, xfer: Transfer, tag: Hashable) -> None:  # type: ignore[override]
        """The issue cycles (an `issue` record), then the descriptor to its engine; `xfer` is
        its own completion event, held in the tag's slot until waited on."""
        self._slots[tag] = xfer  # type: ignore[index]
        if self.issue_cycles:
            self.cp.issue(xfer.label, xfer.desc[5])
        self.cp.submit(xfer)

    def wait_dma(self, tag: Hashable, loc: str) -> None:
        pend = self._slots.pop(tag, None)  # type: ignore[call-overload]
        if pend is not None and pend.callbacks is not None:  # not completed yet
            self.cp.wait(pend, "wait " + pend.label, loc)

    def run_kernel(self, cycles: int, sram_bytes: int, label: str, loc: str) -> None:
        """The issue cycles, then the compute unit busy: its `kernel` record, the one place a
        kernel's trace record is made."""
        if self.issue_cycles:
            self.cp.issue(label, loc)
        env = self.env
        start = env.now
        end = start + cycles
        if end > start:
            env.advance_to(end)  # the compute unit is busy; the control processor waits
        self._kernel_records.append(_tnew(TraceRecord, (self.compute.name, start, end, "kernel",
                                                        sram_bytes, label, loc)))

    def finish(self) -> int:
        self.env.run()
        return self.env.now

    def level_peaks(self) -> dict[int, int]:
        """The allocation high-water mark of every level tracked, by memory space."""
        return {space: mem.peak for space, mem in self.levels.items()}
