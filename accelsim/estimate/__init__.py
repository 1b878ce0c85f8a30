"""The analytic fidelity: the same program and config, walked on a closed-form machine state
instead of SimPy events, with the same cost model."""
