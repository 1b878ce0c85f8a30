"""accelsim: an accelerator simulator with a DMA and memory-hierarchy model."""

__version__ = "0.1.0"
