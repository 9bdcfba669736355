// SPDX-License-Identifier: MIT
// Checked number parsing: 64-bit first, then the destination's range (checked_number.h).
#include "kernellab/checked_number.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "kernellab/errors.h"
#include "kernellab/input_text.h"

namespace kernellab {
namespace {

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// `name` may already end in a colon ("--image 10xabc:").
std::string withColon(const std::string& name) {
  return !name.empty() && name.back() == ':' ? name : name + ":";
}

[[noreturn]] void notWhole(std::string_view text, const std::string& name) {
  throw InputError(withColon(name) + " '" + excerpt(text) + "' is not a whole number");
}

[[noreturn]] void aboveLimit(const std::string& shown, const std::string& name,
                             const std::string& limit) {
  throw InputError(name + " " + shown + " is above the limit " + limit);
}

[[noreturn]] void belowLimit(const std::string& shown, const std::string& name,
                             const std::string& limit) {
  throw InputError(name + " " + shown + " is below the limit " + limit);
}

// The decimal exponent of a number's leading digit ("0.00012" -> -4, "12e3" -> 4), for telling
// an overflow from an underflow when from_chars reports "out of range" for both.
constexpr long long kExponentClamp = 1LL << 40;  // far beyond any double, far from overflow

long long leadingExponent(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  long long exp10 = 0;
  const size_t e = s.find_first_of("eE");
  if (e != std::string_view::npos) {
    std::string_view x = s.substr(e + 1);
    if (!x.empty() && x.front() == '+') x.remove_prefix(1);
    if (std::from_chars(x.data(), x.data() + x.size(), exp10).ec != std::errc())
      exp10 = (!x.empty() && x.front() == '-') ? -1000000 : 1000000;  // too long: its sign decides
    // Only the sign of the sum matters, and the digit count added below is bounded by the text
    // length: clamping keeps "5E<2^63-1>" from overflowing the addition.
    exp10 = std::clamp(exp10, -kExponentClamp, kExponentClamp);
    s = s.substr(0, e);
  }
  const size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const size_t firstWhole = whole.find_first_not_of('0');
  if (firstWhole != std::string_view::npos)
    return exp10 + static_cast<long long>(whole.size() - firstWhole) - 1;
  if (dot == std::string_view::npos) return exp10;
  const std::string_view frac = s.substr(dot + 1);
  const size_t firstFrac = frac.find_first_not_of('0');
  return exp10 - static_cast<long long>(firstFrac == std::string_view::npos ? 0 : firstFrac) - 1;
}

}  // namespace

std::string numberText(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (v == std::trunc(v) && std::fabs(v) < 1e21) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

int64_t parseInt64(std::string_view text, const std::string& name, int64_t min, int64_t max) {
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  if (!allDigits(digits)) notWhole(text, name);
  int64_t v = 0;
  // from_chars takes the sign itself; a leading '+' was checked above and is skipped.
  const std::string_view signedText = text.front() == '+' ? text.substr(1) : text;
  const auto [ptr, ec] =
      std::from_chars(signedText.data(), signedText.data() + signedText.size(), v);
  const std::string shown = excerpt(text);
  if (ec == std::errc::result_out_of_range) {
    // Beyond 64 bits: beyond any limit of ours, on the side of its sign.
    if (negative) belowLimit(shown, name, std::to_string(min));
    aboveLimit(shown, name, std::to_string(max));
  }
  if (ec != std::errc() || ptr != signedText.data() + signedText.size()) notWhole(text, name);
  if (v < min) belowLimit(shown, name, std::to_string(min));
  if (v > max) aboveLimit(shown, name, std::to_string(max));
  return v;
}

uint64_t parseUint64(std::string_view text, const std::string& name) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '-') {
    digits.remove_prefix(1);
    if (allDigits(digits) && digits.find_first_not_of('0') != std::string_view::npos)
      throw InputError(name + " " + excerpt(text) + " is negative; it must be 0.." +
                       std::to_string(std::numeric_limits<uint64_t>::max()));
    if (allDigits(digits)) return 0;  // "-0"
    notWhole(text, name);
  }
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if (!allDigits(digits)) notWhole(text, name);
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    aboveLimit(excerpt(text), name, std::to_string(std::numeric_limits<uint64_t>::max()));
  if (ec != std::errc() || ptr != digits.data() + digits.size()) notWhole(text, name);
  return v;
}

