"""`slow_cases.txt` names cases that exist: a renamed test or parameter must not silently
move back into the default run or vanish from the list unnoticed."""

import ast
from pathlib import Path

ROOT = Path(__file__).parent.parent
SLOW_CASES = [line.strip() for line in (ROOT / "tests" / "slow_cases.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")]


def test_every_listed_case_names_a_test_function_of_an_existing_file() -> None:
    missing = []
    for nodeid in sorted(SLOW_CASES):
        path, _, name = nodeid.partition("::")
        func = name.split("[")[0]
        file = ROOT / path
        if not file.is_file():
            missing.append(nodeid)
            continue
        tree = ast.parse(file.read_text())
        if not any(isinstance(n, ast.FunctionDef) and n.name == func for n in ast.walk(tree)):
            missing.append(nodeid)
    assert not missing, "slow_cases.txt names no such test:\n" + "\n".join(missing)
    assert len(SLOW_CASES) > 0
