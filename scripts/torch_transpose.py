#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# torch's transpose at the issue-18 shapes, for the comparison column of docs/BENCHMARKS.md:
# m.t().contiguous() on a float32 matrix of H rows x W columns, CUDA events, median of 50 after 5
# warm-ups, and torch's own device copy (m.clone()) in the same run for the ratio.
import sys

import torch


def median_ms(fn, reps=50, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    shapes = sys.argv[1:] or ["8192x8192", "2048x32768", "8191x8193", "1000000x200",
                              "200x1000000", "3x1000000", "16x1000000"]
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    print(f"{'W x H':>14} {'transpose ms':>13} {'clone ms':>9} {'x clone':>8}")
    for s in shapes:
        w, h = (int(v) for v in s.split("x"))
        m = torch.rand(h, w, device="cuda", dtype=torch.float32)
        t = median_ms(lambda: m.t().contiguous())
        c = median_ms(lambda: m.clone())
        out = m.t().contiguous()
        assert torch.equal(out, m.t()), "torch transpose differs"
        print(f"{s:>14} {t:13.4f} {c:9.4f} {c / t:8.3f}")
        del m, out
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
