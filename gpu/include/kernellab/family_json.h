// SPDX-License-Identifier: MIT
// Helpers a family's descriptor uses for its JSON sections and CSV columns: a request section
// written under its key (and the launch knobs it owns under "launch"), a variant's result
// section under its key, a CSV column of one field. Each family lists its fields once
// (json_fields.h); these write and read them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "kernellab/family.h"
#include "kernellab/json_fields.h"

namespace kernellab {

// The request's section S under `key`, its fields listed by `fields(f, s)`; with `launch`, the
// section's launch knobs listed by `launch(f, s)` go into the request's "launch" object (the
// format since schema 1). `fields` also gets the request's family and `all` (write every field,
// the window's saved settings) to leave out what does not apply.
template <class S, class Fields, class Launch>
RequestCodec requestSection(std::string key, Fields fields, Launch launch) {
  RequestCodec c;
  c.key = key;
  c.type = sectionType<S>();
  c.write = [key, fields, launch](const RunRequest& r, nlohmann::json& j, bool all) {
    const S& s = r.section<S>();
    json_fields::Writer own(j[key]);
    fields(own, s, r.family, all);
    json_fields::Writer knobs(j["launch"]);
    launch(knobs, s);
  };
  c.read = [key, fields, launch](const nlohmann::json& j, RunRequest& r) {
    if (const auto own = j.find(key); own != j.end() && own->is_object()) {
      json_fields::Reader f(*own);
      fields(f, r.section<S>(), r.family, true);
    }
    if (const auto knobs = j.find("launch"); knobs != j.end() && knobs->is_object()) {
      json_fields::Reader f(*knobs);  // fields it lacks keep their defaults
      launch(f, r.section<S>());
    }
  };
  return c;
}

// A section without launch knobs.
template <class S, class Fields>
RequestCodec requestSection(std::string key, Fields fields) {
  return requestSection<S>(key, fields, [](auto&, auto&) {});
}

// A variant's result section S (with to_json / from_json) under `key`.
template <class S>
ResultCodec resultSection(std::string key) {
  ResultCodec c;
  c.key = key;
  c.type = sectionType<S>();
  c.write = [key](const VariantResult& v, nlohmann::json& j) {
    if (const S* s = v.detail<S>()) j[key] = *s;
  };
  c.read = [key](const nlohmann::json& j, VariantResult& v) {
    if (auto it = j.find(key); it != j.end() && it->is_object()) v.details.set(it->get<S>());
  };
  return c;
}

// A CSV column holding one integer field of the request's section S.
template <class S, class M>
CsvColumn csvField(std::string name, M S::*member) {
  return {std::move(name), [member](const RunRequest& r, const VariantResult*) {
            return std::to_string(r.section<S>().*member);
          }};
}

}  // namespace kernellab