NumberRead readDouble(std::string_view text, double& out) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return NumberRead::NotANumber;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ptr != s.data() + s.size()) return NumberRead::NotANumber;
  if (ec == std::errc::result_out_of_range)
    return leadingExponent(s) < 0 ? NumberRead::Underflow : NumberRead::Overflow;
  return ec == std::errc() ? NumberRead::Ok : NumberRead::NotANumber;
}

double parseFinite(std::string_view text, const std::string& name, double min, double max) {
  double v = 0;
  const std::string shown = excerpt(text);
  switch (readDouble(text, v)) {
    case NumberRead::Underflow:
      throw InputError(name + " " + shown +
                       " is out of range: nonzero but below the smallest 64-bit float (about "
                       "2.2e-308); write 0 if zero is meant");
    case NumberRead::Overflow:
      throw InputError(name + " " + shown +
                       " is out of range: beyond the largest 64-bit float (about 1.8e308)");
    case NumberRead::NotANumber:
      throw InputError(withColon(name) + " '" + shown + "' is not a number");
    case NumberRead::Ok:
      break;
  }
  if (!std::isfinite(v)) throw InputError(name + " " + shown + " is not a finite number");
  if (v < min) belowLimit(shown, name, numberText(min));
  if (v > max) aboveLimit(shown, name, numberText(max));
  return v;
}

int64_t jsonInt64(const nlohmann::json& v, const std::string& field, int64_t min, int64_t max) {
  const std::string name = field + ":";  // "field 'k': 1e10 is above ..."
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    const int64_t x = v.get<int64_t>();
    if (x < min) belowLimit(std::to_string(x), name, std::to_string(min));
    if (x > max) aboveLimit(std::to_string(x), name, std::to_string(max));
    return x;
  }
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (max < 0 || x > static_cast<uint64_t>(max))
      aboveLimit(std::to_string(x), name, std::to_string(max));
    if (min > 0 && x < static_cast<uint64_t>(min))
      belowLimit(std::to_string(x), name, std::to_string(min));
    return static_cast<int64_t>(x);
  }
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (!std::isfinite(x)) throw InputError(name + " " + numberText(x) + " is not a finite number");
    if (x != std::trunc(x)) throw InputError(name + " " + numberText(x) + " is not a whole number");
    // Compared as doubles: 2^63 itself is out of range for int64_t.
    if (x < static_cast<double>(min)) belowLimit(numberText(x), name, std::to_string(min));
    if (x >= 9223372036854775808.0 || x > static_cast<double>(max))
      aboveLimit(numberText(x), name, std::to_string(max));
    return static_cast<int64_t>(x);
  }
  throw InputError(field + " must be a number, not " + std::string(v.type_name()));
}

uint64_t jsonUint64(const nlohmann::json& v, const std::string& field, uint64_t max) {
  const std::string name = field + ":";
  const std::string range = "; it must be 0.." + std::to_string(max);
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x > max) aboveLimit(std::to_string(x), name, std::to_string(max));
    return x;
  }
  if (v.is_number_integer()) {  // signed: a negative value
    const int64_t x = v.get<int64_t>();
    if (x < 0) throw InputError(name + " " + std::to_string(x) + " is negative" + range);
    if (static_cast<uint64_t>(x) > max) aboveLimit(std::to_string(x), name, std::to_string(max));
    return static_cast<uint64_t>(x);
  }
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (!std::isfinite(x)) throw InputError(name + " " + numberText(x) + " is not a finite number");
    if (x != std::trunc(x)) throw InputError(name + " " + numberText(x) + " is not a whole number");
    if (x < 0) throw InputError(name + " " + numberText(x) + " is negative" + range);
    if (x >= 18446744073709551616.0 || x > static_cast<double>(max))
      aboveLimit(numberText(x), name, std::to_string(max));
    return static_cast<uint64_t>(x);
  }
  throw InputError(field + " must be a number, not " + std::string(v.type_name()));
}

double jsonFinite(const nlohmann::json& v, const std::string& field, double min, double max) {
  const std::string name = field + ":";
  if (!v.is_number())
    throw InputError(field + " must be a number, not " + std::string(v.type_name()));
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw InputError(name + " " + numberText(x) + " is not a finite number");
  if (x < min) belowLimit(numberText(x), name, numberText(min));
  if (x > max) aboveLimit(numberText(x), name, numberText(max));
  return x;
}

}  // namespace kernellab
