"""The event simulation: the executor walking the control program on the SimPy machine.

- `simulate.py`: `simulate()` and `SimResult`; `options.py`: `SimOptions`.
- `executor.py`: the walk (one step per op, from a table keyed by op type) and the
  memory, control and kernel-call ops; `fast_path.py`: the control program compiled to
  one Python function.
- `handlers.py`: DMA start, DMA wait and kernel call, each one Python function that drives
  the event machine through the `Machine` protocol (`accelsim.cost.machine`), specialized
  per op; `codegen.py`: the index code, `specialize` (a handler's own syntax tree with the
  plan's literals written in, the index code spliced, the machine's methods inlined) and
  the caches of generated code.
- `plans.py`: per-op plans (the transfer shape and cost per DMA, from `accelsim.cost.dma`);
  `kernel_calls.py`: a call's race checks and counters per entry key;
  `kernel_boxes.py`: the generated key (what a kernel's access boxes depend on).
- `memory.py`: buffers, DMAs in flight, the data copy; `regions.py`: element regions.
- `hazards.py`: race, bounds, dealloc, tag and deadlock errors; `oob.py`: the
  point-by-point search for a kernel access outside its buffer.
- `scalar.py`: scalar op semantics; `stats.py`: the run's counters; `native.py`: kernels
  on the host backend.
"""
