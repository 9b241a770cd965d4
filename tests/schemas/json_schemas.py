#!/usr/bin/env python3
"""Every verb's --json against its shipped schema (issue 17): schemas/<verb>.schema.json.

Usage: json_schemas.py MHCSIM SOURCE_DIR

Runs each case below through the real binary, parses the document and validates it with
Debian's python3-jsonschema (Draft 2020-12). A verb with a --json output and no case here, or a
schema file with no case, fails the test, so a new verb cannot ship without both.
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

M, SRC = sys.argv[1], sys.argv[2]
SCN = os.path.join(SRC, "scenarios")
TRAIN = os.path.join(SCN, "deepseek_v3_train.toml")
SERVE = os.path.join(SCN, "deepseek_v3_serve.toml")
MHC = os.path.join(SCN, "mhc_27b_h100.toml")
LLAMA = os.path.join(SCN, "llama3_70b_gqa.toml")
TRACE = os.path.join(SRC, "fuzz", "seeds", "trace", "kineto_small.json")
BENCH = os.path.join(SRC, "tests", "calib", "data", "synthetic_h200.json")
VALID = os.path.join(SCN, "validation")
TMP = tempfile.mkdtemp(prefix="mhcsim_schemas_")
PROFILE = os.path.join(TMP, "profile.json")
# HC mappings whose product passes double's range by the ninth layer: gains past it are null.
OVERFLOWING = os.path.join(TMP, "overflowing.json")
with open(OVERFLOWING, "w") as f:
    json.dump([[[3e38, 3e38], [3e38, -3e38]]] * 12, f)

# (verb, arguments): the variants of each verb's document (training and serving, flags that
# change what the results hold).
CASES = [
    ("hw", []),
    ("hw", ["--hardware", os.path.join(SRC, "tests", "robustness", "corpus", "hardware", "tiny_gpu.toml")]),
    ("scenario", ["-s", TRAIN]),
    ("scenario", ["-s", os.path.join(VALID, "korthikanti22_175b_full.toml")]),
    ("scenario", ["--keys"]),
    ("traffic", ["-s", MHC]),
    ("traffic", ["-s", SERVE]),
    ("kv", ["-s", SERVE, "--context", "131072"]),
    ("kv", ["-s", LLAMA]),
    ("a2a", ["-s", TRAIN]),
    ("a2a", ["-s", SERVE]),
    ("a2a", ["-s", TRAIN, "--tokens", "8192"]),
    ("bubble", ["-s", TRAIN]),
    ("bubble", ["-s", SERVE]),
    ("memory", ["-s", TRAIN]),
    ("memory", ["-s", SERVE]),
    ("step", ["-s", TRAIN]),
    ("step", ["-s", SERVE]),
    ("step", ["-s", os.path.join(VALID, "deepseek_v3_serve_decode.toml")]),
    ("step", ["-s", LLAMA, "--ops"]),
    ("simulate", ["-s", MHC]),
    ("simulate", ["-s", MHC, "--trace", os.path.join(TMP, "sim.json")]),
    ("simulate", ["-s", SERVE]),
    ("compare", ["--trace", TRACE, "--simulated", TRACE]),
    ("compare", ["--trace", TRACE, "--list-kernels"]),
    ("compare", ["--trace", TRACE, "-s", TRAIN, "--steps", "1/120"]),
    ("compare", ["--trace", TRACE, "-s", TRAIN, "--window", "chunk-pair",
                 "--patterns", os.path.join(SRC, "fuzz", "seeds", "patterns", "classes.toml")]),
    ("calibrate", ["--from", BENCH, "-o", PROFILE]),
    ("calibrate", ["--from", BENCH, "-o", os.path.join(TMP, "h200.json"), "--gpu", "H200"]),
    ("sweep", ["-s", TRAIN, "--sweep", "parallel.pp=8,16"]),
    ("sweep", ["-s", TRAIN, "--sweep", "parallel.pp=8,16", "--top", "1"]),
    ("search", ["-s", TRAIN, "--gpus", "256", "--top", "2"]),
    # The scenario's own layout is in the space (Llama-3-70B's 512 GPUs: DeepSeek-V3's 2,048 take
    # 16 s, minutes under the sanitizers, for the same document).
    ("search", ["-s", LLAMA, "--top", "1"]),
    # -o PREFIX writes PREFIX.json: the same document, with written_by first.
    ("search", ["-s", TRAIN, "--gpus", "256", "--top", "1", "-o", os.path.join(TMP, "search")]),
    ("validate", []),
    ("validate", ["--check", "30,30"]),
    ("validate", ["--calibration", PROFILE]),
    ("scenario", ["-s", TRAIN, "--calibration", PROFILE]),
    ("serve", ["-s", SERVE, "--rate", "5", "--requests", "40"]),
    ("serve", ["-s", SERVE, "--requests-file", os.path.join(SRC, "fuzz", "seeds", "requests", "requests.csv")]),
    # Searches over short requests (1,000 tokens in, 8 out): the same documents as the shipped
    # lengths give, in a second instead of 7 to 19 (minutes under the sanitizers).
    ("serve", ["-s", SERVE, "--requests", "200", "--input-tokens", "1000", "--output-tokens", "8", "--slo-ttft", "2s",
               "--slo-tpot", "100ms", "--max-rate"]),
    ("serve", ["-s", SERVE, "--requests", "100", "--input-tokens", "1000", "--output-tokens", "8", "--slo-ttft", "2s",
               "--target-rate", "2000", "--replicas", "2", "--prefill-replicas", "1"]),
    ("serve", ["-s", SERVE, "--requests", "100", "--input-tokens", "1000", "--output-tokens", "8", "--slo-ttft", "2s",
               "--target-rate", "20", "--prefill-replicas", "auto"]),
    ("stability", ["-s", MHC, "--samples", "20"]),
    ("stability", ["-s", MHC, "--mappings", os.path.join(SRC, "fuzz", "seeds", "mappings", "two_layers.json")]),
    ("stability", ["-s", MHC, "--mappings", OVERFLOWING]),
    ("diff", [TRAIN, os.path.join(SRC, "scenarios", "validation", "deepseek_v3_isca25.toml")]),
    ("diff", [TRAIN, SERVE]),
]


def run(verb, args):
    # search -o PREFIX: the document is the file it writes (other verbs' -o files have formats of their own)
    written = args[args.index("-o") + 1] + ".json" if verb == "search" and "-o" in args else None
    out = subprocess.run([M, verb, *args] + ([] if written else ["--json"]), capture_output=True, text=True,
                         check=False)
    # 3 is "does not fit": the document is printed all the same.
    assert out.returncode in (0, 3), f"{verb} {args}: exit {out.returncode}: {out.stderr[:500]}"
    if written:
        with open(written) as f:
            return json.load(f)
    return json.loads(out.stdout)


def main():
    schema_dir = os.path.join(SRC, "schemas")
    failures = 0
    covered = set()
    for verb, args in CASES:
        path = os.path.join(schema_dir, f"{verb}.schema.json")
        schema = json.load(open(path))
        jsonschema.Draft202012Validator.check_schema(schema)
        doc = run(verb, args)
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
        if doc.get("meta", {}).get("verb") != verb or doc["meta"].get("schema") != f"schemas/{verb}.schema.json":
            errors.append(f"meta names {doc.get('meta')} instead of {verb}")
        covered.add(verb)
        for e in errors[:5]:
            where = "/".join(str(p) for p in getattr(e, "path", []))
            print(f"FAIL {verb} {' '.join(args)}: {where}: {getattr(e, 'message', e)}"[:600])
        print(f"{'FAIL' if errors else 'PASS'} {verb} {' '.join(os.path.basename(a) for a in args)}")
        failures += bool(errors)
    shipped = {f[: -len(".schema.json")] for f in os.listdir(schema_dir) if f.endswith(".schema.json")}
    help_text = subprocess.run([M, "--help"], capture_output=True, text=True).stdout
    with_json = set()
    for line in help_text.splitlines():
        words = line.split()
        if line.startswith("  ") and words and words[0].isalpha():
            h = subprocess.run([M, words[0], "--help"], capture_output=True, text=True).stdout
            if "--json" in h:
                with_json.add(words[0])
    for verb in sorted((shipped | with_json) - covered):
        print(f"FAIL {verb}: {'a schema without a case' if verb in shipped else 'a --json verb without a schema'}")
        failures += 1
    print(f"json_schemas: {len(CASES)} documents, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
