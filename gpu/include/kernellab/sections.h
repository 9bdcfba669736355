// SPDX-License-Identifier: MIT
// The parts of a request or a result that belong to one family (the transpose's matrix size,
// k-means's points and stop rule, a KNN variant's neighbour lists), kept by their type, so the
// shared model holds every family's data without naming any family. The family's folder
// defines the struct; its descriptor (family.h) says how it is written to JSON.
//
//   request.section<TransposeProblem>().width = 4096;           // made with defaults if absent
//   if (const auto* out = variant.detail<ClusteringOutput>()) ...  // nullptr if absent
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace kernellab {

// A distinct address per section type (one program, one static library: unique).
template <class S>
const void* sectionType() {
  static const char tag = 0;
  return &tag;
}

class Sections {
 public:
  Sections() = default;
  Sections(const Sections& other) { *this = other; }
  Sections& operator=(const Sections& other) {
    if (this == &other) return *this;
    std::vector<Slot> copy;
    copy.reserve(other.slots_.size());
    for (const Slot& s : other.slots_) copy.push_back({s.type, s.value->clone()});
    slots_ = std::move(copy);
    return *this;
  }
  Sections(Sections&&) noexcept = default;
  Sections& operator=(Sections&&) noexcept = default;

  template <class S>
  const S* find() const {
    for (const Slot& s : slots_)
      if (s.type == sectionType<S>()) return &static_cast<const Typed<S>*>(s.value.get())->value;
    return nullptr;
  }
  template <class S>
  S* find() {
    return const_cast<S*>(static_cast<const Sections*>(this)->find<S>());
  }
  // The section, made with S's defaults when absent.
  template <class S>
  S& get() {
    if (S* s = find<S>()) return *s;
    return set(S{});
  }
  // The section, or S's defaults when absent.
  template <class S>
  const S& get() const {
    static const S defaults{};
    const S* s = find<S>();
    return s ? *s : defaults;
  }
  template <class S>
  S& set(S value) {
    if (S* s = find<S>()) return *s = std::move(value);
    auto typed = std::make_unique<Typed<S>>();
    typed->value = std::move(value);
    S& out = typed->value;
    slots_.push_back({sectionType<S>(), std::move(typed)});
    return out;
  }
  template <class S>
  void erase() {
    for (auto it = slots_.begin(); it != slots_.end(); ++it)
      if (it->type == sectionType<S>()) {
        slots_.erase(it);
        return;
      }
  }
  bool empty() const { return slots_.empty(); }
  size_t size() const { return slots_.size(); }
  // The type tag of the i-th section (sectionType<S>()), for checks that every section belongs
  // to the run's family.
  const void* typeAt(size_t i) const { return slots_[i].type; }

 private:
  struct Holder {
    virtual ~Holder() = default;
    virtual std::unique_ptr<Holder> clone() const = 0;
  };
  template <class S>
  struct Typed final : Holder {
    S value;
    std::unique_ptr<Holder> clone() const override { return std::make_unique<Typed>(*this); }
  };
  struct Slot {
    const void* type;
    std::unique_ptr<Holder> value;
  };
  std::vector<Slot> slots_;
};

}  // namespace kernellab
