// SPDX-License-Identifier: MIT
// Names of an enum's values as a table of {value, name} pairs: toString and fromString of the
// request's enums (JSON, the CLI and the window use the names).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "kernellab/text.h"

namespace kernellab {

template <class E, size_t N>
const char* nameOf(const std::array<std::pair<E, const char*>, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

// Case-insensitive.
template <class E, size_t N>
std::optional<E> valueOf(const std::array<std::pair<E, const char*>, N>& table,
                         const std::string& s) {
  const std::string lower = toLower(s);
  for (const auto& [e, name] : table)
    if (lower == name) return e;
  return std::nullopt;
}

}  // namespace kernellab
