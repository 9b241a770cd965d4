# The runs from Python: the simulator (with its Chrome trace), a sweep over a grid, the
# validation suite and the serving simulator.
import json
import os

import pytest

import mhcsim
from conftest import assert_flat, assert_rows


@pytest.fixture(scope="module")
def small():
    # The default model on a shorter pipeline with fewer micro-batches, so runs are quick.
    return mhcsim.load(overrides={"parallel.pp": 8, "parallel.micro_batches": 16})


def test_simulate_writes_a_trace(small, tmp_path):
    path = tmp_path / "trace.json"
    r = mhcsim.simulate(small, trace=str(path))
    assert r["trace_path"] == str(path)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    slices = [e for e in events if e.get("ph") == "X"]
    assert len(slices) == r["trace_slices"] > 0
    assert r["step_s"] > 0
    assert_rows(r["ranks"])
    assert len(r["ranks"]) == r["pp"]
    assert_rows(r["versus_step"]["table"])


def test_an_empty_path_is_an_error_not_no_file(small, data_dir):
    serving = mhcsim.load(os.path.join(data_dir, "deepseek_v3_serve.toml"))
    for call in (lambda: mhcsim.simulate(small, trace=""),
                 lambda: mhcsim.serve(serving, rate=1, requests=10, trace="")):
        with pytest.raises(mhcsim.Error) as caught:
            call()
        assert "trace: empty path" in str(caught.value)
    # Every path argument: "" is not None (the default), as an empty CLI flag is refused.
    for call, key in ((lambda: mhcsim.validate(""), "dir"), (lambda: mhcsim.hardware(""), "hardware_file"),
                      (lambda: mhcsim.stability(small, mappings=""), "mappings"), (lambda: mhcsim.load(""), "path"),
                      (lambda: mhcsim.load(None, calibration=""), "calibration"),
                      (lambda: mhcsim.serve(serving, requests_file=""), "requests_file")):
        with pytest.raises(mhcsim.Error) as caught:
            call()
        assert caught.value.key == key and "empty path" in str(caught.value)


def test_simulate_without_trace_and_its_budget(small):
    r = mhcsim.simulate(small)
    assert "trace_path" not in r
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.simulate(small, max_sim_ops=10)
    assert "more than max_sim_ops allows (10;" in str(caught.value)


def test_simulate_a_serving_iteration(data_dir):
    # Forward passes only, the batch split into DeepSeek's two overlapped micro-batches.
    serving = mhcsim.load(os.path.join(data_dir, "deepseek_v3_serve.toml"))
    r = mhcsim.simulate(serving)
    assert r["schedule"] == "forward only, two overlapped micro-batches"
    assert r["micro_batches"] == 2 and r["iterations"] == 1
    assert abs(r["versus_step"]["step_ratio"] - 1) < 0.05
    assert r["step_s"] == pytest.approx(mhcsim.step(serving)["step_s"], rel=0.05)


def test_sweep_over_a_grid(small):
    rows = mhcsim.sweep(small, {"parallel.micro_batches": [16, 32], "parallel.pp": [8, 16]}, jobs=2)
    assert_rows(rows)
    assert len(rows) == 4
    assert [(r["parallel.micro_batches"], r["parallel.pp"]) for r in rows] == [(16, 8), (16, 16), (32, 8), (32, 16)]
    # The same point as step: the sweep's step time is step's.
    point = next(r for r in rows if r["parallel.micro_batches"] == 32 and r["parallel.pp"] == 16)
    assert point["feasible"] and not point["reason"]
    # DualPipe needs 2 x PP micro-batches: that point stays a row, with its reason.
    refused = next(r for r in rows if r["parallel.micro_batches"] == 16 and r["parallel.pp"] == 16)
    assert not refused["feasible"] and "micro_batches" in refused["reason"]
    step = mhcsim.step(small.with_overrides({"parallel.micro_batches": 32, "parallel.pp": 16}))
    assert point["step_time_s"] == pytest.approx(step["step_s"], rel=1e-12)
    assert rows == mhcsim.sweep(small, ["parallel.micro_batches=16,32", "parallel.pp=8,16"], jobs=1)


def test_sweep_grid_forms_and_bad_ones(small):
    rows = mhcsim.sweep(small, {"parallel.pp": [8, 16]})
    assert rows == mhcsim.sweep(small, {"parallel.pp": "8,16"}) == mhcsim.sweep(small, "parallel.pp=8,16")
    assert len(mhcsim.sweep(small, {"parallel.pp": 8})) == 1
    for bad, what in [(5, "a int"), ({}, "nothing to sweep"), ([8, 16], "a int in the list")]:
        with pytest.raises(mhcsim.Error, match=what):
            mhcsim.sweep(small, bad)


