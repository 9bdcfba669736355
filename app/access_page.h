// SPDX-License-Identifier: MIT
// The Access tab: the access-pattern model of the shown run's kernels (variant, block and warp
// choosers; sectors and lines per global request, banks and conflicts per shared request),
// computed from the kernels' own index functions. Families without a tracer get a hint.
#pragma once

#include <QObject>

#include "view_page.h"

class QLabel;

namespace kernellab::widgets {
class AccessView;
}

namespace kernellab::app {

class PageHint;

class AccessPage : public QObject, public ViewPage {
  Q_OBJECT
 public:
  explicit AccessPage(QWidget* parent);

  QString id() const override { return QStringLiteral("access"); }
  QString title() const override { return tr("Access"); }
  QWidget* widget() override;
  void showRuns(const RunSelection& selection) override;
  void showRequest(const kernellab::RunRequest& request) override;
  QVector<widgets::ChartSpec> charts() const override;
  QImage snapshot() override;
  QVector<ViewPicture> pictures() override;
  QString chartRun(const widgets::ChartSpec& chart) const override;

  widgets::AccessView* view() const { return view_; }
  PageHint* hint() const { return hint_; }
  // The run the model follows ("#3"), empty when it shows the panel's settings or a preset.
  QString runLabel() const { return runLabel_; }

  // Whether the access model has a tracer for this family in this build.
  static bool traced(kernellab::Family family);

 private:
  void refresh();

  QWidget* root_ = nullptr;
  PageHint* hint_ = nullptr;
  QLabel* source_ = nullptr;
  widgets::AccessView* view_ = nullptr;
  RunSelection selection_;
  kernellab::RunRequest panelRequest_;
  kernellab::RunRequest shown_;
  std::vector<std::string> runVariants_;
  QString runLabel_;
};

}  // namespace kernellab::app
