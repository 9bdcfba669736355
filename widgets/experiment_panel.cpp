// SPDX-License-Identifier: MIT
// The experiment panel.
#include "experiment_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>

#include "family_form.h"
#include "kernellab/errors.h"
#include "kernellab/family.h"

namespace kernellab::widgets {
namespace {

using kernellab::Family;

struct AxisChoice {
  QString id;
  QString title;
  QString defaults;
};

// The family's sweep axes (its descriptor's, with its parameters' titles) and their defaults.
QVector<AxisChoice> axesFor(Family f) {
  QVector<AxisChoice> out;
  const FamilyDescriptor* d = findFamily(f);
  if (!d) return out;
  for (const SweepAxisChoice& a : d->sweepAxes) {
    const FamilyParameter* p = d->parameter(a.name);
    out.push_back({QString::fromStdString(a.name), QString::fromStdString(p ? p->title : a.name),
                   QString::fromStdString(a.defaults)});
  }
  return out;
}

QString familyKey(Family f) { return QString::fromLatin1(f.id()); }

QSpinBox* spin(QWidget* parent, int lo, int hi) { return makeSpinBox(parent, lo, hi); }

constexpr int kThreadsPerBlockChoices[] = {16, 32, 64, 128, 256, 512, 1024};

// Scrolling the panel must not change the value of a field that passes under the mouse: a combo
// box or spin box takes the wheel only once it has the focus (a click or Tab). The event is left
// unaccepted, so Qt hands it on to the scroll area.
class WheelOnlyWhenFocused : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Wheel) {
      auto* w = qobject_cast<QWidget*>(watched);
      if (w && !w->hasFocus()) {
        event->ignore();
        return true;
      }
    }
    return QObject::eventFilter(watched, event);
  }
};

QLabel* explanationLabel(const QString& text, QWidget* parent) {
  auto* l = new QLabel(text, parent);
  l->setWordWrap(true);
  l->setContentsMargins(22, 0, 0, 4);
  l->setStyleSheet(QStringLiteral("color: #5a5a5a; font-size: 9pt;"));
  return l;
}

}  // namespace

