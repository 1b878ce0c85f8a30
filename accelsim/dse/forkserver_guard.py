"""Imported by the local runner's fork server at its start (a preload module): from then on
the kernel kills the server when the sweep's process dies (see `accelsim.dse.lifeline`).
Anywhere else the import does nothing."""

from accelsim.dse.lifeline import arm_forkserver

arm_forkserver()
