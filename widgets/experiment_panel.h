// SPDX-License-Identifier: MIT
// The experiment panel: kernel family, data (generated or from a file), every optimization as a
// switch with its one-line explanation, launch configuration, an optional sweep, repetitions and
// backend. It edits a kernellab::RunRequest and emits intents; it runs nothing itself.
#pragma once

#include <QHash>
#include <QSet>
#include <QString>
#include <QVector>
#include <QWidget>
#include <functional>
#include <vector>

#include "kernellab/request.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QVBoxLayout;

namespace kernellab::widgets {

struct VariantSwitch {
  QString id;           // the variant id of the family ("padded", "shared-coalesced")
  QString title;        // short label
  QString explanation;  // one line: what this switch changes
  bool cudaOnly = false;  // runs only on the CUDA backend: shown disabled when CUDA cannot run it
};
using VariantCatalog = std::function<QVector<VariantSwitch>(kernellab::Family)>;

class ExperimentPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ExperimentPanel(QWidget* parent = nullptr);

  // Where the switches come from (the app passes describeVariants). Rebuilds the switches.
  void setVariantCatalog(VariantCatalog catalog);

  void setRequest(const kernellab::RunRequest& request);
  kernellab::RunRequest request() const;

  // The sweep: one axis with comma-separated values, or none (empty vector).
  std::vector<kernellab::SweepAxis> sweepAxes() const;
  void setSweep(const QString& axis, const QString& values);
  QString sweepAxis() const;
  QString sweepValues() const;

  bool live() const;
  void setLive(bool on);
  void setRunning(bool running);
  // Cancel was pressed: the run stops after the launch in progress.
  void setCancelling();
  // Whether the CUDA backend works here (and CUDA's reason when not): CUDA-only switches are
  // disabled with the reason when it does not, or when the panel's backend is the CPU.
  void setCudaAvailability(bool usable, const QString& reason);

  // Empty when the request can be run; otherwise what to fix ("choose at least one variant").
  QString problem() const;
  // A line under the launch settings: the block shape it gives, or why it is invalid.
  void setLaunchHint(const QString& text, bool isError);

  QCheckBox* variantSwitch(const QString& id) const;
  QStringList variantIds() const;
  // Why a CUDA-only switch is disabled now (empty when it is enabled or not CUDA-only).
  QString unavailableReason(const QString& id) const;

 signals:
  void edited();
  void runRequested();
  void cancelRequested();
  void liveToggled(bool on);

 private:
  void buildFamilyPage();
  void rebuildSwitches(const std::vector<std::string>& checked);
  void updateVisibility();
  // Offers the block sizes valid for the family and tile; `keepCurrent` keeps an invalid value
  // that a loaded request brought (otherwise the nearest valid size replaces it).
  void refreshThreadsPerBlock(bool keepCurrent);
  void fillSweepAxes();
  void updateCudaOnly();
  void changed();
  kernellab::Family family() const;

  VariantCatalog catalog_;
  kernellab::RunRequest base_;   // fields the panel does not show are kept as they came
  bool loading_ = false;

  QComboBox* family_ = nullptr;
  QStackedWidget* dataPages_ = nullptr;
  // transpose
  QSpinBox* width_ = nullptr;
  QSpinBox* height_ = nullptr;
  // clustering
  QComboBox* source_ = nullptr;
  QWidget* generated_ = nullptr;
  QWidget* fromFile_ = nullptr;
  QSpinBox* n_ = nullptr;
  QSpinBox* k_ = nullptr;
  QSpinBox* d_ = nullptr;
  QComboBox* shape_ = nullptr;
  QDoubleSpinBox* radius_ = nullptr;
  QDoubleSpinBox* noise_ = nullptr;
  QLineEdit* pointsPath_ = nullptr;
  QComboBox* init_ = nullptr;
  QSpinBox* maxIter_ = nullptr;
  QComboBox* stopRule_ = nullptr;
  QDoubleSpinBox* epsilon_ = nullptr;
  QWidget* kmeansOnly_ = nullptr;
  // knn
  QSpinBox* rows_ = nullptr;
  QSpinBox* cols_ = nullptr;
  QSpinBox* components_ = nullptr;
  QSpinBox* window_ = nullptr;
  QSpinBox* knnK_ = nullptr;
  QLineEdit* imagePath_ = nullptr;
  QSpinBox* blockX_ = nullptr;
  QSpinBox* blockY_ = nullptr;
  QWidget* blockRow_ = nullptr;
  // common
  QSpinBox* seed_ = nullptr;
  QGroupBox* switchesBox_ = nullptr;
  QVBoxLayout* switchesLayout_ = nullptr;
  QVector<QCheckBox*> switches_;
  QHash<QCheckBox*, QLabel*> cudaOnlyNotes_;   // "runs only on CUDA: <why>" under such a switch
  bool cudaKnown_ = false;
  bool cudaUsable_ = false;
  QString cudaReason_;
  QLabel* noSwitches_ = nullptr;
  QComboBox* tpb_ = nullptr;
  QComboBox* tile_ = nullptr;
  QWidget* tileRow_ = nullptr;
  QLabel* launchHint_ = nullptr;
  QComboBox* sweepAxis_ = nullptr;
  QLineEdit* sweepValues_ = nullptr;
  QSpinBox* reps_ = nullptr;
  QSpinBox* warmup_ = nullptr;
  QComboBox* backend_ = nullptr;
  QCheckBox* verify_ = nullptr;
  QCheckBox* schedule_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QCheckBox* live_ = nullptr;
  QHash<int, QString> sweepMemory_;   // last values typed per axis
};

}  // namespace kernellab::widgets
