// SPDX-License-Identifier: MIT
// The one number-parsing layer of CLI options, request files and results files. Text (or a JSON
// value) is read in full 64-bit width first and only then checked against the destination's
// range, so nothing wraps (--tpb 4294967552 is not 256), truncates ("n": 100.7 is not 100) or
// silently becomes a default (--max-iter -1, --epsilon nan). Every refusal is an InputError
// naming the option or field, the value as written and the limit. Semantic limits (tpb 1..1024,
// K <= N) stay with the validators; this layer guarantees they see the value the user wrote.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>

namespace kernellab {

// A whole decimal integer: optional sign, digits, nothing else ("1e3", "0x10", " 5" are not).
// Values beyond 64 bits and outside [min, max] are refused with the limit.
int64_t parseInt64(std::string_view text, const std::string& name,
                   int64_t min = std::numeric_limits<int64_t>::min(),
                   int64_t max = std::numeric_limits<int64_t>::max());

// 0..18446744073709551615 (seeds); "-1" is refused as negative rather than wrapped.
uint64_t parseUint64(std::string_view text, const std::string& name);

// The low level of parseFinite, for loaders with their own messages: reads the whole text as a
// double (an optional '+' allowed) and says what it is.
enum class NumberRead { Ok, NotANumber, Overflow, Underflow };
NumberRead readDouble(std::string_view text, double& out);

// A finite real number ("nan", "inf", "1e400" and "1e-400" are refused), then in [min, max].
double parseFinite(std::string_view text, const std::string& name,
                   double min = -std::numeric_limits<double>::max(),
                   double max = std::numeric_limits<double>::max());

// An integer option stored in T (int, int64_t): the type's range unless narrower limits are given.
template <class T>
T parseIntegerAs(std::string_view text, const std::string& name,
                 T min = std::numeric_limits<T>::lowest(), T max = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T> && std::is_signed_v<T>, "signed integers only");
  return static_cast<T>(parseInt64(text, name, min, max));
}

// ---- JSON values (request and results files) ---------------------------------------------------
// An integer field accepts a JSON integer, or a number written with a fraction or an exponent
// whose value is whole ("1e5"); 100.7 is refused, and 1e10 for an int is refused as 10000000000.

int64_t jsonInt64(const nlohmann::json& v, const std::string& name, int64_t min, int64_t max);
uint64_t jsonUint64(const nlohmann::json& v, const std::string& name, uint64_t max);
double jsonFinite(const nlohmann::json& v, const std::string& name, double min, double max);

// The value of a JSON number field stored in T, checked against T's range.
template <class T>
T jsonNumber(const nlohmann::json& v, const std::string& name) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "numbers only");
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(jsonFinite(v, name, -double(std::numeric_limits<T>::max()),
                                     double(std::numeric_limits<T>::max())));
  else if constexpr (std::is_signed_v<T>)
    return static_cast<T>(
        jsonInt64(v, name, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  else
    return static_cast<T>(jsonUint64(v, name, std::numeric_limits<T>::max()));
}

// How messages write a double: the shortest text that reads back the same ("100.7", "1e-05"),
// whole values without an exponent up to 1e21 ("10000000000").
std::string numberText(double v);

}  // namespace kernellab
