"""From a module to what the accelerator runs: the accelerator pipeline (tile, DMA copies,
pipelining), the tile search, outlining kernels, and the one entry-function rule."""
