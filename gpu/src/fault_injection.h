// SPDX-License-Identifier: MIT
// A testing hook that proves verification catches a wrong result: with
// KERNELLAB_FAULT_INJECT=<variant id> the runner alters one output element of that variant after
// it ran and before it is verified. Documented in docs/user-guide.md; never set in normal use.
#pragma once

#include <cstdlib>
#include <string>

namespace kernellab::detail {

inline bool faultInjectedFor(const std::string& variant) {
  const char* v = std::getenv("KERNELLAB_FAULT_INJECT");
  return v && variant == v;
}

}  // namespace kernellab::detail
