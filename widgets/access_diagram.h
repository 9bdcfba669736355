// SPDX-License-Identifier: MIT
// One warp request drawn: for global memory, the lanes above the 128-byte lines they touch, each
// line split into its four 32-byte sectors and shaded by how many of the sector's bytes the warp
// uses; for shared memory, one column per bank with a box per distinct word the bank must serve
// (the column height is the conflict degree; lanes reading one word share its box).
#pragma once

#include <QVector>
#include <QWidget>
#include <optional>

#include "kernellab/access_model.h"

namespace kernellab::widgets {

class AccessDiagram : public QWidget {
  Q_OBJECT

 public:
  explicit AccessDiagram(QWidget* parent = nullptr);

  void setRequest(const access::Request& request, const access::MemoryModel& memory,
                  int elementBytes);
  void clear();

  // Shared requests: distinct words per bank (per half-warp group on cc 1.x, the larger).
  QVector<int> bankHeights() const;
  // Global requests: touched lines and, per touched sector, the bytes used.
  int lineCount() const;
  QVector<int> sectorUsedBytes() const;

  QSize sizeHint() const override { return {640, 220}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  void paintGlobal(class QPainter& p);
  void paintShared(class QPainter& p);

  std::optional<access::Request> request_;
  access::MemoryModel memory_;
  int elementBytes_ = 4;
};

}  // namespace kernellab::widgets
