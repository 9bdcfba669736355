// SPDX-License-Identifier: MIT
// The family registry (families.def) and what every family shares: lookup by id, the common
// parameters and the one request builder of the CLI and the window.
#include <algorithm>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/family.h"
#include "kernellab/text.h"

namespace kernellab {

#define KL_FAMILY(descriptorFunction) const FamilyDescriptor& descriptorFunction();
#include "families.def"
#undef KL_FAMILY

const std::vector<const FamilyDescriptor*>& families() {
  static const std::vector<const FamilyDescriptor*> list = {
#define KL_FAMILY(descriptorFunction) &descriptorFunction(),
#include "families.def"
#undef KL_FAMILY
  };
  return list;
}

const FamilyDescriptor* findFamily(const std::string& id) {
  const std::string lower = toLower(id);
  for (const FamilyDescriptor* f : families())
    if (lower == f->family.id()) return f;
  return nullptr;
}

const FamilyDescriptor* findFamily(Family family) { return findFamily(std::string(family.id())); }

std::optional<Family> familyFromString(const std::string& id) {
  if (const FamilyDescriptor* f = findFamily(id)) return f->family;
  return std::nullopt;
}

std::string familyIds(const std::string& separator) {
  std::string out;
  for (const FamilyDescriptor* f : families())
    out += (out.empty() ? "" : separator) + std::string(f->family.id());
  return out;
}

const FamilyDescriptor& familyDescriptor(Family family) {
  if (const FamilyDescriptor* f = findFamily(family)) return *f;
  throw InputError("family '" + std::string(family.id()) + "' is unknown (" + familyIds() + ")");
}

const FamilyParameter* FamilyDescriptor::parameter(const std::string& name) const {
  for (const FamilyParameter& p : parameters)
    if (p.name == name) return &p;
  for (const FamilyParameter& p : commonParameters())
    if (p.name == name) return &p;
  return nullptr;
}

bool FamilyDescriptor::anyVariant(bool VariantDescription::*capability) const {
  for (const VariantDescription& v : variants())
    if (v.*capability) return true;
  return false;
}

namespace {

template <class Codec>
std::vector<const Codec*> uniqueByKey(std::vector<Codec> FamilyDescriptor::*member) {
  std::vector<const Codec*> out;
  for (const FamilyDescriptor* f : families())
    for (const Codec& c : f->*member)
      if (std::none_of(out.begin(), out.end(), [&](const Codec* o) { return o->key == c.key; }))
        out.push_back(&c);
  return out;
}

}  // namespace

const std::vector<const RequestCodec*>& allRequestSections() {
  static const auto list = uniqueByKey(&FamilyDescriptor::requestSections);
  return list;
}

const std::vector<const ResultCodec*>& allResultSections() {
  static const auto list = uniqueByKey(&FamilyDescriptor::resultSections);
  return list;
}

const std::vector<FamilyParameter>& commonParameters() {
  static const std::vector<FamilyParameter> list = [] {
    FamilyParameter tpb("tpb", "Threads per block", "Threads per block (1..1024)",
                        [](RunRequest& r, const std::string& v) {
                          r.launch.threadsPerBlock = parseIntegerAs<int>(v, "--tpb");
                        });
    tpb.label = [](const RunRequest& r) {
      return "TPB " + std::to_string(r.launch.threadsPerBlock);
    };
    tpb.number = [](const RunRequest& r) { return double(r.launch.threadsPerBlock); };
    return std::vector<FamilyParameter>{tpb};
  }();
  return list;
}

RunRequest buildRequest(RunRequest base,
                        const std::vector<std::pair<std::string, std::string>>& values) {
  const FamilyDescriptor& family = familyDescriptor(base.family);
  std::vector<std::string> given;
  // The family's order (tile before rows per thread, the image before the block), then the
  // common ones (an explicit --tpb wins over one a family derives, and finishRequest compares
  // them): a value may depend on one before it.
  auto applyAll = [&](const std::vector<FamilyParameter>& list) {
    for (const FamilyParameter& p : list)
      for (const auto& [name, value] : values)
        if (name == p.name) {
          p.apply(base, value);
          given.push_back(name);
        }
  };
  applyAll(family.parameters);
  applyAll(commonParameters());
  for (const auto& [name, value] : values)
    if (std::find(given.begin(), given.end(), name) == given.end()) {
      std::string takers;
      for (const FamilyDescriptor* f : families())
        for (const FamilyParameter& p : f->parameters)
          if (p.name == name) takers += (takers.empty() ? "" : ", ") + std::string(f->family.id());
      throw InputError("--" + name + " " + value + " does not apply to " + family.family.id() +
                       (takers.empty() ? std::string(" (no family takes it)")
                                       : " (it is an option of " + takers + ")"));
    }
  if (family.finishRequest) family.finishRequest(base, given);
  return base;
}

}  // namespace kernellab
