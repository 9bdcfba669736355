// SPDX-License-Identifier: MIT
// One field list per JSON struct: a struct's fields are listed once, in a function template
// `fields(F& f, V& v)`, and the same list writes it (json_fields::Writer) and reads it
// (json_fields::Reader). KL_JSON_FIELDS(Type, fn) defines to_json and from_json from it.
//
//   template <class F, class V> void timingFields(F& f, V& v) {
//     f("median_ms", v.medianMs);
//     f.named("clock", v.clock, clockFromString);      // an enum by its name
//     f.when(v.samples > 0, "samples", v.samples);     // written only when it applies
//   }
//
// Reading is lenient about absence (an older file lacks a field: the default stays) and strict
// about type: numbers go through the checked layer (checked_number.h), so 100.7 is not an int,
// 1e10 is not a K and -1 is not a seed; a wrong type names the field.
#pragma once

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/input_text.h"

namespace kernellab::json_fields {

template <class T>
struct IsNumberVector : std::false_type {};
template <class E>
struct IsNumberVector<std::vector<E>>
    : std::bool_constant<std::is_arithmetic_v<E> && !std::is_same_v<E, bool>> {};

// A number of E's range taken as it is, without building a message: a million labels must not
// cost a million strings. Anything else (a float for an int, out of range, not a number) returns
// false and goes through jsonNumber, which says what is wrong.
template <class E>
bool plainNumber(const nlohmann::json& v, E& out) {
  if constexpr (std::is_floating_point_v<E>) {
    if (!v.is_number()) return false;
    const double x = v.get<double>();
    const double limit = static_cast<double>(std::numeric_limits<E>::max());
    if (!std::isfinite(x) || x < -limit || x > limit) return false;
    out = static_cast<E>(x);
    return true;
  } else {
    if (v.is_number_unsigned()) {
      const uint64_t x = v.get<uint64_t>();
      if (x > static_cast<uint64_t>(std::numeric_limits<E>::max())) return false;
      out = static_cast<E>(x);
      return true;
    }
    if (!v.is_number_integer()) return false;
    const int64_t x = v.get<int64_t>();
    if (x < static_cast<int64_t>(std::numeric_limits<E>::min()) ||
        (x > 0 && static_cast<uint64_t>(x) > static_cast<uint64_t>(std::numeric_limits<E>::max())))
      return false;
    out = static_cast<E>(x);
    return true;
  }
}

// Reads j[key] into out when present; a present field of the wrong type throws InputError
// naming the field. Numbers (and arrays of numbers) go through the checked layer.
template <class T>
void opt(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  const std::string field = std::string("field '") + key + "'";
  try {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      out = jsonNumber<T>(*it, field);
    } else if constexpr (IsNumberVector<T>::value) {
      if (!it->is_array()) throw InputError(field + " must be a list of numbers");
      T values;
      values.reserve(it->size());
      using E = typename T::value_type;
      for (size_t i = 0; i < it->size(); ++i) {
        // nlohmann writes NaN (a poisoned output element) as null: read it back as NaN.
        if constexpr (std::is_floating_point_v<E>)
          if ((*it)[i].is_null()) {
            values.push_back(std::numeric_limits<E>::quiet_NaN());
            continue;
          }
        E x{};
        if (plainNumber((*it)[i], x))
          values.push_back(x);
        else
          values.push_back(jsonNumber<E>((*it)[i], field + " element " + std::to_string(i)));
      }
      out = std::move(values);
    } else {
      out = it->get<T>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(field + ": " + e.what());
  }
}

// Reads an enum by its name; an unknown name names the field and the value.
template <class E, class FromString>
void optEnum(const nlohmann::json& j, const char* key, E& out, FromString fromString) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_string()) throw InputError(std::string("field '") + key + "' must be a string");
  auto v = fromString(it->get<std::string>());
  if (!v)
    throw InputError(std::string("field '") + key + "': unknown value '" +
                     excerpt(it->get<std::string>()) + "'");
  out = *v;
}

// Writes the listed fields into an object.
class Writer {
 public:
  explicit Writer(nlohmann::json& j) : j_(j) {
    if (!j_.is_object()) j_ = nlohmann::json::object();
  }
  template <class T>
  void operator()(const char* key, const T& value) {
    j_[key] = value;
  }
  // Written only when `applies` (an optional field, a family's knob); read whenever present.
  template <class T>
  void when(bool applies, const char* key, const T& value) {
    if (applies) j_[key] = value;
  }
  template <class T>
  void operator()(const char* key, const std::optional<T>& value) {
    if (value) j_[key] = *value;
  }
  // An enum by its name (toString(value), found by argument-dependent lookup).
  template <class E, class FromString>
  void named(const char* key, const E& value, FromString, bool applies = true) {
    if (applies) j_[key] = toString(value);
  }
  // Two numbers as a [a, b] pair ("grid": [x, y]).
  template <class T>
  void pair(const char* key, const T& a, const T& b) {
    j_[key] = nlohmann::json::array({a, b});
  }
  // Derived text for readers of the file, never read back (the derived fields are).
  template <class T>
  void writeOnly(const char* key, const T& value) {
    j_[key] = value;
  }
  // A field a reader refuses to go without.
  template <class T>
  void required(const char* key, const T& value) {
    j_[key] = value;
  }

 private:
  nlohmann::json& j_;
};

// Reads the listed fields from an object; absent ones keep their defaults.
class Reader {
 public:
  explicit Reader(const nlohmann::json& j) : j_(j) {}
  template <class T>
  void operator()(const char* key, T& value) {
    opt(j_, key, value);
  }
  template <class T>
  void when(bool, const char* key, T& value) {
    opt(j_, key, value);
  }
  template <class T>
  void operator()(const char* key, std::optional<T>& value) {
    if (auto it = j_.find(key); it != j_.end() && it->is_object()) value = it->get<T>();
  }
  template <class E, class FromString>
  void named(const char* key, E& value, FromString fromString, bool = true) {
    optEnum(j_, key, value, fromString);
  }
  template <class T>
  void pair(const char* key, T& a, T& b) {
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_array() || it->size() != 2) return;
    const std::string field = std::string("field '") + key + "'";
    a = jsonNumber<T>((*it)[0], field);
    b = jsonNumber<T>((*it)[1], field);
  }
  template <class T>
  void writeOnly(const char*, const T&) {}
  template <class T>
  void required(const char* key, T& value) {
    if (!j_.contains(key)) throw InputError(std::string("field '") + key + "' is missing");
    opt(j_, key, value);
  }

 private:
  const nlohmann::json& j_;
};

}  // namespace kernellab::json_fields

// to_json and from_json of `Type` from its one field list `fieldsFn` (a function template
// `template <class F, class V> void fieldsFn(F& f, V& v)`).
#define KL_JSON_FIELDS(Type, fieldsFn)               \
  void to_json(nlohmann::json& j, const Type& v) {   \
    j = nlohmann::json::object();                    \
    ::kernellab::json_fields::Writer w(j);           \
    fieldsFn(w, v);                                  \
  }                                                  \
  void from_json(const nlohmann::json& j, Type& v) { \
    ::kernellab::json_fields::Reader r(j);           \
    fieldsFn(r, v);                                  \
  }
