#!/usr/bin/env python3
"""Markdown table of a kernels_bench.json (Google Benchmark JSON): time, GB/s, fraction of HBM
peak and TFLOP/s per benchmark, with the run context on top. Numbers are copied from the
JSON, never computed from anything else."""
import json
import sys


def main(path):
    with open(path) as f:
        data = json.load(f)
    ctx = data.get("context", {})
    keys = ["gpu", "gpu_sm", "cuda_driver", "cuda_runtime", "nccl", "hbm_peak_GBps", "timing", "date"]
    print("# Measured kernel benchmarks\n")
    for k in keys:
        if k in ctx:
            print(f"- {k}: {ctx[k]}")
    print("\n| benchmark | time (us) | GB/s | fraction of HBM peak | TFLOP/s |")
    print("|---|---|---|---|---|")
    for b in data.get("benchmarks", []):
        unit = b.get("time_unit", "ns")
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[unit]
        tflops = b.get("TFLOP/s")
        print(f"| {b['name']} | {b['real_time'] * scale:.2f} | {b.get('GB/s', 0):.1f} | "
              f"{b.get('hbm_peak_fraction', 0):.3f} | {'' if tflops is None else f'{tflops:.1f}'} |")


if __name__ == "__main__":
    main(sys.argv[1])
