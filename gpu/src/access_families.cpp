// SPDX-License-Identifier: MIT
// traceBlock, canTrace and tracedKernels: the family's own tracer, through its descriptor.
#include "kernellab/errors.h"
#include "kernellab/family.h"

namespace kernellab::access {

const std::vector<KernelChoice>& tracedKernels(Family family) {
  static const std::vector<KernelChoice> none;
  const FamilyDescriptor* f = findFamily(family);
  return f && f->tracedKernels ? f->tracedKernels() : none;
}

bool canTrace(Family family, const std::string& variant) {
  const FamilyDescriptor* f = findFamily(family);
  return f && f->canTrace && f->canTrace(variant);
}

BlockTrace traceBlock(const AccessQuery& query, ThreadRange keep) {
  const FamilyDescriptor& f = familyDescriptor(query.request.family);
  if (!f.traceBlock)
    throw InputError(std::string("--family ") + f.family.id() +
                     ": no access tracer for this family in this build");
  return f.traceBlock(query, keep);
}

}  // namespace kernellab::access
