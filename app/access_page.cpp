// SPDX-License-Identifier: MIT
// The Access tab.
#include "access_page.h"

#include <QEventLoop>
#include <QHash>
#include <QLabel>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "access_view.h"
#include "counters_table.h"
#include "kernellab/access_model.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"
#include "kernellab/transpose.h"
#include "model_charts.h"
#include "model_vs_counters.h"
#include "page_hint.h"
#include "page_presets.h"
#include "results_validation.h"
#include "run_text.h"

namespace kernellab::app {

bool AccessPage::traced(Family family) {
  // The family's descriptor says whether its folder has a tracer (family.h).
  const FamilyDescriptor* f = findFamily(family);
  return f && f->traceBlock && !f->variants().empty();
}

AccessPage::AccessPage(QWidget* parent) {
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(4, 4, 4, 4);
  hint_ = new PageHint(content);
  layout->addWidget(hint_, 0, Qt::AlignTop);
  source_ = new QLabel(content);
  source_->setWordWrap(true);
  layout->addWidget(source_);
  // The model above, a profiled run's counters below, the border between them draggable; the
  // model keeps the height its lane diagram and summaries need (they overlapped when squeezed).
  auto* split = new QSplitter(Qt::Vertical, content);
  split->setChildrenCollapsible(false);
  view_ = new widgets::AccessView(split);
  view_->setMinimumHeight(430);
  counters_ = new widgets::CountersTable(split);
  split->addWidget(view_);
  split->addWidget(counters_);
  counters_->setMinimumHeight(180);  // its title and a few rows
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  counters_->hide();
  layout->addWidget(split, 1);
  connect(&countersWatcher_, &QFutureWatcher<Compared>::finished, this, &AccessPage::countersDone);
  refresh();
  root_ = makePageRoot(content, parent);
}

QWidget* AccessPage::widget() { return root_; }

void AccessPage::showRuns(const RunSelection& selection) {
  selection_ = selection;
  refresh();
}

void AccessPage::showRequest(const RunRequest& request) {
  panelRequest_ = request;
  if (!selection_.pick([](const RunResult& r) { return traced(r.request.family); })) refresh();
}

void AccessPage::refresh() {
  const RunRef* ref = selection_.pick([](const RunResult& r) { return traced(r.request.family); });
  // Tracing reads the files a run's request names (points, centers, image): only those the
  // panel names too (a results file is data, never a command).
  QString refused;
  if (ref) refused = namedFilesRefusal(ref->run().request, panelRequest_);
  const QString refusedRun = ref && !refused.isEmpty() ? ref->label : QString();
  if (!refused.isEmpty()) ref = nullptr;
  RunRequest request;
  const QString previousRun = runLabel_;
  runVariants_.clear();
  runLabel_.clear();
  if (ref) {
    const RunResult& run = ref->run();
    request = run.request;
    runLabel_ = ref->label;
    for (const VariantResult& v : run.variants) runVariants_.push_back(v.variant);
    hint_->clearHint();
    source_->setText(tr("Access pattern of run %1 (%2; it ran %3 on %4), computed from the kernels' own index "
                        "functions: addresses, sectors and banks are the model's, not counters.")
                         .arg(ref->label, requestSummary(request))
                         .arg(QString::fromStdString([&] {
                                std::string ids;
                                for (const std::string& v : runVariants_) ids += (ids.empty() ? "" : ", ") + v;
                                return ids;
                              }()))
                         .arg(deviceShort(run)));
  } else {
    // The panel's own files too must be regular files: a FIFO would hold the tracer forever.
    const bool panelFits =
        traced(panelRequest_.family) && namedFilesRefusal(panelRequest_, panelRequest_).isEmpty();
    request = panelFits ? panelRequest_ : transposePreset();
    QString text;
    if (const RunRef* primary = selection_.primaryRun())
      text = tr("The selected run %1 is a %2 run: the access model has no tracer for its kernels "
                "(tracers plug in through access_families.cpp). Select another run to see its "
                "kernels' sectors and banks.")
                 .arg(primary->label, familyTitle(primary->run().request.family));
    else
      text = tr("No run selected: select a run in the Runs list, or run one.");
    if (!refused.isEmpty())
      text = tr("The access model of run %1 is not shown: %2.").arg(refusedRun, refused);
    text += QLatin1Char(' ') + (panelFits ? tr("Shown meanwhile: the experiment panel's settings (not run yet).")
                                          : tr("Shown meanwhile: the transpose paper's 2048 x 2048 matrix."));
    source_->setText(tr("Access pattern of %1 (not a run).").arg(requestSummary(request)));
    if (panelFits)  // the model already shows the panel's settings: offer to run exactly those
      hint_->showHint(text, {{tr("Run these settings"), tr("Run the experiment panel's settings now"),
                              [this] {
                                if (host()) host()->usePreset(panelRequest_, true);
                              }}});
    else
      hint_->showHint(text, {{tr("Set up a transpose run"), tr("Matrix transpose, every variant, 2048 x 2048"),
                              [this] {
                                if (host()) host()->usePreset(transposePreset(), false);
                              }},
                             {tr("Run it"), tr("Run every transpose variant on 2048 x 2048 now"), [this] {
                                if (host()) host()->usePreset(transposePreset(), true);
                              }}});
  }
  compareCounters(ref);
  shown_ = request;
  view_->setRequest(request);
  // A run's device sets the bank model (16 banks per half-warp on cc 1.x).
  if (ref && ref->run().device.backend == "cuda") view_->setComputeCapability(ref->run().device.ccMajor);
  // The first variant shown of a run: the one it ran first that is not the plain copy.
  const std::string current = view_->variant().toStdString();
  if (runLabel_ != previousRun && !runVariants_.empty() &&
      (std::find(runVariants_.begin(), runVariants_.end(), current) == runVariants_.end() || current == "copy")) {
    auto pick = std::find_if(runVariants_.begin(), runVariants_.end(), [](const std::string& v) { return v != "copy"; });
    if (pick == runVariants_.end()) pick = runVariants_.begin();
    // Open on the first request that wastes (more sectors than needed, or a bank conflict).
    view_->selectFirstWasteWhenReady();
    view_->setSelection(QString::fromStdString(*pick), view_->block(), view_->warp());
  }
}

void AccessPage::compareCounters(const RunRef* ref) {
  const bool profiled = ref && kernellab::hasCounters(ref->run());
  const QString key = profiled ? ref->entryId + QLatin1Char('/') + QString::number(ref->index) : QString();
  if (key == countersKey_) return;  // already shown, or being computed
  countersKey_ = key;
  shownKey_.clear();
  counters_->setToolTip(QString());
  // Only a profiled run has a table to show: otherwise the model takes the whole page.
  counters_->setVisible(profiled);
  if (!profiled) {
    pendingCounters_.reset();
    countersStale_ = countersBusy_;
    counters_->setRows(QString(), {});
    return;
  }
  countersTitle_ = countersTitle(ref->label, ref->run(), tr("the access model's sectors per request and bank conflicts"));
  counters_->setRows(QString(), {},
                     tr("Model beside measurement, run %1: tracing a block of every profiled variant to "
                        "set the access model beside the GPU's counters…")
                         .arg(ref->label));
  if (countersBusy_) {
    pendingCounters_ = *ref;  // only the newest run matters once the running one is done
    countersStale_ = true;
    return;
  }
  const RunRef copy = *ref;  // the file stays alive (shared) while the worker reads it
  countersBusy_ = true;
  countersWatcher_.setFuture(QtConcurrent::run([copy] {
    Compared c;
    c.rows = accessRows(copy.run(), &c.skipped);
    return c;
  }));
}

void AccessPage::countersDone() {
  countersBusy_ = false;
  if (countersStale_) {
    countersStale_ = false;
    if (pendingCounters_) {
      const RunRef next = *pendingCounters_;
      pendingCounters_.reset();
      countersKey_.clear();
      compareCounters(&next);
      return;
    }
    emit countersReady();
    return;
  }
  const Compared c = countersWatcher_.result();
  shownKey_ = countersKey_;
  shownSkipped_ = c.skipped;
  QString title = countersTitle_;
  // The reasons can be long (one per kernel a size or an engine keeps from the lens): counted
  // here, spelled out in the line's tooltip.
  if (!c.skipped.isEmpty())
    title += QLatin1Char(' ') + tr("Not modelled: %n kernel(s) or variant(s) (hover here for why).", nullptr,
                                   static_cast<int>(c.skipped.size()));
  counters_->setToolTip(c.skipped.join(QLatin1Char('\n')));
  counters_->setRows(title, c.rows,
                     tr("The run carries the GPU's counters, but none of its variants has an access "
                        "model to set beside them. %1")
                         .arg(c.skipped.join(QStringLiteral("; "))));
  emit countersReady();
}

bool AccessPage::shownCounters(const RunRef& ref, QVector<widgets::CounterComparison>* rows,
                               QStringList* notModelled) const {
  const QString key = ref.entryId + QLatin1Char('/') + QString::number(ref.index);
  if (shownKey_.isEmpty() || key != shownKey_) return false;
  *rows = counters_->rows();
  *notModelled = shownSkipped_;
  return true;
}

bool AccessPage::waitForCounters(int timeoutMs) {
  if (!countersBusy_) return true;
  QEventLoop loop;
  connect(this, &AccessPage::countersReady, &loop, [&loop, this] {
    if (!countersBusy_) loop.quit();
  });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
  return !countersBusy_;
}

QVector<widgets::ChartSpec> AccessPage::charts() const {
  if (runLabel_.isEmpty()) return {};
  view_->waitForReport();  // the charts take its block, warp and bank model
  QVector<access::WarpReport> reports;
  for (const std::string& v : runVariants_) {
    access::AccessQuery q;
    q.request = shown_;
    q.variant = v;
    q.block = {view_->block().x(), view_->block().y()};
    q.warp = view_->warp();
    q.ccMajor = view_->report().memory.halfWarpBanks ? 1 : 9;
    try {
      reports << access::analyze(q);
    } catch (const std::exception&) {
      // A variant this block or warp does not exist for: left out of the chart.
    }
  }
  return accessCharts(reports, tr("run %1, %2").arg(runLabel_, requestSummary(shown_)));
}

QImage AccessPage::snapshot() {
  if (runLabel_.isEmpty()) return {};
  return view_->reportPicture();
}

QString AccessPage::chartRun(const widgets::ChartSpec&) const {
  const RunRef* ref = selection_.pick([](const RunResult& r) { return traced(r.request.family); });
  return ref ? runStamp(ref->label, ref->run()) : QString();
}

QVector<ViewPicture> AccessPage::pictures() {
  const RunRef* ref = selection_.pick([](const RunResult& r) { return traced(r.request.family); });
  const QImage image = snapshot();
  if (!ref || image.isNull()) return {};
  return {ViewPicture{QString(), tr("Access pattern (model) of %1").arg(runStamp(ref->label, ref->run())), image}};
}

}  // namespace kernellab::app
