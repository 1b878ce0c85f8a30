"""IR rewriting helpers the passes share: maps as index expressions, memref accesses, uses
and nesting."""