def test_sweep_equals_the_cli(small, cli_json):
    rows = mhcsim.sweep(small, {"parallel.micro_batches": [16, 32], "parallel.pp": [8, 16]})
    # The sweep replaces the scenario's values of its keys; the CLI refuses a key both set and swept.
    swept = ("parallel.micro_batches", "parallel.pp")
    sets = [a for o in small.overrides if o.split("=")[0] not in swept for a in ("--set", o)]
    cli = cli_json("sweep", *sets, "--sweep", "parallel.micro_batches=16,32", "--sweep", "parallel.pp=8,16")
    assert rows == cli["rows"]


def test_sweep_bad_axis_is_an_error(small):
    with pytest.raises(mhcsim.Error):
        mhcsim.sweep(small, {"parallel.pp": []})


def test_validate_suite():
    r = mhcsim.validate(check="1000,1000")
    assert_rows(r["rows"])
    assert r["summary"]["count"] == len(r["rows"]) > 0
    assert r["check"]["passed"] is True
    for row in r["rows"]:
        assert row["delta"] == pytest.approx((row["predicted"] - row["published"]) / row["published"])


def test_serve(data_dir):
    s = mhcsim.load(os.path.join(data_dir, "deepseek_v3_serve.toml"))
    r = mhcsim.serve(s, rate=2.0, requests=50, input_tokens=512, output_tokens=64)
    assert r["scenario"] == s.name
    assert len(r["runs"]) == 1
    run = r["runs"][0]
    assert run["output_tokens"] == 50 * 64
    assert run["ttft_mean_s"] > 0
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.serve(s)
    assert caught.value.key == "rate"
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.serve(s, rate=1.0, replicas=0)
    assert caught.value.key == "replicas"


# The CLI's parser reads the keywords (api/serve_arguments.h): each error names the argument as
# Python spells it, the checks of how arguments combine too, and the SLOs are seconds.
@pytest.mark.parametrize("kwargs, key, says", [
    ({"rate": 1.0, "slo_ttft_s": -1.0}, "slo_ttft_s", "not > 0"),
    ({"rate": 1.0, "lengths": "uniform"}, "lengths", "expected fixed or exponential"),
    ({"rate": 1.0, "prefill_scenario": "x.toml"}, "prefill_scenario", "expected prefill_replicas > 0"),
    ({"max_rate": True}, "max_rate", "expected slo_ttft_s and/or slo_tpot_s"),
    ({"rate": 1.0, "requests_file": "r.csv"}, "rate", "expected rate or requests_file"),
    ({"requests": 5, "requests_file": "r.csv"}, "requests", "expected requests or requests_file"),
    ({"rate": 1.0, "prefill_replicas": -1}, "prefill_replicas", "expected a count >= 0, or auto"),
    ({"rate": 1e-300}, "rate", "past the simulated clock's"),
])
def test_serve_errors_name_keywords(data_dir, kwargs, key, says):
    s = mhcsim.load(os.path.join(data_dir, "deepseek_v3_serve.toml"))
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.serve(s, **kwargs)
    assert caught.value.key == key and says in str(caught.value)


def test_serve_target_rate(data_dir):
    s = mhcsim.load(os.path.join(data_dir, "deepseek_v3_serve.toml"))
    r = mhcsim.serve(s, requests=200, slo_ttft_s=2.0, target_rate=2000.0)
    c = r["capacity"]
    assert c["target"] == "requests" and c["target_per_s"] == 2000.0
    assert r["max_rate_per_s"] > 0 and c["simulated_replicas"] == 128
    assert c["served_per_s_at_max_rate"] == c["pooled_max_rate_per_s"] > 128 * r["max_rate_per_s"]
    assert c["gpus"] % 144 == 0 and c["nodes"] * 8 == c["gpus"]
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.serve(s, target_rate=-1.0, slo_ttft_s=2.0)
    assert caught.value.key == "target_rate"


def test_serve_split_search(data_dir):
    s = mhcsim.load(os.path.join(data_dir, "deepseek_v3_serve.toml"))
    r = mhcsim.serve(s, requests=100, input_tokens=1000, output_tokens=8, slo_ttft_s=2.0, target_rate=20.0,
                     prefill_replicas="auto")
    splits = r["capacity"]["splits"]
    chosen = [x for x in splits if x["chosen"]]
    assert len(chosen) == 1 and (chosen[0]["prefill_replicas"], chosen[0]["replicas"]) == (
        r["prefill_replicas"], r["replicas"])
    assert r["capacity"]["nodes"] == min(x["nodes"] for x in splits if x["nodes"] is not None)
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.serve(s, rate=1.0, prefill_replicas="some")
    assert caught.value.key == "prefill_replicas"


# `mhcsim.search` is the CLI's search (api/search.h): the same results, errors named by keyword.
def test_search_matches_cli(cli_json):
    s = mhcsim.load()
    r = mhcsim.search(s, gpus=[256], top=3, objective="step_time", jobs=2)
    assert r == cli_json("search", "--gpus", "256", "--top", "3", "--objective", "step_time", "-j", "2")
    assert_rows(r["top"])
    assert len(r["top"]) == 3 and r["objective"] == "step_time"
    steps = [row["step_time_s"] for row in r["top"]]
    assert steps == sorted(steps)


