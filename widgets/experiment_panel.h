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

class FamilyForm;

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
  // A data file the window opened: a family's form that takes it (a clustering's points) puts
  // it into the panel's request; false when none does.
  bool takeDataFile(const QString& path);
  // The view for the current family's results ("clusters"; empty: the Timing view).
  QString resultView() const;

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
  void buildFamilyPages();
  FamilyForm* form() const;                      // the current family's
  std::vector<FamilyForm*> uniqueForms() const;  // each form once, in page order
  // The request; `problem` gets what the shared request builder refused, if anything.
  kernellab::RunRequest build(QString* problem) const;
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
  // The families' pages (family_forms.def): one per form, k-means and k-centers sharing theirs.
  QStackedWidget* dataPages_ = nullptr;
  QStackedWidget* launchPages_ = nullptr;
  std::vector<std::pair<kernellab::Family, FamilyForm*>> forms_;
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
  QHash<QString, QString> sweepMemory_;  // last values typed per axis: sweepKey
  QString sweepKey(int axis) const;      // "<family>/<axis index>"
};

}  // namespace kernellab::widgets
