// SPDX-License-Identifier: MIT
// Exception types of gpu/.
#include "kernellab/errors.h"

namespace kernellab {

CudaError::CudaError(int code, std::string name, std::string text, std::string expr,
                     std::string file, int line, bool sticky)
    : std::runtime_error(name + ": " + text + " (" + expr + " at " + file + ":" +
                         std::to_string(line) + ")"),
      code_(code),
      name_(std::move(name)),
      text_(std::move(text)),
      sticky_(sticky) {}

}  // namespace kernellab
