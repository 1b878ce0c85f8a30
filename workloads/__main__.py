"""`python -m workloads [NAME...]`: describe the workloads (all of them by default)."""

from __future__ import annotations

import sys

import workloads


def main(argv: list[str]) -> int:
    try:
        chosen = [workloads.lookup(n) for n in argv] if argv else list(workloads.catalog().values())
    except workloads.WorkloadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print("\n\n".join(w.describe() for w in chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
