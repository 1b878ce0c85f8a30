"""The one timing model: what a DMA transfer, a DRAM channel, an engine queue and a kernel
cost. Pure functions and frozen values of a `HardwareConfig`; no state of a run. The event
machine (`accelsim.hw`, `accelsim.sim`), the analytic estimate (`accelsim.estimate`) and the
tile search (`accelsim.compile`) all take their cycles from here."""
