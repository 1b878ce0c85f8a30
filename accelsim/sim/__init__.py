"""The event simulation: the executor walking the control program on the SimPy machine, its
generated fast path, hazard regions, and `simulate()`."""
