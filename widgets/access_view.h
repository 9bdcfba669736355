// SPDX-License-Identifier: MIT
// AccessView: the access-pattern model for one family, variant, kernel, block and warp. A table
// lists the warp's requests in program order (global: sectors and lines against the ideal,
// efficiency; shared: banks and conflict degree); the selected request is drawn below; warp and
// block totals close. Computed from the family's own phase functions
// (kernellab::access::analyze) on a worker thread: a seed-size clustering trace makes its points
// first and takes seconds, and the window must not stop for it. No CUDA.
#pragma once

#include <QFutureWatcher>
#include <QPoint>
#include <QTimer>
#include <QImage>
#include <QWidget>

#include <optional>

#include "kernellab/access_model.h"
#include "kernellab/request.h"

class QLayout;
class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace kernellab::widgets {

class AccessDiagram;

class AccessView : public QWidget {
  Q_OBJECT

 public:
  explicit AccessView(QWidget* parent = nullptr);

  // The family, problem size and launch configuration to model (e.g. a result's request). The
  // variant list (the variants with a tracer) and the kernel list follow the family; the current
  // variant and kernel are kept when they still exist.
  void setRequest(const RunRequest& request);
  void setSelection(const QString& variant, QPoint block, int warp);
  // Another family with the same request otherwise (its sizes and launch), as the chooser does.
  void setFamily(Family family);
  // kmeans: "assign", "centroids", "score"; kcenters: "distance", "select" (access::tracedKernels).
  void setKernel(const QString& kernel);
  // 1 = 16 banks per half-warp (seed 000, cc 1.x); 2 and later = 32 banks per warp.
  void setComputeCapability(int major);

  // The report of the last selection that computed without error (see busy()).
  const access::WarpReport& report() const { return report_; }
  // A selection's model is being computed; reportReady follows.
  bool busy() const { return running_; }
  // Returns once no model is being computed (or after the timeout: false). For tests and exports.
  bool waitForReport(int timeoutMs = 120000);
  // Once the next model arrives, select its first wasteful request (more sectors than ideal, or a
  // bank conflict): where a run's view opens.
  void selectFirstWasteWhenReady() { selectWaste_ = true; }
  Family family() const { return request_.family; }
  QString variant() const;
  QString kernel() const;  // empty where a variant is one kernel
  QPoint block() const;
  int warp() const;
  QTableWidget* requestTable() const { return table_; }
  AccessDiagram* diagram() const { return diagram_; }
  QString summaryText() const;
  QString errorText() const;
  void selectRequest(int row);

 signals:
  void selectionChanged(const QString& variant, QPoint block, int warp);
  void familyChanged(const QString& family);
  void kernelChanged(const QString& kernel);
  // The model of the current selection is on screen (or its error is).
  void reportReady();

 public:
  // The view for reports: the description, table, diagram and summary, without the choices.
  QImage reportPicture();

 private:
  // What analyze() returned for one query, computed away from the GUI thread.
  struct Outcome {
    access::WarpReport report;
    QString error;
  };
  void recompute();
  void startJob(const access::AccessQuery& q);
  void jobDone();
  void applyReport();
  void describeReport();
  void fillTable();
  void fillChoosers();

  RunRequest request_;
  bool haveRequest_ = false;
  access::WarpReport report_;
  QFutureWatcher<Outcome> watcher_;
  bool running_ = false;
  std::optional<access::AccessQuery> pending_;  // the newest selection, while a job runs
  bool selectWaste_ = false;
  QTimer busyNote_;  // "Computing..." only for jobs slow enough to notice
  QComboBox* family_ = nullptr;
  QComboBox* variant_ = nullptr;
  QLabel* kernelLabel_ = nullptr;
  QComboBox* kernel_ = nullptr;
  QSpinBox* blockX_ = nullptr;
  QSpinBox* blockY_ = nullptr;
  QSpinBox* warp_ = nullptr;
  QComboBox* banks_ = nullptr;
  QLabel* description_ = nullptr;
  QLabel* error_ = nullptr;
  QTableWidget* table_ = nullptr;
  AccessDiagram* diagram_ = nullptr;
  QLabel* summary_ = nullptr;
  QLayout* controlsRow_ = nullptr;
};

}  // namespace kernellab::widgets
