// SPDX-License-Identifier: MIT
// ScheduleView: the block-schedule model, Cartesian and diagonal blockIdx side by side. Each side
// shows the matrix's tiles coloured by dispatch order with the current wave outlined, and the
// partition load of that wave; one scrubber (and a play button) steps through the waves.
// Next to the partition toggle it says that partition camping only mattered before cc 2.0.
#pragma once

#include <QVector>
#include <QImage>
#include <QWidget>

#include "kernellab/schedule_model.h"

class QLayout;
class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace kernellab::widgets {

class TileGridView;

class ScheduleView : public QWidget {
  Q_OBJECT

 public:
  explicit ScheduleView(QWidget* parent = nullptr);

  // Simulates both mappings of this configuration (its own `mapping` is ignored).
  void setConfig(const schedule::Config& config);
  // Or shows two models computed elsewhere (same grid and residency).
  void setModels(const schedule::Model& cartesian, const schedule::Model& diagonal);

  int wave() const { return wave_; }
  int waveCount() const;
  bool isPlaying() const;
  const schedule::Model& model(schedule::Mapping m) const;
  TileGridView* grid(schedule::Mapping m) const;
  // The histogram bars shown for the current wave: KiB written (or read) per partition.
  QVector<double> writtenKiB(schedule::Mapping m) const;
  QVector<double> readKiB(schedule::Mapping m) const;
  QString noteText() const;

 public slots:
  void setWave(int wave);
  void play();
  void pause();
  void setHashedPartitions(bool hashed);

 signals:
  void waveChanged(int wave);
  void partitionMappingChanged(bool hashed);

 public:
  // The view for reports: without the matrix choice, the partition toggle and the wave player.
  QImage reportPicture();

 private:
  struct Side {
    schedule::Model model;
    QLabel* title = nullptr;
    TileGridView* grid = nullptr;
    QCustomPlot* histogram = nullptr;
    QLabel* stats = nullptr;
  };
  QWidget* buildSide(Side& side, const QString& title);
  void refresh();
  void refreshHistogram(Side& side, double maxKiB);
  Side& side(schedule::Mapping m);
  const Side& side(schedule::Mapping m) const;

  schedule::Config config_;
  bool haveConfig_ = false;
  Side cartesian_;
  Side diagonal_;
  int wave_ = 0;
  QLabel* header_ = nullptr;
  QLabel* note_ = nullptr;
  QComboBox* matrix_ = nullptr;
  QCheckBox* hashed_ = nullptr;
  QToolButton* play_ = nullptr;
  QSlider* slider_ = nullptr;
  QLayout* controlsRow_ = nullptr;
  QLayout* scrubRow_ = nullptr;
  QLabel* waveLabel_ = nullptr;
  QTimer* timer_ = nullptr;
};

}  // namespace kernellab::widgets
