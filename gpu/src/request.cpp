// SPDX-License-Identifier: MIT
// Names of the request's shared enums, and sweeps through the families' parameters.
#include "kernellab/request.h"

#include <array>
#include <utility>

#include "kernellab/enum_names.h"
#include "kernellab/errors.h"
#include "kernellab/family.h"

namespace kernellab {
namespace {

constexpr std::array<std::pair<BackendChoice, const char*>, 3> kBackends{
    {{BackendChoice::Auto, "auto"}, {BackendChoice::Cpu, "cpu"}, {BackendChoice::Cuda, "cuda"}}};

}  // namespace

const char* toString(BackendChoice b) { return nameOf(kBackends, b); }
std::optional<BackendChoice> backendFromString(const std::string& s) {
  return valueOf(kBackends, s);
}

RunRequest applySweepValue(const RunRequest& base, const std::string& axis,
                           const std::string& value) {
  const FamilyDescriptor& family = familyDescriptor(base.family);
  const FamilyParameter* p = family.parameter(axis);
  if (!p || p->single) {
    std::string known;
    for (const FamilyParameter& q : commonParameters())
      known += (known.empty() ? "" : ", ") + q.name;
    for (const FamilyParameter& q : family.parameters)
      if (!q.single) known += ", " + q.name;
    throw InputError("unknown sweep axis '" + axis + "' for " + family.family.id() +
                     " (known: " + known + ")");
  }
  return buildRequest(base, {{axis, value}});
}

}  // namespace kernellab
