# Fixtures shared by the Python tests. ctest runs them with the interpreter the module was
# built for, PYTHONPATH at the built module, MHCSIM_CLI at the built CLI and MHCSIM_DATA_DIR
# at the shipped scenarios (tests/CMakeLists.txt).
import json
import os
import subprocess

import pytest

import mhcsim


@pytest.fixture(scope="session")
def data_dir():
    return os.environ.get("MHCSIM_DATA_DIR") or mhcsim.data_dir()


@pytest.fixture(scope="session")
def cli_json():
    """Runs `mhcsim <args> --json` and returns the document's results (the CLI wraps them
    with meta and inputs; the module returns them as they are)."""
    cli = os.environ.get("MHCSIM_CLI")
    if not cli:
        pytest.skip("MHCSIM_CLI is not set (ctest sets it to the built CLI)")

    def run(*args):
        out = subprocess.run([cli, *args, "--json"], check=False, capture_output=True, text=True)
        # Exit 3 is "does not fit": the result is printed all the same.
        assert out.returncode in (0, 3), out.stderr
        return json.loads(out.stdout)["results"]

    return run


def assert_rows(rows):
    """A list of flat dicts with the same keys: what pandas.DataFrame takes as it is."""
    assert isinstance(rows, list) and rows
    keys = list(rows[0])
    for row in rows:
        assert isinstance(row, dict) and list(row) == keys
        for value in row.values():
            assert value is None or isinstance(value, (bool, int, float, str))
    try:
        import pandas
    except ImportError:
        return
    assert pandas.DataFrame(rows).shape == (len(rows), len(keys))


def assert_flat(d):
    """A dict of scalars: pandas.Series(d), or pandas.DataFrame([d]) as one row."""
    assert isinstance(d, dict) and d
    assert_rows([d])
