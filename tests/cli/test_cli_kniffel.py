import json

from typer.testing import CliRunner

from jaxsolve.cli import app

runner = CliRunner()


def test_solve_small_variant_and_export(tmp_path):
    out = tmp_path / "apl.npy"
    result = runner.invoke(app, ["solve", "kniffel", "--rules", "kniffel-apl", "--x64", "--quiet", "--no-cache", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert abs(summary["game_value"] - 189.973320) < 1e-6
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["rules"]["name"] == "kniffel-apl"
    assert meta["objective"] == "score"
    assert meta["dtype"] == "float64"
    assert meta["unreachable"] == "NaN"
    assert [a["name"] for a in meta["axes"]] == ["filled", "upper", "all_same_held"]


def test_unknown_rules_is_one_line_error():
    result = runner.invoke(app, ["solve", "kniffel", "--rules", "nope"])
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("error: unknown Kniffel rules 'nope'")
    assert "Traceback" not in result.output


def test_unwritable_output(tmp_path):
    result = runner.invoke(app, ["solve", "kniffel", "--out", str(tmp_path / "missing" / "x.npy")])
    assert result.exit_code == 1
    assert "output directory does not exist" in result.stderr
    result = runner.invoke(app, ["solve", "kniffel", "--out", str(tmp_path / "x.txt")])
    assert result.exit_code == 1
    assert "must end in .npy" in result.stderr


def test_bad_option_values():
    assert runner.invoke(app, ["solve", "kniffel", "--device", "tpu"]).exit_code != 0
    assert runner.invoke(app, ["solve", "kniffel", "--rolls", "0"]).exit_code != 0
    result = runner.invoke(app, ["solve", "kniffel", "--objective", "fun"])
    assert result.exit_code == 1
    assert "unknown objective 'fun'; choose one of score, goals" in result.stderr


def test_bad_cpu_device_count_in_environment(monkeypatch):
    for bad in ("abc", "0", "-2", "1.5"):
        monkeypatch.setenv("JAX_NUM_CPU_DEVICES", bad)
        result = runner.invoke(app, ["solve", "kniffel", "--rules", "kniffel-apl", "--quiet", "--no-cache"])
        assert result.exit_code == 1, (bad, result.output)
        assert result.stderr.strip().startswith("error: Invalid value: JAX_NUM_CPU_DEVICES must be a whole number"), result.stderr
        assert "Traceback" not in result.output


def test_advise_target_refuses_an_upper_total_no_game_reaches():
    """Every upper box filled: the total is at most 5 x (1 + ... + 6) = 105, so 500 never occurs."""
    upper = [a for box in ("aces", "twos", "threes", "fours", "fives", "sixes") for a in ("--filled", box)]
    result = runner.invoke(app, ["advise-target", "kniffel", "1", "2", "3", "4", "5", "--target", "10", "--upper", "500", *upper])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == ["error: upper total 500 is impossible with aces, twos, threes, fours, fives, sixes filled (at most 105, and only sums of those boxes' scores)"]


def test_device_gpu_without_a_gpu_is_an_error_also_from_the_cache(monkeypatch):
    """The cached NumPy advise path asks for no device, yet --device gpu is checked."""
    import pytest

    from jaxsolve.cli import common

    monkeypatch.setattr(common, "gpu_support_installed", lambda: False)
    for args in (["advise", "kniffel", "--device", "gpu", "1", "2", "3", "4", "5"], ["serve", "--device", "gpu", "--port", "0"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1 and result.output.strip() == "error: no gpu device is visible to JAX on this machine", result.output
    import jax

    if any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("a GPU is visible here")
    monkeypatch.setattr(common, "gpu_support_installed", lambda: True)  # installed, yet JAX sees none
    result = runner.invoke(app, ["advise", "kniffel", "--device", "gpu", "1", "2", "3", "4", "5"])
    assert result.exit_code == 1 and result.output.strip() == "error: no gpu device is visible to JAX on this machine", result.output
