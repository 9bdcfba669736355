// SPDX-License-Identifier: MIT
// libFuzzer target: the clustering CSV loader. Any exception but InputError is a bug (a crash).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto s = kernellab::clustering::parsePointsCsv(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    // A result must be whole: N rows of D values.
    if (s.d < 1 || s.values.size() != static_cast<size_t>(s.n) * static_cast<size_t>(s.d))
      __builtin_trap();
  } catch (const kernellab::InputError&) {
  }
  return 0;
}
