// SPDX-License-Identifier: MIT
// Test helper: every event of a worker's frame stream.
#pragma once

#include <QByteArray>
#include <QList>
#include <nlohmann/json.hpp>
#include <string>

#include "kernellab/worker_protocol.h"

namespace kltest {

struct Stream {
  QList<nlohmann::json> events;
  QList<char> encodings;
  std::string noise;
  std::string error;
  size_t pending = 0;
  // The first event of this name, or null.
  nlohmann::json first(const std::string& name) const {
    for (const auto& e : events)
      if (e.value("event", std::string()) == name) return e;
    return nullptr;
  }
  int count(const std::string& name) const {
    int n = 0;
    for (const auto& e : events) n += e.value("event", std::string()) == name;
    return n;
  }
};

inline Stream decodeStream(const QByteArray& bytes) {
  Stream s;
  kernellab::worker::FrameReader r;
  r.feed(bytes.constData(), static_cast<size_t>(bytes.size()));
  while (auto f = r.next()) {
    s.events << kernellab::worker::decodeFrame(*f);
    s.encodings << static_cast<char>(f->encoding);
  }
  s.noise = r.noise();
  s.error = r.error();
  s.pending = r.pending();
  return s;
}

}  // namespace kltest
