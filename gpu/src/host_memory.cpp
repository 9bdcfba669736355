// SPDX-License-Identifier: MIT
// Available host memory from /proc/meminfo, RLIMIT_AS and the cgroup v2 limit.
#include "kernellab/host_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "kernellab/errors.h"
#include "kernellab/text.h"

namespace kernellab {
namespace {

uint64_t memAvailable() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

// Virtual size of this process (/proc/self/statm, first field in pages).
uint64_t virtualSize() {
  std::ifstream in("/proc/self/statm");
  uint64_t pages = 0;
  in >> pages;
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages * static_cast<uint64_t>(page > 0 ? page : 4096);
}

uint64_t readNumber(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  try {
    return std::stoull(text);
  } catch (...) {
    return 0;
  }
}

// memory.max - memory.current of this process's cgroup (v2), 0 when unlimited or unknown.
uint64_t cgroupHeadroom(bool& limited) {
  limited = false;
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    const std::string dir = "/sys/fs/cgroup" + line.substr(3);
    const uint64_t max = readNumber(dir + "/memory.max");
    if (max == 0) return 0;
    const uint64_t current = readNumber(dir + "/memory.current");
    limited = true;
    return max > current ? max - current : 0;
  }
  return 0;
}

}  // namespace

HostMemory availableHostMemory() {
  HostMemory m;
  m.availableBytes = memAvailable();
  m.limitedBy = "MemAvailable";
  m.known = m.availableBytes > 0;
  if (!m.known) {  // no /proc/meminfo: free physical pages instead
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    m.known = pages > 0 && page > 0;
    if (m.known) m.availableBytes = uint64_t(pages) * uint64_t(page);
    m.limitedBy = "free physical memory";
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const uint64_t used = virtualSize();
    const uint64_t headroom = as.rlim_cur > used ? as.rlim_cur - used : 0;
    if (!m.known || headroom < m.availableBytes) {
      m.known = true;
      m.availableBytes = headroom;
      m.limitedBy = "the address-space limit (ulimit -v)";
    }
  }
  bool limited = false;
  const uint64_t cgroup = cgroupHeadroom(limited);
  if (limited && (!m.known || cgroup < m.availableBytes)) {
    m.known = true;
    m.availableBytes = cgroup;
    m.limitedBy = "the cgroup limit memory.max";
  }
  return m;
}

void requireHostMemory(double bytes, const std::string& what) {
  const HostMemory m = availableHostMemory();
  if (!m.known) return;
  if (bytes > double(m.availableBytes))
    throw InputError(what + " needs " + formatBytes(bytes) + " of host memory; " +
                     formatBytes(double(m.availableBytes)) + " is available (" + m.limitedBy + ")");
}

}  // namespace kernellab
