// SPDX-License-Identifier: MIT
// AccessView: the access-pattern model for one family, variant, kernel, block and warp. A table
// lists the warp's requests in program order (global: sectors and lines against the ideal,
// efficiency; shared: banks and conflict degree); the selected request is drawn below; warp and
// block totals close. Computed from the family's own phase functions
// (kernellab::access::analyze); no CUDA.
#pragma once

#include <QPoint>
#include <QWidget>

#include "kernellab/access_model.h"
#include "kernellab/request.h"

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

  const access::WarpReport& report() const { return report_; }
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

 private:
  void recompute();
  void fillTable();
  void fillChoosers();

  RunRequest request_;
  bool haveRequest_ = false;
  access::WarpReport report_;
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
};

}  // namespace kernellab::widgets
