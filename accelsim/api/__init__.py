"""The Python API: `run` (what `accelsim run --target sim` does), `Result`, and `run_program`,
the one orchestration the CLI, the DSE and networks share."""
