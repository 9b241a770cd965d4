# The cost model's answers from Python: the same dicts and rows the CLI's --json prints, and
# shapes pandas takes as they are.
import math
import os

import pytest

import mhcsim
from conftest import assert_flat, assert_rows


@pytest.fixture(scope="module")
def train():
    return mhcsim.load()


@pytest.fixture(scope="module")
def serve(data_dir):
    return mhcsim.load(os.path.join(data_dir, "deepseek_v3_serve.toml"))


def test_training_step_is_sane(train):
    e = mhcsim.step(train)
    assert_flat(e)
    assert e["step_s"] > 0
    assert 0 < e["mfu"] < 1  # a fraction, as every verb's JSON (percent only in tables)
    assert 0 <= e["bubble_fraction"] < 1
    assert e["tokens_per_s"] == pytest.approx(e["tokens_per_step"] / e["step_s"], rel=1e-9)
    # The step is the busy time, the bubble and the DP sync (step's own composition).
    parts = e["compute_s"] + e["exposed_comm_s"] + e["bubble_s"] + e["dp_sync_s"]
    assert parts == pytest.approx(e["step_s"], rel=1e-6)


@pytest.mark.parametrize("overrides", [[], ["parallel.micro_batches=32"], ["hardware.gpu=H100"]])
def test_training_step_equals_the_cli(train, cli_json, overrides):
    s = train.with_overrides(overrides)
    args = [a for o in overrides for a in ("--set", o)]
    assert mhcsim.step(s) == cli_json("step", *args)


def test_serving_step_equals_the_cli(serve, cli_json, data_dir):
    e = mhcsim.step(serve)
    assert e["latency_s"] > 0 and e["tokens_per_s_per_gpu"] > 0
    assert e == cli_json("step", "-s", os.path.join(data_dir, "deepseek_v3_serve.toml"))


def test_an_override_changes_the_answer(train):
    base = mhcsim.step(train)
    more = mhcsim.step(train.with_overrides({"parallel.micro_batches": 2 * 120}))
    assert more["step_s"] != base["step_s"]
    assert more["tokens_per_step"] == 2 * base["tokens_per_step"]


def test_step_ops_rows(train):
    rows = mhcsim.step(train, ops=True)
    assert_rows(rows)
    gemms = [r for r in rows if r["kind"] == "gemm"]
    assert gemms and all(len(r["shape"].split(" x ")) == 3 for r in gemms)
    assert all(r["shape"] == "" for r in rows if r["kind"] != "gemm")
    assert all(r["forward_s"] >= 0 for r in rows)


def test_memory(train, serve, cli_json):
    m = mhcsim.memory(train)
    assert_flat(m)
    parts = m["weight_bytes"] + m["grad_bytes"] + m["master_weight_bytes"] + m["optimizer_bytes"] + m["activation_bytes"]
    assert parts == pytest.approx(m["total_bytes"], rel=1e-9)
    assert m == cli_json("memory")
    assert_flat(mhcsim.memory(serve))


def test_kv_rows(serve):
    rows = mhcsim.kv(serve, context=4096, batch=8)
    assert_rows(rows)
    assert rows[0]["attention"].endswith("(model)") and rows[0]["vs_model"] == 1
    assert {r["attention"].split()[0] for r in rows} == {"mla", "gqa", "mqa", "mha"}
    for r in rows:
        assert r["bytes_per_batch"] == pytest.approx(8 * r["bytes_per_sequence"])
    longer = mhcsim.kv(serve, context=8192, batch=8)
    assert longer[0]["bytes_per_sequence"] > rows[0]["bytes_per_sequence"]


def test_kv_argument_out_of_range_is_an_error(serve):
    # 0 too, as the CLI's --context 0: None (the default) is the scenario's.
    for bad in (-1, 0):
        with pytest.raises(mhcsim.Error) as caught:
            mhcsim.kv(serve, context=bad)
        assert caught.value.key == "context"
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.a2a(serve, tokens=0)
    assert caught.value.key == "tokens"
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.serve(serve, rate=1, requests=10, slo_ttft_s=0)
    assert caught.value.key == "slo_ttft_s"


