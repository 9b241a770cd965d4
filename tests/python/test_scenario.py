# Loading scenarios from Python: files, TOML strings, overrides, and errors as mhcsim.Error.
import os

import pytest

import mhcsim


def test_default_scenario_loads():
    s = mhcsim.load()
    assert s.mode == "train"
    assert s.name
    assert s.file == mhcsim.default_scenario_path()
    assert s.overrides == []


def test_file_and_string_give_the_same_scenario(data_dir):
    path = os.path.join(data_dir, "deepseek_v3_serve.toml")
    from_file = mhcsim.load(path)
    with open(path) as f:
        from_text = mhcsim.loads(f.read(), name="serve.toml")
    assert from_file.mode == from_text.mode == "serve"
    assert from_text.file == "serve.toml"
    assert mhcsim.step(from_file) == mhcsim.step(from_text)


def test_overrides_as_list_or_dict_are_the_same():
    a = mhcsim.load(overrides=["parallel.micro_batches=32", "hardware.gpu=H100"])
    b = mhcsim.load(overrides={"parallel.micro_batches": 32, "hardware.gpu": "H100"})
    assert a.overrides == b.overrides == ["parallel.micro_batches=32", "hardware.gpu=H100"]
    assert mhcsim.step(a) == mhcsim.step(b)


def test_with_overrides_adds_to_the_loaded_ones():
    base = mhcsim.load(overrides={"parallel.micro_batches": 32})
    more = base.with_overrides({"parallel.micro_batches": 64})
    assert more.overrides == ["parallel.micro_batches=32", "parallel.micro_batches=64"]
    assert mhcsim.step(more) == mhcsim.step(mhcsim.load(overrides={"parallel.micro_batches": 64}))


def test_bad_override_raises_error_naming_the_key():
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.load(overrides={"parallel.pp": 0})
    e = caught.value
    assert isinstance(e, ValueError)
    assert e.key == "parallel.pp"
    assert "parallel.pp" in str(e) and "out of range" in str(e)
    assert "\n" not in str(e)


def test_override_values_python_cannot_mean_are_named():
    with pytest.raises(mhcsim.Error, match=r"parallel.pp: 1180591620717411303424 is out of range \(an integer past 64"):
        mhcsim.load(overrides={"parallel.pp": 2**70})
    with pytest.raises(mhcsim.Error, match="parallel.pp: None is not a value"):
        mhcsim.load(overrides={"parallel.pp": None})
    with pytest.raises(mhcsim.Error, match=r"overrides: a int \(expected a dict"):
        mhcsim.load(overrides=5)


def test_unknown_key_and_missing_equals_are_errors():
    with pytest.raises(mhcsim.Error, match="parallel.ppp"):
        mhcsim.load(overrides=["parallel.ppp=8"])
    with pytest.raises(mhcsim.Error):
        mhcsim.load(overrides=["parallel.pp"])


def test_error_in_a_string_names_its_file_and_line():
    text = mhcsim.load().toml
    lines = text.splitlines()
    line = next(i for i, l in enumerate(lines, 1) if l.startswith("pp = "))
    lines[line - 1] = "pp = 0"
    with pytest.raises(mhcsim.Error) as caught:
        mhcsim.loads("\n".join(lines), name="mine.toml")
    e = caught.value
    assert (e.file, e.line, e.key) == ("mine.toml", line, "parallel.pp")
    assert str(e).startswith(f"mine.toml:{line}: parallel.pp: ")


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(mhcsim.Error, match="nothing.toml"):
        mhcsim.load(str(tmp_path / "nothing.toml"))
