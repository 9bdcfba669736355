// SPDX-License-Identifier: MIT
// libFuzzer target: the KNN .npy image loader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernellab/errors.h"
#include "kernellab/knn.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto img = kernellab::knn::parseNpyImage(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    if (img.planes.size() !=
        static_cast<size_t>(img.pixels()) * static_cast<size_t>(img.components))
      __builtin_trap();
  } catch (const kernellab::InputError&) {
  }
  return 0;
}