ExperimentPanel::ExperimentPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);

  auto* top = new QFormLayout;
  family_ = new QComboBox(this);
  for (const FamilyDescriptor* f : families())
    family_->addItem(QString::fromStdString(f->title), familyKey(f->family));
  family_->setToolTip(tr("The kernel family to run"));
  top->addRow(tr("Kernel family"), family_);
  layout->addLayout(top);

  buildFamilyPages();
  layout->addWidget(dataPages_->parentWidget());

  switchesBox_ = new QGroupBox(tr("Optimizations (variants to run)"), this);
  switchesLayout_ = new QVBoxLayout(switchesBox_);
  switchesLayout_->setSpacing(1);
  noSwitches_ = new QLabel(switchesBox_);
  noSwitches_->setWordWrap(true);
  noSwitches_->setStyleSheet(QStringLiteral("color: #8a4b00;"));
  switchesLayout_->addWidget(noSwitches_);
  layout->addWidget(switchesBox_);

  auto* launchBox = new QGroupBox(tr("Launch"), this);
  // The wrapping hint sits under the form, not in it: a form with a word-wrapped row takes its
  // height from a height-for-width cache that missed rows shown again (the Tile row came back
  // with zero height after KNN -> k-means -> transpose).
  auto* launchColumn = new QVBoxLayout(launchBox);
  auto* launch = new QFormLayout;
  launchColumn->addLayout(launch);
  tpb_ = new QComboBox(launchBox);
  for (int t : kThreadsPerBlockChoices) tpb_->addItem(QString::number(t), t);
  tpb_->setToolTip(
      tr("Threads per block (only the block sizes the family's launch takes are "
         "offered: the transpose's must divide its tile into whole rows)"));
  launch->addRow(tr("Threads per block"), tpb_);
  // The family's own launch fields (the transpose's tile, KNN's block shape), from its form.
  launchPages_ = new QStackedWidget(launchBox);
  launchColumn->addWidget(launchPages_);
  for (FamilyForm* form : uniqueForms()) {
    QWidget* fields = form->launchFields();
    launchPages_->addWidget(fields ? fields : new QWidget(launchPages_));
  }
  launchHint_ = new QLabel(launchBox);
  launchHint_->setWordWrap(true);
  launchColumn->addWidget(launchHint_);
  layout->addWidget(launchBox);

  auto* sweepBox = new QGroupBox(tr("Sweep"), this);
  auto* sweep = new QFormLayout(sweepBox);
  sweepAxis_ = new QComboBox(sweepBox);
  sweepAxis_->setToolTip(tr("Run once per value and compare the runs (lines and grouped bars)"));
  sweepValues_ = new QLineEdit(sweepBox);
  sweepValues_->setPlaceholderText(tr("comma-separated values"));
  sweep->addRow(tr("Vary"), sweepAxis_);
  sweep->addRow(tr("Values"), sweepValues_);
  layout->addWidget(sweepBox);

  auto* timingBox = new QGroupBox(tr("Timing and checks"), this);
  auto* timing = new QFormLayout(timingBox);
  reps_ = spin(timingBox, 1, 100000);
  reps_->setToolTip(tr("Timed repetitions after warm-up: the charts show their median, min and max"));
  warmup_ = spin(timingBox, 0, 1000);
  backend_ = new QComboBox(timingBox);
  backend_->addItem(tr("Auto (GPU when usable)"), int(BackendChoice::Auto));
  backend_->addItem(tr("CPU"), int(BackendChoice::Cpu));
  backend_->addItem(tr("CUDA"), int(BackendChoice::Cuda));
  verify_ = new QCheckBox(tr("Verify every variant against the CPU reference"), timingBox);
  schedule_ = new QCheckBox(tr("Record block schedule (%smid, %globaltimer)"), timingBox);
  timing->addRow(tr("Repetitions"), reps_);
  timing->addRow(tr("Warm-up runs"), warmup_);
  timing->addRow(tr("Backend"), backend_);
  timing->addRow(verify_);
  timing->addRow(schedule_);
  layout->addWidget(timingBox);

  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton(tr("Run"), this);
  run_->setDefault(true);
  run_->setToolTip(tr("Run the experiment (Ctrl+R)"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setToolTip(tr("Stop after the launch in progress (Esc)"));
  cancel_->setEnabled(false);
  live_ = new QCheckBox(tr("Live"), this);
  live_->setToolTip(tr("Re-run at once whenever a setting changes"));
  buttons->addWidget(run_, 1);
  buttons->addWidget(cancel_);
  buttons->addWidget(live_);
  layout->addLayout(buttons);
  layout->addStretch(1);

  connect(run_, &QPushButton::clicked, this, &ExperimentPanel::runRequested);
  connect(cancel_, &QPushButton::clicked, this, &ExperimentPanel::cancelRequested);
  connect(live_, &QCheckBox::toggled, this, &ExperimentPanel::liveToggled);
  connect(family_, &QComboBox::currentIndexChanged, this, [this] {
    if (loading_) return;
    rebuildSwitches({});
    fillSweepAxes();
    updateVisibility();
    changed();
  });
  connect(sweepAxis_, &QComboBox::currentIndexChanged, this, [this] {
    if (loading_) return;
    const int i = sweepAxis_->currentIndex();
    const auto axes = axesFor(family());
    if (i > 0 && i - 1 < axes.size())
      sweepValues_->setText(sweepMemory_.value(sweepKey(i), axes[i - 1].defaults));
    sweepValues_->setEnabled(i > 0);
    changed();
  });
  connect(sweepValues_, &QLineEdit::textEdited, this, [this] {
    sweepMemory_[sweepKey(sweepAxis_->currentIndex())] = sweepValues_->text();
    changed();
  });
  for (QSpinBox* s : {seed_, reps_, warmup_})
    connect(s, &QSpinBox::valueChanged, this, &ExperimentPanel::changed);
  for (QComboBox* c : {tpb_, backend_})
    connect(c, &QComboBox::currentIndexChanged, this, [this] {
      updateVisibility();
      changed();
    });
  for (FamilyForm* form : uniqueForms()) {
    connect(form, &FamilyForm::edited, this, [this] {
      updateVisibility();
      changed();
    });
    connect(form, &FamilyForm::launchChanged, this, [this] { refreshThreadsPerBlock(loading_); });
  }
  connect(verify_, &QCheckBox::toggled, this, &ExperimentPanel::changed);
  connect(schedule_, &QCheckBox::toggled, this, [this](bool on) {
    schedule_->setProperty("wanted", on);
    changed();
  });

  auto* wheelGuard = new WheelOnlyWhenFocused(this);
  for (QWidget* field : findChildren<QWidget*>())
    if (qobject_cast<QComboBox*>(field) || qobject_cast<QAbstractSpinBox*>(field)) {
      field->setFocusPolicy(Qt::StrongFocus);  // not Qt::WheelFocus: the wheel gives no focus
      field->installEventFilter(wheelGuard);
    }

  setRequest(kernellab::RunRequest{});
}

void ExperimentPanel::buildFamilyPages() {
  auto* box = new QGroupBox(tr("Data"), this);
  auto* boxLayout = new QVBoxLayout(box);
  dataPages_ = new QStackedWidget(box);
  boxLayout->addWidget(dataPages_);
  // One page per registered form (family_forms.def; a form may serve several families), the
  // generic form for a family without one.
  for (const FamilyDescriptor* d : families()) {
    const FamilyFormEntry* entry = familyFormFor(d->family);
    FamilyForm* form = nullptr;
    for (const auto& [family, made] : forms_)
      if (entry && std::find(entry->families.begin(), entry->families.end(), family) !=
                       entry->families.end())
        form = made;
    if (!form) {
      form = entry ? entry->make(dataPages_) : makeGenericForm(d->family, dataPages_);
      dataPages_->addWidget(form);
    }
    forms_.push_back({d->family, form});
  }

  auto* seedForm = new QFormLayout;
  seed_ = spin(box, 0, 2147483647);
  seed_->setToolTip(tr("Seed of the generated data: the same seed gives the same data everywhere"));
  seedForm->addRow(tr("Seed"), seed_);
  boxLayout->addLayout(seedForm);
}

FamilyForm* ExperimentPanel::form() const {
  const Family f = family();
  for (const auto& [family, form] : forms_)
    if (family == f) return form;
  return forms_.empty() ? nullptr : forms_.front().second;
}

std::vector<FamilyForm*> ExperimentPanel::uniqueForms() const {
  std::vector<FamilyForm*> out;
  for (const auto& [family, form] : forms_)
    if (std::find(out.begin(), out.end(), form) == out.end()) out.push_back(form);
  return out;
}

void ExperimentPanel::setVariantCatalog(VariantCatalog catalog) {
  catalog_ = std::move(catalog);
  rebuildSwitches(base_.variants);
}

Family ExperimentPanel::family() const {
  return familyFromString(family_->currentData().toString().toStdString()).value_or(Family());
}

QString ExperimentPanel::sweepKey(int axis) const {
  return familyKey(family()) + QLatin1Char('/') + QString::number(axis);
}

void ExperimentPanel::rebuildSwitches(const std::vector<std::string>& checked) {
  for (QCheckBox* c : switches_) c->parentWidget()->deleteLater();
  switches_.clear();
  cudaOnlyNotes_.clear();
  const QVector<VariantSwitch> list = catalog_ ? catalog_(family()) : QVector<VariantSwitch>{};
  const bool all = checked.empty() ||
                   std::find(checked.begin(), checked.end(), std::string("all")) != checked.end();
  for (const VariantSwitch& v : list) {
    auto* holder = new QWidget(switchesBox_);
    auto* hl = new QVBoxLayout(holder);
    hl->setContentsMargins(0, 0, 0, 0);
    hl->setSpacing(0);
    auto* box = new QCheckBox(v.title, holder);
    box->setObjectName(v.id);
    box->setProperty("variantId", v.id);
    box->setToolTip(QStringLiteral("%1 (%2)").arg(v.explanation, v.id));
    box->setChecked(all || std::find(checked.begin(), checked.end(), v.id.toStdString()) != checked.end());
    box->setProperty("wanted", box->isChecked());
    hl->addWidget(box);
    hl->addWidget(explanationLabel(v.explanation, holder));
    if (v.cudaOnly) {
      auto* note = explanationLabel(QString(), holder);
      note->setStyleSheet(QStringLiteral("color: #8a4b00; font-size: 9pt;"));
      note->hide();
      hl->addWidget(note);
      cudaOnlyNotes_.insert(box, note);
    }
    switchesLayout_->addWidget(holder);
    switches_.push_back(box);
    connect(box, &QCheckBox::toggled, this, [this, box](bool on) {
      if (box->isEnabled()) box->setProperty("wanted", on);
      changed();
    });
  }
  updateCudaOnly();
  noSwitches_->setText(tr("This build has no %1 kernels yet: running it reports that.")
                           .arg(family_->currentText()));
  noSwitches_->setVisible(list.isEmpty());
}

void ExperimentPanel::fillSweepAxes() {
  const QSignalBlocker block(sweepAxis_);
  sweepAxis_->clear();
  sweepAxis_->addItem(tr("Nothing (one run)"));
  for (const AxisChoice& a : axesFor(family())) sweepAxis_->addItem(a.title, a.id);
  sweepValues_->clear();
  sweepValues_->setEnabled(false);
}

void ExperimentPanel::updateVisibility() {
  const Family f = family();
  FamilyForm* current = form();
  if (current) current->setFamily(f);
  const auto pages = uniqueForms();
  const int page = static_cast<int>(std::find(pages.begin(), pages.end(), current) - pages.begin());
  dataPages_->setCurrentIndex(page);
  launchPages_->setCurrentIndex(page);
  // A stacked widget is as tall as its tallest page: let only the shown page take room.
  for (QStackedWidget* stack : {dataPages_, launchPages_}) {
    for (int i = 0; i < stack->count(); ++i)
      stack->widget(i)->setSizePolicy(QSizePolicy::Preferred,
                                      i == page ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    stack->adjustSize();
  }
  refreshThreadsPerBlock(loading_);
  // A family whose variants record no block schedule (KNN): say so instead of failing.
  const FamilyDescriptor* d = findFamily(f);
  const bool records = d && d->anyVariant(&VariantDescription::recordsSchedule);
  schedule_->setEnabled(records);
  schedule_->setToolTip(
      !records ? tr("%1 records no block schedules (its variants have no recording instance).")
                     .arg(family_->currentText())
               : tr("Every block's SM and start/end time, for the Schedule view's Gantt chart. "
                    "Recorded on a CUDA GPU only (the CPU backend has no SMs); the overhead of "
                    "recording is measured against the uninstrumented kernel."));
  {
    const QSignalBlocker block(schedule_);
    schedule_->setChecked(records && schedule_->property("wanted").toBool());
  }
  updateCudaOnly();
}

void ExperimentPanel::refreshThreadsPerBlock(bool keepCurrent) {
  const int current = tpb_->currentData().toInt();
  FamilyForm* f = form();
  auto valid = [&](int tpb) { return !f || f->acceptsThreadsPerBlock(tpb); };
  QVector<int> offered;
  for (int t : kThreadsPerBlockChoices)
    if (valid(t)) offered << t;
  int chosen = current;
  if (!offered.contains(current)) {
    if (valid(current) || keepCurrent || offered.isEmpty()) {
      offered << current;  // a loaded request's own value stays as it came (the hint says if it is bad)
      std::sort(offered.begin(), offered.end());
    } else {
      // The user changed the tile: the nearest block size at or below the one chosen.
      chosen = offered.front();
      for (int t : offered)
        if (t <= current) chosen = t;
    }
  }
  QVector<int> shown;
  for (int i = 0; i < tpb_->count(); ++i) shown << tpb_->itemData(i).toInt();
  if (shown == offered && current == chosen) return;
  const QSignalBlocker block(tpb_);
  tpb_->clear();
  for (int t : offered) tpb_->addItem(QString::number(t), t);
  tpb_->setCurrentIndex(tpb_->findData(chosen));
}

void ExperimentPanel::setCudaAvailability(bool usable, const QString& reason) {
  cudaKnown_ = true;
  cudaUsable_ = usable;
  cudaReason_ = reason;
  updateCudaOnly();
}

void ExperimentPanel::updateCudaOnly() {
  const bool cpuChosen = static_cast<BackendChoice>(backend_->currentData().toInt()) == BackendChoice::Cpu;
  QString why;
  if (cpuChosen) why = tr("Runs only on a CUDA GPU; the backend above is the CPU.");
  else if (cudaKnown_ && !cudaUsable_)
    why = tr("Runs only on a CUDA GPU; CUDA is not usable here: %1").arg(cudaReason_.isEmpty() ? tr("no device") : cudaReason_);
  for (auto it = cudaOnlyNotes_.begin(); it != cudaOnlyNotes_.end(); ++it) {
    QCheckBox* box = it.key();
    const QSignalBlocker block(box);
    // Disabled switches show unchecked (they will not run) and remember what the user wanted.
    box->setEnabled(why.isEmpty());
    box->setChecked(why.isEmpty() && box->property("wanted").toBool());
    it.value()->setText(why);
    it.value()->setVisible(!why.isEmpty());
  }
}

QString ExperimentPanel::unavailableReason(const QString& id) const {
  QCheckBox* box = variantSwitch(id);
  if (!box || box->isEnabled()) return {};
  return cudaOnlyNotes_.value(box) ? cudaOnlyNotes_.value(box)->text() : QString();
}

void ExperimentPanel::setRequest(const kernellab::RunRequest& r) {
  loading_ = true;
  base_ = r;
  {
    const QList<QWidget*> all = findChildren<QWidget*>();
    std::vector<QSignalBlocker> blockers;
    blockers.reserve(static_cast<size_t>(all.size()));
    for (QWidget* w : all) blockers.emplace_back(w);
    // A request without a known family shows the first one (the registry's order).
    family_->setCurrentIndex(std::max(0, family_->findData(familyKey(r.family))));
    // Every form shows its section of the request (the window's saved settings keep them all).
    for (FamilyForm* f : uniqueForms()) {
      f->setFamily(family());
      f->setRequest(r);
    }
    seed_->setValue(static_cast<int>(std::min<uint64_t>(r.seed, 2147483647u)));
    // Every standard block size first; updateVisibility then offers those the form takes.
    tpb_->clear();
    for (int t : kThreadsPerBlockChoices) tpb_->addItem(QString::number(t), t);
    int tpbIndex = tpb_->findData(r.launch.threadsPerBlock);
    if (tpbIndex < 0) {
      tpb_->addItem(QString::number(r.launch.threadsPerBlock), r.launch.threadsPerBlock);
      tpbIndex = tpb_->count() - 1;
    }
    tpb_->setCurrentIndex(tpbIndex);
    reps_->setValue(r.repetitions);
    warmup_->setValue(r.warmup);
    backend_->setCurrentIndex(backend_->findData(int(r.backend)));
    verify_->setChecked(r.verify);
    schedule_->setChecked(r.recordSchedule);
    schedule_->setProperty("wanted", r.recordSchedule);
    fillSweepAxes();
    rebuildSwitches(r.variants);
  }
  updateVisibility();
  loading_ = false;
}

kernellab::RunRequest ExperimentPanel::build(QString* problem) const {
  RunRequest r = base_;
  r.family = family();
  ParameterValues values;
  FamilyForm* f = form();
  if (f) values = f->values();
  if (!f || !f->setsThreadsPerBlock())
    values.push_back({"tpb", std::to_string(tpb_->currentData().toInt())});
  // The CLI's builder: the same parameters, the same rules between them.
  try {
    r = buildRequest(r, values);
  } catch (const InputError& e) {
    if (problem) *problem = QString::fromStdString(e.what());
  }
  r.variants.clear();
  for (QCheckBox* c : switches_)
    if (c->isChecked() && c->isEnabled())
      r.variants.push_back(c->property("variantId").toString().toStdString());
  r.seed = static_cast<uint64_t>(seed_->value());
  r.repetitions = reps_->value();
  r.warmup = warmup_->value();
  r.backend = static_cast<BackendChoice>(backend_->currentData().toInt());
  r.verify = verify_->isChecked();
  r.recordSchedule = schedule_->isChecked() && schedule_->isEnabled();
  return r;
}

kernellab::RunRequest ExperimentPanel::request() const { return build(nullptr); }

bool ExperimentPanel::takeDataFile(const QString& path) {
  RunRequest r = request();
  for (FamilyForm* f : uniqueForms())
    if (f->takesDataFile(path, r)) {
      setRequest(r);
      changed();
      return true;
    }
  return false;
}

QString ExperimentPanel::resultView() const {
  const FamilyFormEntry* entry = familyFormFor(family());
  return entry ? entry->resultView : QString();
}

std::vector<kernellab::SweepAxis> ExperimentPanel::sweepAxes() const {
  if (sweepAxis_->currentIndex() <= 0) return {};
  kernellab::SweepAxis axis;
  axis.name = sweepAxis_->currentData().toString().toStdString();
  for (const QString& v : sweepValues_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
    if (!v.trimmed().isEmpty()) axis.values.push_back(v.trimmed().toStdString());
  return {axis};
}

void ExperimentPanel::setSweep(const QString& axis, const QString& values) {
  const int i = axis.isEmpty() ? 0 : sweepAxis_->findData(axis);
  {
    const QSignalBlocker block(sweepAxis_);
    sweepAxis_->setCurrentIndex(std::max(0, i));
  }
  sweepValues_->setText(i > 0 ? values : QString());
  sweepValues_->setEnabled(i > 0);
  if (i > 0) sweepMemory_[sweepKey(i)] = values;
  changed();
}

QString ExperimentPanel::sweepAxis() const { return sweepAxis_->currentData().toString(); }
QString ExperimentPanel::sweepValues() const { return sweepAxis_->currentIndex() > 0 ? sweepValues_->text() : QString(); }

bool ExperimentPanel::live() const { return live_->isChecked(); }
void ExperimentPanel::setLive(bool on) { live_->setChecked(on); }

void ExperimentPanel::setCancelling() {
  cancel_->setEnabled(false);
  cancel_->setText(tr("Cancelling..."));
}

void ExperimentPanel::setRunning(bool running) {
  cancel_->setEnabled(running);
  cancel_->setText(tr("Cancel"));
  run_->setText(running ? tr("Run again") : tr("Run"));
}

QString ExperimentPanel::problem() const {
  if (!switches_.isEmpty() &&
      std::none_of(switches_.begin(), switches_.end(), [](QCheckBox* c) { return c->isChecked() && c->isEnabled(); }))
    return tr("Choose at least one variant to run.");
  if (sweepAxis_->currentIndex() > 0 && sweepAxes().front().values.empty())
    return tr("Give the sweep at least one value, or choose 'Nothing'.");
  if (FamilyForm* f = form(); f && !f->problem().isEmpty()) return f->problem();
  QString why;
  build(&why);
  return why;
}

void ExperimentPanel::setLaunchHint(const QString& text, bool isError) {
  launchHint_->setText(text);
  launchHint_->setStyleSheet(isError ? QStringLiteral("color: #b00020;") : QStringLiteral("color: #555;"));
}

QCheckBox* ExperimentPanel::variantSwitch(const QString& id) const {
  for (QCheckBox* c : switches_)
    if (c->property("variantId").toString() == id) return c;
  return nullptr;
}

QStringList ExperimentPanel::variantIds() const {
  QStringList ids;
  for (QCheckBox* c : switches_) ids << c->property("variantId").toString();
  return ids;
}

void ExperimentPanel::changed() {
  if (loading_) return;
  emit edited();
}

}  // namespace kernellab::widgets
