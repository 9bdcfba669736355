// SPDX-License-Identifier: MIT
// The verify suite: every registered family's cases, in the registry's order.
#include "kernellab/verify_suite.h"

#include <algorithm>

#include "kernellab/family.h"

namespace kernellab {

std::vector<VerifyCase> verifySuite(bool quick, const std::vector<Family>& only) {
  std::vector<VerifyCase> out;
  for (const FamilyDescriptor* f : families()) {
    if (!only.empty() && std::find(only.begin(), only.end(), f->family) == only.end()) continue;
    if (!f->verifyCases) continue;
    for (VerifyCase& c : f->verifyCases(quick)) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kernellab