@pytest.mark.parametrize("kwargs, key", [
    ({"top": 0}, "top"),
    ({"gpus": "x"}, "gpus"),
    ({"gpus": [8, True]}, "gpus"),
    ({"objective": "fast"}, "objective"),
    ({"min_headroom_gib": float("nan")}, "min_headroom_gib"),
    ({"gpus": 256, "max_gpus": 8}, "max_gpus"),
])
def test_search_errors_name_keywords(kwargs, key):
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.search(mhcsim.load(), **kwargs)
    assert caught.value.key == key


def test_report_writes_the_cli_report(tmp_path):
    out = tmp_path / "report"
    r = mhcsim.report(mhcsim.load(), str(out))
    assert r["does_not_fit"] is None
    html = open(r["html"]).read()
    assert "<html" in html and "deepseek-v3-train" in html
    assert os.path.isfile(r["markdown"]) and os.listdir(r["figures"])
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.report(mhcsim.load(), str(out))
    # The message names Python's switch, not the CLI's.
    assert caught.value.key == "output" and "exists (use force=True to replace it)" in str(caught.value)
    assert mhcsim.report(mhcsim.load(), str(out), force=True)["html"] == r["html"]
    # A scenario that does not fit is reported, and says why.
    big = mhcsim.load(overrides={"parallel.micro_batches": 256, "workload.micro_batch_seqs": 8})
    assert "out of memory" in mhcsim.report(big, str(tmp_path / "big"))["does_not_fit"]


# `mhcsim.compare` is the CLI's compare (api/compare.h): a measured trace against the simulated
# step of a scenario, or its kernels with their classes.
def test_compare_matches_cli(cli_json, data_dir):
    trace = os.path.join(data_dir, "..", "fuzz", "seeds", "trace", "kineto_small.json")
    r = mhcsim.compare(trace, window="chunk-pair")
    assert r == cli_json("compare", "--trace", trace, "--window", "chunk-pair")
    assert_rows(r["rows"])
    assert r["window_fraction"] == pytest.approx(1 / 120)
    kernels = mhcsim.compare(trace, list_kernels=True)["kernels"]
    assert kernels == cli_json("compare", "--trace", trace, "--list-kernels")["kernels"]
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.compare(trace, window="chunk-pair", simulated=trace)
    assert caught.value.key == "window" and "not simulated" in str(caught.value)
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.compare(trace, rank=5000)
    assert caught.value.key == "rank"


# `mhcsim.calibrate` fits a benchmark file as `mhcsim calibrate --from` does; the profile then
# calibrates a scenario (tests/calib/data: a synthetic H200 run, make_synthetic.py).
def test_calibrate_writes_the_profile_the_cli_writes(tmp_path, data_dir):
    bench = os.path.join(data_dir, "..", "tests", "calib", "data", "synthetic_h200.json")
    out = str(tmp_path / "profile.json")
    p = mhcsim.calibrate(bench, out)
    written = json.load(open(out))
    assert written.pop("written_by").startswith("mhcsim calibrate ") and p == written
    assert p["catalog_gpu"] == "H200" and 0.6 < p["gemm_efficiency"] < 0.8 and len(p["residuals"]) == 44
    h200 = mhcsim.load(overrides={"hardware.gpu": "H200"})
    calibrated = mhcsim.load(overrides={"hardware.gpu": "H200"}, calibration=out)
    assert mhcsim.step(calibrated)["step_s"] != mhcsim.step(h200)["step_s"]
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.calibrate(bench, out)
    assert caught.value.key == "output" and "use force=True" in str(caught.value)
    assert mhcsim.calibrate([bench], out, force=True) == p


def test_ctrl_c_stops_a_long_search(tmp_path):
    # Python runs its SIGINT handler between bytecodes only, never inside the C++ call: the
    # module's own handler asks the search's loops to stop, and the call raises KeyboardInterrupt.
    # The search would take many minutes; without the handler the child outlives the timeout.
    import signal
    import subprocess
    import sys

    child = subprocess.Popen(
        [sys.executable, "-c",
         "import mhcsim, sys\n"
         "s = mhcsim.load()\n"
         "print('start', flush=True)\n"
         "try:\n"
         "    mhcsim.search(s, gpus='256-65536', top=3, jobs=1)\n"
         "    print('finished', flush=True)\n"
         "except KeyboardInterrupt:\n"
         "    print('interrupted', flush=True)\n"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "start"
    import time
    time.sleep(1.0)  # inside the search by now
    child.send_signal(signal.SIGINT)
    try:
        out, err = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        pytest.fail("the search did not stop at SIGINT")
    assert out.strip() == "interrupted", (out, err)
    # The next call runs normally: the request was cleared and Python's handler is back.
    assert mhcsim.step(mhcsim.load())["step_s"] > 0
