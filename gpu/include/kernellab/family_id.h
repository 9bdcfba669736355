// SPDX-License-Identifier: MIT
// A kernel family's identity: the id requests, results files, the CLI and the window write
// ("transpose", "kmeans"). The id is all the core knows of a family; everything else comes from
// the family's descriptor (family.h), found in the registry by this id.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kernellab {

class Family {
 public:
  constexpr Family() = default;
  // From a string literal or a descriptor's id: the text must outlive every copy (each family's
  // folder defines its constant, e.g. transpose::kFamily; familyFromString returns those).
  constexpr explicit Family(const char* id) : id_(id) {}

  constexpr const char* id() const { return id_; }
  constexpr bool empty() const { return id_[0] == '\0'; }

  friend constexpr bool operator==(Family a, Family b) {
    return std::string_view(a.id_) == std::string_view(b.id_);
  }
  friend constexpr bool operator!=(Family a, Family b) { return !(a == b); }
  friend constexpr bool operator<(Family a, Family b) {
    return std::string_view(a.id_) < std::string_view(b.id_);
  }

 private:
  const char* id_ = "";
};

// The id, as JSON and the CLI write it.
constexpr const char* toString(Family f) { return f.id(); }
// The registered family with this id, case-insensitive (gpu/src/families.cpp), or nullopt.
std::optional<Family> familyFromString(const std::string& id);

}  // namespace kernellab