def test_bubble_rows(train, cli_json):
    rows = mhcsim.bubble(train)
    assert_rows(rows)
    assert [r["schedule"] for r in rows] == [r["schedule"] for r in cli_json("bubble")["rows"]]
    assert len(rows) == 5
    for r in rows:
        assert r["step_s"] is None or r["step_s"] > 0


def test_traffic_and_a2a(train, cli_json):
    t = mhcsim.traffic(train, n=4)
    assert_rows(t["rows"])
    assert_flat(t["summary"])
    assert t == cli_json("traffic", "--n", "4")
    a = mhcsim.a2a(train)
    assert_flat(a)
    assert a["dispatch_s"] > 0 and math.isfinite(a["combine_s"])
    assert mhcsim.a2a(train, tokens=2 * a["tokens"])["dispatch_s"] > a["dispatch_s"]


def test_diff_equals_the_cli(train, cli_json, data_dir):
    other = os.path.join(data_dir, "mhc_27b_h100.toml")
    d = mhcsim.diff(train, mhcsim.load(other))
    assert d == cli_json("diff", train.file, other)
    changed = {k["key"] for k in d["keys"]}
    assert "model.layers" in changed and "hardware.gpu" in changed
    step = next(f for f in d["figures"] if f["figure"] == "step_s")
    assert step["change"] == pytest.approx(step["b"] / step["a"] - 1)
    # A training step against a serving iteration: side by side, no change.
    serving = mhcsim.diff(train, mhcsim.load(os.path.join(data_dir, "deepseek_v3_serve.toml")))
    assert all(f["change"] is None for f in serving["figures"]) and not serving["comparable"]
    assert d["comparable"]


def test_stability_equals_the_cli(cli_json, data_dir):
    path = os.path.join(data_dir, "mhc_27b_h100.toml")
    r = mhcsim.stability(mhcsim.load(path), samples=50, sinkhorn_iters=[5, 20])
    assert r == cli_json("stability", "-s", path, "--samples", "50", "--sinkhorn-iters", "5,20")
    hc = r["variants"][0]
    assert hc["mapping"] == "HC" and len(hc["curve"]["forward_gain_median"]) == r["depth_mappings"]
    # mHC's projection bounds the gain where HC's grows with depth (mHC paper Fig. 3).
    assert all(v["gain_median"] < 2 for v in r["variants"][1:]) and hc["gain_median"] > 100


@pytest.mark.parametrize("kwargs, key", [
    ({"samples": 0}, "samples"),
    ({"noise": 11.0}, "noise"),
    ({"sinkhorn_iters": [0]}, "sinkhorn_iters"),
    ({"mappings": "stack.npy", "seed": 3}, "mappings"),
])
def test_stability_errors_name_keywords(train, kwargs, key):
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.stability(train, **kwargs)
    assert caught.value.key == key


def test_hardware_catalog_equals_the_cli(cli_json):
    rows = mhcsim.hardware()
    assert rows == cli_json("hw")["rows"]
    assert_rows(rows)
    h800 = next(r for r in rows if r["key"] == "H800")
    assert h800["bf16_tflops"] > 900 and h800["gpus_per_node"] == 8 and h800["source"]


def test_a_configuration_that_does_not_fit_warns_as_the_cli_exits_3(train):
    tight = train.with_overrides({"parallel.pp": 8})  # 84.5 GiB per GPU on 80 GiB H800s
    for verb in (mhcsim.step, mhcsim.memory, mhcsim.simulate):
        with pytest.warns(UserWarning, match="does not fit: out of memory"):
            result = verb(tight)
        assert result  # the numbers all the same
    assert mhcsim.memory(tight)["fits"] is False
