// SPDX-License-Identifier: MIT
// The tree's one random source: splitmix64, a counter hash (Steele, Lea and Flood 2014, the
// seeding generator of xoshiro). Generators draw value i from splitmix64(salt + i) or
// splitmix64(salt ^ i), so any element can be made independently, in parallel and in any order,
// and the same seed gives the same data on every machine.
#pragma once

#include <cstdint>

namespace kernellab {

inline constexpr uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio

inline uint64_t splitmix64(uint64_t x) {
  x += kSplitMixGamma;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 53 random bits.
inline double uniform01(uint64_t key) {
  return static_cast<double>(splitmix64(key) >> 11) * (1.0 / 9007199254740992.0);
}

// A small sequential generator for the few draws that must come in order (centers, shuffles,
// samples of a view).
class SeqRandom {
 public:
  explicit SeqRandom(uint64_t seed) : state_(splitmix64(seed ^ 0xA5A5A5A5DEADBEEFull)) {}
  uint64_t next() { return splitmix64(state_++); }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, bound) without modulo bias.
  uint64_t below(uint64_t bound) {
    if (bound <= 1) return 0;
    const uint64_t limit = ~uint64_t(0) - (~uint64_t(0) % bound);
    uint64_t r;
    do r = next();
    while (r >= limit);
    return r % bound;
  }

 private:
  uint64_t state_;
};

// splitmix64 as the generator it was designed as: the state advances by the gamma, each output
// is the mix of the new state (the view's samples of a point cloud).
class SplitMixSequence {
 public:
  explicit SplitMixSequence(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    const uint64_t out = splitmix64(state_);
    state_ += kSplitMixGamma;
    return out;
  }

 private:
  uint64_t state_;
};

}  // namespace kernellab
