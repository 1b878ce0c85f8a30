"""From a module to what the accelerator runs: the accelerator pipeline as a value
(`pipeline.AcceleratorPipeline`), the tile search that picks its tiles (`tile_search`, scored
by `band`, `tile_kernel`, `tile_model`, `tile_replay` from the one cost model), module clones,
outlining kernels, and the one entry-function rule."""
