// SPDX-License-Identifier: MIT
// A family's variant table entry, and looking up and parsing variant ids in such a table (a vector
// of entries with `.variant` and `.id`), shared by the families whose variants are a plain enum.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/errors.h"
#include "kernellab/text.h"

namespace kernellab {

template <class Variant>
struct EnumVariantInfo {
  Variant variant;
  const char* id;           // CLI / JSON name
  const char* title;        // short label for charts
  const char* kernel;       // CUDA kernel name
  const char* explanation;  // one line: what this switch changes
};

// The table's entry for `v` (the first entry if the table lacks it: every enum value has one).
template <class Table, class Variant>
const auto& variantEntry(const Table& table, Variant v) {
  for (const auto& entry : table)
    if (entry.variant == v) return entry;
  return table.front();
}

template <class Table>
auto variantFromId(const Table& table, const std::string& id)
    -> std::optional<decltype(table.front().variant)> {
  const std::string lower = toLower(id);
  for (const auto& entry : table)
    if (lower == entry.id) return entry.variant;
  return std::nullopt;
}

// "all" or ids, in the order given, without repeats; an empty list means every variant. An
// unknown id throws InputError naming it and listing the family's ids.
template <class Table>
auto parseVariantIds(const Table& table, const std::vector<std::string>& ids,
                     const std::string& family) -> std::vector<decltype(table.front().variant)> {
  using Variant = decltype(table.front().variant);
  std::vector<Variant> out;
  auto addUnique = [&](Variant v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const auto& id : ids) {
    if (toLower(id) == "all") {
      for (const auto& entry : table) addUnique(entry.variant);
      continue;
    }
    const auto v = variantFromId(table, id);
    if (!v) {
      std::string known;
      for (const auto& entry : table) known += std::string(known.empty() ? "" : ", ") + entry.id;
      throw InputError("--variant " + id + ": unknown " + family + " variant (known: " + known +
                       ", all)");
    }
    addUnique(*v);
  }
  if (out.empty())
    for (const auto& entry : table) out.push_back(entry.variant);
  return out;
}

}  // namespace kernellab
