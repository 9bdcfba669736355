// SPDX-License-Identifier: MIT
// GanttView: recorded block schedules (VariantResult::schedule: %smid and %globaltimer per block)
// as one lane per SM and one bar per block, two runs side by side on the same time scale (e.g.
// padded vs diagonal). Blocks are coloured by their tile's position or by run; each run states
// how many blocks ran at once and the measured overhead of recording.
#pragma once

#include <QString>
#include <QVector>
#include <QImage>
#include <QWidget>
#include <vector>

#include "kernellab/result.h"

class QLayout;
class QComboBox;
class QCustomPlot;
class QLabel;

namespace kernellab::widgets {

struct GanttRun {
  QString title;                         // "padded (Cartesian)", "diagonal"
  std::vector<BlockRecord> records;
  int gridX = 0;                         // tile grid, for colours by position
  int gridY = 0;
  bool overheadKnown = false;
  double overheadPct = 0;                // recorded vs uninstrumented median
  bool simulated = false;                // from the schedule model, not measured
};

class GanttView : public QWidget {
  Q_OBJECT

 public:
  enum class ColorBy { TilePosition, Run };

  explicit GanttView(QWidget* parent = nullptr);

  // One or two runs (more are laid out side by side too). Runs without records show a message.
  void setRuns(const QVector<GanttRun>& runs);
  void setColorBy(ColorBy mode);
  ColorBy colorBy() const { return colorBy_; }
  // Lanes shown: SMs 0..count-1 (0 = every SM). With a few SMs each block of a lane is visible;
  // with all 132 of an H200 the lanes show the overall order of the blocks.
  void setSmsShown(int count);
  int smsShown() const { return smsShown_; }

  // The recorded variants of a run, side by side: padded and diagonal when both were recorded
  // (the Cartesian vs diagonal comparison), otherwise the first two with a schedule.
  void setResult(const RunResult& run);

  // A run from a result's variant: its schedule, its first kernel's grid, its overhead.
  static GanttRun runFromVariant(const VariantResult& variant, const QString& title = {});

  int runCount() const { return runs_.size(); }
  QCustomPlot* plot(int run) const;
  QString caption(int run) const;
  QColor blockColor(int run, const BlockRecord& record) const;
  // Time axis origin of a run: its earliest block start (ns).
  uint64_t origin(int run) const;

 signals:
  void colorByChanged(ColorBy mode);

 public:
  // The view for reports: without its colour and lane choices (the legend stays).
  QImage reportPicture();

 private:
  void rebuild();

  QVector<GanttRun> runs_;
  ColorBy colorBy_ = ColorBy::TilePosition;
  int smsShown_ = 0;
  QComboBox* colorCombo_ = nullptr;
  QComboBox* smsCombo_ = nullptr;
  QLabel* legend_ = nullptr;
  QWidget* plotsBox_ = nullptr;
  QVector<QCustomPlot*> plots_;
  QVector<QLabel*> captions_;
  QLayout* topRow_ = nullptr;
};

}  // namespace kernellab::widgets
