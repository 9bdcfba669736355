// SPDX-License-Identifier: MIT
// The KNN variants side by side: kernel time (median with min-max whiskers) and the occupancy
// story (resident blocks per SM next to the shared memory each block asks for).
#pragma once

#include <QString>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPBarsGroup;

namespace kernellab::widgets {

struct KnnVariantBar {
  QString id;                 // "shared-row"
  QString title;              // "One row at a time"
  bool ran = true;            // false: refused or failed; `note` says why
  QString note;
  double medianMs = 0;
  double minMs = 0;
  double maxMs = 0;
  double sharedBytes = 0;     // dynamic shared memory per block
  int blocksPerSM = -1;       // resident blocks per SM (CUDA occupancy API); -1: unknown (CPU)
  int registers = -1;         // per thread; -1: unknown
  bool verified = true;
};

class KnnVariantCharts : public QWidget {
  Q_OBJECT
 public:
  explicit KnnVariantCharts(QWidget* parent = nullptr);

  // `clock` names what timed the kernels ("cuda-events", "cpu-steady-clock").
  void setBars(const QVector<KnnVariantBar>& bars, const QString& clock);
  const QVector<KnnVariantBar>& bars() const { return bars_; }

  QCustomPlot* timePlot() const { return time_; }
  QCustomPlot* occupancyPlot() const { return occupancy_; }

 private:
  void rebuild();

  QCustomPlot* time_;
  QCustomPlot* occupancy_;
  QCPBarsGroup* group_;  // blocks and shared memory side by side per variant
  QVector<KnnVariantBar> bars_;
  QString clock_;
};

}  // namespace kernellab::widgets
