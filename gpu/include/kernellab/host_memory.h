// SPDX-License-Identifier: MIT
// How much host memory this process can still use, for the checks made before a file is read or
// a run allocates: the smallest of the kernel's MemAvailable, the headroom under the process's
// address-space limit (ulimit -v) and under its cgroup's memory.max. Total RAM is not the answer:
// on a shared machine most of it may be taken.
#pragma once

#include <cstdint>
#include <string>

namespace kernellab {

struct HostMemory {
  bool known = false;  // false (no /proc, no sysconf): callers do not refuse
  uint64_t availableBytes = 0;
  std::string limitedBy;  // "MemAvailable", "the address-space limit (ulimit -v)", ...
};

HostMemory availableHostMemory();

// Throws InputError("<what> needs 8.20 GB of host memory; 3.10 GB is available (MemAvailable)")
// when `bytes` do not fit in what is available now.
void requireHostMemory(double bytes, const std::string& what);

}  // namespace kernellab
