// SPDX-License-Identifier: MIT
// The Access tab: the access-pattern model of the shown run's kernels (variant, block and warp
// choosers; sectors and lines per global request, banks and conflicts per shared request),
// computed from the kernels' own index functions. Families without a tracer get a hint.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>
#include <QVector>
#include <optional>

#include "counters_table.h"
#include "view_page.h"

class QLabel;

namespace kernellab::widgets {
class AccessView;
class CountersTable;
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

  // A profiled run's model beside its counters (issue 13): predicted and measured sectors per
  // request and bank conflicts per variant, computed off the GUI thread (it traces a block of
  // every variant). waitForCounters returns once the newest comparison is shown.
  widgets::CountersTable* counters() const { return counters_; }
  bool waitForCounters(int timeoutMs = 300000);
  // The comparison shown for `ref` (false when the tab shows another run's, or none yet).
  bool shownCounters(const RunRef& ref, QVector<widgets::CounterComparison>* rows,
                     QStringList* notModelled) const;

 signals:
  void countersReady();

 private:
  void refresh();
  void compareCounters(const RunRef* ref);  // null: nothing to compare
  void countersDone();

  struct Compared {
    QVector<widgets::CounterComparison> rows;
    QStringList skipped;
  };

  QWidget* root_ = nullptr;
  PageHint* hint_ = nullptr;
  QLabel* source_ = nullptr;
  widgets::AccessView* view_ = nullptr;
  RunSelection selection_;
  kernellab::RunRequest panelRequest_;
  kernellab::RunRequest shown_;
  std::vector<std::string> runVariants_;
  QString runLabel_;
  widgets::CountersTable* counters_ = nullptr;
  QFutureWatcher<Compared> countersWatcher_;
  QString countersKey_;      // the run whose comparison is shown or computed
  QString countersTitle_;
  bool countersBusy_ = false;   // a comparison is computed (its result not yet taken)
  bool countersStale_ = false;  // the selection moved on while one was computed
  QString shownKey_;            // the run whose rows the table shows
  QStringList shownSkipped_;
  std::optional<RunRef> pendingCounters_;
};

}  // namespace kernellab::app
