"""`accelsim dse run/tune --set KEY=VALUE`: one config key fixed for every point."""

from accelsim.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


DSE_SPEC = """
name = "set-toy"
workloads = ["gemm:M=16,N=16,K=16"]
[hardware]
sram.capacity_kib = [32, 64]
[compiler]
tile_sizes = "auto"
stages = [1, 2]
"""


def test_dse_run_set_fixes_a_key_for_every_point(tmp_path, capsys):
    from accelsim.dse import load

    spec = tmp_path / "toy.toml"
    spec.write_text(DSE_SPEC)
    db = tmp_path / "r.sqlite"
    code, _, err = run(capsys, "dse", "run", str(spec), "--db", str(db), "--workers", "0",
                       "--evaluator", "toy_eval:closed_form", "--set", "dma.engines=4")
    assert code == 0, err
    df = load(db)
    assert len(df) == 4 and set(df["dma.engines"]) == {4}
    code, _, err = run(capsys, "dse", "run", str(spec), "--db", str(db), "--dry-run",
                       "--set", "sram.capacity_kib=16")
    assert code == 1 and "--set sram.capacity_kib: the spec already sweeps" in err
    code, _, err = run(capsys, "dse", "run", str(spec), "--db", str(db), "--dry-run",
                       "--set", "dma.engines=0")
    assert code == 1 and "dma.engines = 0: must be an integer in [1, 64]" in err


def test_dse_tune_set_is_validated_before_any_point(capsys):
    code, _, err = run(capsys, "dse", "tune", "gemm:M=16,N=16,K=16", "--set", "dram.channels=99",
                       "--no-progress")
    assert code == 1 and err.strip() == "error: --set: dram.channels = 99: must be an integer in [1, 64]"
