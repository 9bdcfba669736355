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

#include "kernellab/transpose.h"

namespace kernellab::widgets {
namespace {

using kernellab::Family;

struct AxisChoice {
  const char* id;
  const char* title;
  const char* defaults;
};

// Sweep axes per family (ids as applySweepValue knows them) with useful default values.
QVector<AxisChoice> axesFor(Family f) {
  switch (f) {
    case Family::Transpose:
      return {{"tpb", "Threads per block", "64,128,256,512,1024"},
              {"tile", "Tile", "16,32"},
              {"size", "Matrix size", "512x512,1024x1024,2048x2048,4096x4096"}};
    case Family::KMeans:
    case Family::KCenters:
      return {{"tpb", "Threads per block", "64,128,256,512,1024"},
              {"n", "N (points)", "10000,100000,1000000"},
              {"k", "K (clusters)", "4,16,64"},
              {"d", "D (dimensions)", "2,8,32,128"}};
    case Family::Knn:
      return {{"tpb", "Threads per block", "64,128,256,512"},
              {"block", "Block shape", "256x1,32x8,64x4"},
              {"window", "Window rows", "4,8,14"},
              {"image", "Image size", "188x164,377x329"}};
  }
  return {};
}

QSpinBox* spin(QWidget* parent, int lo, int hi, int step = 1) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setSingleStep(step);
  s->setGroupSeparatorShown(true);
  s->setAccelerated(true);
  return s;
}

constexpr int kThreadsPerBlockChoices[] = {16, 32, 64, 128, 256, 512, 1024};

// Whether a transpose block of `tpb` threads can move a tile of `tile` (the kernels' own rule,
// asked of the same function that validates a run).
bool transposeShapeValid(int tile, int tpb) {
  kernellab::RunRequest r;
  r.family = Family::Transpose;
  r.launch.tile = tile;
  r.launch.threadsPerBlock = tpb;
  r.transpose.width = r.transpose.height = tile;
  try {
    kernellab::transpose::makeGeometry(r, kernellab::transpose::Variant::Padded);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

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
  family_->addItem(tr("Matrix transpose"), int(Family::Transpose));
  family_->addItem(tr("k-means"), int(Family::KMeans));
  family_->addItem(tr("k-centers"), int(Family::KCenters));
  family_->addItem(tr("Window KNN"), int(Family::Knn));
  family_->setToolTip(tr("The kernel family to run"));
  top->addRow(tr("Kernel family"), family_);
  layout->addLayout(top);

  buildFamilyPage();
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
  tpb_->setToolTip(tr("Threads per block (transpose: tile x rows of threads; only the block sizes "
                      "that divide the chosen tile into whole rows are offered)"));
  launch->addRow(tr("Threads per block"), tpb_);
  tile_ = new QComboBox(launchBox);
  tile_->addItem(QStringLiteral("16"), 16);
  tile_->addItem(QStringLiteral("32"), 32);
  tile_->setToolTip(tr("Edge of the square tile a block moves, in elements"));
  launch->addRow(tr("Tile"), tile_);
  tileRow_ = tile_;
  blockRow_ = new QWidget(launchBox);
  auto* blockLayout = new QHBoxLayout(blockRow_);
  blockLayout->setContentsMargins(0, 0, 0, 0);
  blockX_ = spin(blockRow_, 0, 1024);
  blockY_ = spin(blockRow_, 0, 1024);
  for (QSpinBox* b : {blockX_, blockY_}) b->setSpecialValueText(tr("auto"));
  blockX_->setToolTip(tr("Block width in pixels, along an image row (auto: from threads per block)"));
  blockY_->setToolTip(tr("Block height in image rows (auto: from threads per block)"));
  blockLayout->addWidget(blockX_, 1);
  blockLayout->addWidget(new QLabel(QStringLiteral("x"), blockRow_));
  blockLayout->addWidget(blockY_, 1);
  launch->addRow(tr("Block shape"), blockRow_);
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
      sweepValues_->setText(sweepMemory_.value(int(family()) * 100 + i, QLatin1String(axes[i - 1].defaults)));
    sweepValues_->setEnabled(i > 0);
    changed();
  });
  connect(sweepValues_, &QLineEdit::textEdited, this, [this] {
    sweepMemory_[int(family()) * 100 + sweepAxis_->currentIndex()] = sweepValues_->text();
    changed();
  });
  for (QSpinBox* s : findChildren<QSpinBox*>())
    connect(s, &QSpinBox::valueChanged, this, &ExperimentPanel::changed);
  for (QDoubleSpinBox* s : findChildren<QDoubleSpinBox*>())
    connect(s, &QDoubleSpinBox::valueChanged, this, &ExperimentPanel::changed);
  for (QComboBox* c : {tpb_, tile_, backend_, shape_, init_, source_, stopRule_})
    connect(c, &QComboBox::currentIndexChanged, this, [this] {
      updateVisibility();
      changed();
    });
  connect(verify_, &QCheckBox::toggled, this, &ExperimentPanel::changed);
  connect(schedule_, &QCheckBox::toggled, this, [this](bool on) {
    schedule_->setProperty("wanted", on);
    changed();
  });
  connect(pointsPath_, &QLineEdit::editingFinished, this, &ExperimentPanel::changed);

  auto* wheelGuard = new WheelOnlyWhenFocused(this);
  for (QWidget* field : findChildren<QWidget*>())
    if (qobject_cast<QComboBox*>(field) || qobject_cast<QAbstractSpinBox*>(field)) {
      field->setFocusPolicy(Qt::StrongFocus);  // not Qt::WheelFocus: the wheel gives no focus
      field->installEventFilter(wheelGuard);
    }

  setRequest(kernellab::RunRequest{});
}

void ExperimentPanel::buildFamilyPage() {
  auto* box = new QGroupBox(tr("Data"), this);
  auto* boxLayout = new QVBoxLayout(box);
  dataPages_ = new QStackedWidget(box);
  boxLayout->addWidget(dataPages_);

  // Transpose: the matrix.
  auto* tp = new QWidget(dataPages_);
  auto* tf = new QFormLayout(tp);
  tf->setContentsMargins(0, 0, 0, 0);
  width_ = spin(tp, 1, 1000000, 256);
  height_ = spin(tp, 1, 1000000, 256);
  width_->setToolTip(tr("Columns of the input matrix (float32); any size, not only tile multiples"));
  height_->setToolTip(tr("Rows of the input matrix"));
  tf->addRow(tr("Width (columns)"), width_);
  tf->addRow(tr("Height (rows)"), height_);
  dataPages_->addWidget(tp);

  // Clustering: generated points or a file.
  auto* cp = new QWidget(dataPages_);
  auto* cl = new QVBoxLayout(cp);
  cl->setContentsMargins(0, 0, 0, 0);
  auto* sourceForm = new QFormLayout;
  source_ = new QComboBox(cp);
  source_->addItem(tr("Generate"));
  source_->addItem(tr("Open a file (CSV or .npy)"));
  sourceForm->addRow(tr("Points"), source_);
  cl->addLayout(sourceForm);
  generated_ = new QWidget(cp);
  auto* gf = new QFormLayout(generated_);
  gf->setContentsMargins(0, 0, 0, 0);
  n_ = spin(generated_, 1, 200000000, 1000);
  n_->setToolTip(tr("Number of points N"));
  shape_ = new QComboBox(generated_);
  // The thesis's Generator.cpp offsets every coordinate by a uniform draw in [0, radius), added
  // for even points and subtracted for odd ones: each cluster is two cubes meeting at a corner,
  // its center (seed 003, figure 10). Named for what it draws.
  shape_->addItem(tr("Seed generator (K cube pairs)"), int(DatasetShape::SeedGenerator));
  shape_->addItem(tr("Gaussian blobs with noise"), int(DatasetShape::Blobs));
  shape_->setToolTip(tr("Seed generator: the thesis's points, each cluster two cubes meeting at its center. "
                        "Blobs: round Gaussian clusters with uniformly scattered noise."));
  radius_ = new QDoubleSpinBox(generated_);
  radius_->setRange(1, 1e9);
  radius_->setDecimals(1);
  radius_->setToolTip(tr("Seed generator: every coordinate is offset by a uniform amount in [0, radius) from its "
                         "cluster's center, up for even points and down for odd ones, so each cluster is two "
                         "cubes of side radius meeting at the center (the thesis's generator)."));
  noise_ = new QDoubleSpinBox(generated_);
  noise_->setRange(0, 90);
  noise_->setSuffix(QStringLiteral(" %"));
  noise_->setToolTip(tr("Blobs: share of uniformly scattered noise points"));
  gf->addRow(tr("N (points)"), n_);
  gf->addRow(tr("Shape"), shape_);
  gf->addRow(tr("Radius"), radius_);
  gf->addRow(tr("Noise"), noise_);
  cl->addWidget(generated_);
  fromFile_ = new QWidget(cp);
  auto* ff = new QHBoxLayout(fromFile_);
  ff->setContentsMargins(0, 0, 0, 0);
  pointsPath_ = new QLineEdit(fromFile_);
  pointsPath_->setPlaceholderText(tr("points.csv or points.npy"));
  auto* browse = new QToolButton(fromFile_);
  browse->setText(tr("Browse..."));
  ff->addWidget(pointsPath_, 1);
  ff->addWidget(browse);
  cl->addWidget(fromFile_);
  connect(browse, &QToolButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open points"), pointsPath_->text(), tr("Points (*.csv *.npy);;All files (*)"));
    if (path.isEmpty()) return;
    pointsPath_->setText(path);
    changed();
  });
  auto* algo = new QFormLayout;
  k_ = spin(cp, 1, 1000000);
  k_->setToolTip(tr("Clusters K (also the generator's clusters)"));
  d_ = spin(cp, 1, 100000);
  d_->setToolTip(tr("Dimensions D of each point"));
  algo->addRow(tr("K (clusters)"), k_);
  algo->addRow(tr("D (dimensions)"), d_);
  cl->addLayout(algo);
  kmeansOnly_ = new QWidget(cp);
  auto* kf = new QFormLayout(kmeansOnly_);
  kf->setContentsMargins(0, 0, 0, 0);
  init_ = new QComboBox(kmeansOnly_);
  init_->addItem(tr("First K points"), int(InitMethod::First));
  init_->addItem(tr("Random points"), int(InitMethod::Random));
  init_->addItem(tr("k-means++"), int(InitMethod::KMeansPlusPlus));
  maxIter_ = spin(kmeansOnly_, 1, 100000);
  maxIter_->setToolTip(tr("Stop after this many iterations if the stop rule is not met first"));
  stopRule_ = new QComboBox(kmeansOnly_);
  stopRule_->addItem(tr("Converged (no point changes cluster)"), int(StopRule::FixedPoint));
  stopRule_->addItem(tr("Score rule (Campaign, the seed)"), int(StopRule::ScoreChange));
  stopRule_->setToolTip(
      tr("Converged: Lloyd's fixed point, what scikit-learn, cuML and FAISS users expect.\n"
         "Score rule: the seed's experiments stop when the score changes by at most "
         "epsilon x the previous score, which can stop before convergence."));
  epsilon_ = new QDoubleSpinBox(kmeansOnly_);
  epsilon_->setDecimals(8);
  epsilon_->setRange(0, 1);
  epsilon_->setSingleStep(1e-4);
  epsilon_->setToolTip(
      tr("Score rule: stop when the score changes by at most epsilon x the previous score"));
  kf->addRow(tr("Initial centers"), init_);
  kf->addRow(tr("Max iterations"), maxIter_);
  kf->addRow(tr("Stop when"), stopRule_);
  kf->addRow(tr("Epsilon"), epsilon_);
  cl->addWidget(kmeansOnly_);
  dataPages_->addWidget(cp);

  // Window KNN: the feature image.
  auto* kp = new QWidget(dataPages_);
  auto* kf2 = new QFormLayout(kp);
  kf2->setContentsMargins(0, 0, 0, 0);
  rows_ = spin(kp, 1, 100000);
  cols_ = spin(kp, 1, 100000);
  components_ = spin(kp, 1, 1024);
  window_ = spin(kp, 1, 100000);
  knnK_ = spin(kp, 1, 1024);
  rows_->setToolTip(tr("Rows of the feature image (the seed's: 377)"));
  cols_->setToolTip(tr("Columns of the feature image (the seed's: 329)"));
  components_->setToolTip(tr("Features per pixel C (PCA components; the seed uses 1, at most 32)"));
  window_->setToolTip(tr("Rows of the search window around each pixel (the seed's: 14)"));
  knnK_->setToolTip(tr("Neighbours kept per pixel, nearest first (1..32)"));
  auto* imageFile = new QWidget(kp);
  auto* imageLayout = new QHBoxLayout(imageFile);
  imageLayout->setContentsMargins(0, 0, 0, 0);
  imagePath_ = new QLineEdit(imageFile);
  imagePath_->setPlaceholderText(tr("(generated)"));
  imagePath_->setToolTip(tr("A .npy feature image (rows, cols[, C]) instead of the generated one; "
                            "its shape replaces the size fields"));
  auto* browseImage = new QToolButton(imageFile);
  browseImage->setText(tr("Browse..."));
  imageLayout->addWidget(imagePath_, 1);
  imageLayout->addWidget(browseImage);
  kf2->addRow(tr("Image rows"), rows_);
  kf2->addRow(tr("Image columns"), cols_);
  kf2->addRow(tr("Components"), components_);
  kf2->addRow(tr("Image file"), imageFile);
  kf2->addRow(tr("Window rows"), window_);
  kf2->addRow(tr("Neighbours k"), knnK_);
  dataPages_->addWidget(kp);
  connect(browseImage, &QToolButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a feature image"), imagePath_->text(),
                                                      tr("NumPy arrays (*.npy);;All files (*)"));
    if (path.isEmpty()) return;
    imagePath_->setText(path);
    changed();
  });
  connect(imagePath_, &QLineEdit::editingFinished, this, [this] { changed(); });

  auto* seedForm = new QFormLayout;
  seed_ = spin(box, 0, 2147483647);
  seed_->setToolTip(tr("Seed of the generated data: the same seed gives the same data everywhere"));
  seedForm->addRow(tr("Seed"), seed_);
  boxLayout->addLayout(seedForm);
}

void ExperimentPanel::setVariantCatalog(VariantCatalog catalog) {
  catalog_ = std::move(catalog);
  rebuildSwitches(base_.variants);
}

Family ExperimentPanel::family() const { return static_cast<Family>(family_->currentData().toInt()); }

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
  for (const AxisChoice& a : axesFor(family())) sweepAxis_->addItem(tr(a.title), QString::fromLatin1(a.id));
  sweepValues_->clear();
  sweepValues_->setEnabled(false);
}

void ExperimentPanel::updateVisibility() {
  const Family f = family();
  const bool clustering = f == Family::KMeans || f == Family::KCenters;
  const int page = f == Family::Transpose ? 0 : clustering ? 1 : 2;
  dataPages_->setCurrentIndex(page);
  // A stacked widget is as tall as its tallest page: let only the shown page take room.
  for (int i = 0; i < dataPages_->count(); ++i)
    dataPages_->widget(i)->setSizePolicy(QSizePolicy::Preferred, i == page ? QSizePolicy::Preferred : QSizePolicy::Ignored);
  dataPages_->adjustSize();
  const bool file = source_->currentIndex() == 1;
  generated_->setVisible(!file);
  fromFile_->setVisible(file);
  kmeansOnly_->setVisible(f == Family::KMeans);
  epsilon_->setEnabled(static_cast<StopRule>(stopRule_->currentData().toInt()) ==
                       StopRule::ScoreChange);
  const bool seedShape = static_cast<DatasetShape>(shape_->currentData().toInt()) == DatasetShape::SeedGenerator;
  radius_->setEnabled(seedShape);
  noise_->setEnabled(!seedShape);
  tile_->setEnabled(f == Family::Transpose);
  refreshThreadsPerBlock(loading_);
  if (auto* form = tile_->parentWidget()->findChild<QFormLayout*>()) {
    form->setRowVisible(tile_, f == Family::Transpose);
    form->setRowVisible(blockRow_, f == Family::Knn);
  }
  d_->setEnabled(!file);
  // KNN records no block schedule (its runner refuses the request): say so instead of failing.
  schedule_->setEnabled(f != Family::Knn);
  schedule_->setToolTip(f == Family::Knn ? tr("KNN records no block schedules (transpose and clustering do, on a CUDA GPU).")
                                         : tr("Every block's SM and start/end time, for the Schedule view's Gantt chart. "
                                              "Recorded on a CUDA GPU only (the CPU backend has no SMs); the overhead of "
                                              "recording is measured against the uninstrumented kernel."));
  if (f == Family::Knn) {
    const QSignalBlocker block(schedule_);
    schedule_->setChecked(false);
  } else {
    const QSignalBlocker block(schedule_);
    schedule_->setChecked(schedule_->property("wanted").toBool());
  }
  updateCudaOnly();
}

void ExperimentPanel::refreshThreadsPerBlock(bool keepCurrent) {
  const Family f = family();
  const int tile = tile_->currentData().toInt();
  const int current = tpb_->currentData().toInt();
  auto valid = [&](int tpb) { return f != Family::Transpose || transposeShapeValid(tile, tpb); };
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
    family_->setCurrentIndex(family_->findData(int(r.family)));
    width_->setValue(static_cast<int>(std::clamp<int64_t>(r.transpose.width, 1, width_->maximum())));
    height_->setValue(static_cast<int>(std::clamp<int64_t>(r.transpose.height, 1, height_->maximum())));
    const auto& c = r.clustering;
    source_->setCurrentIndex(c.inputPath.empty() ? 0 : 1);
    pointsPath_->setText(QString::fromStdString(c.inputPath));
    n_->setValue(static_cast<int>(std::clamp<int64_t>(c.n, 1, n_->maximum())));
    k_->setValue(c.k);
    d_->setValue(c.d);
    shape_->setCurrentIndex(shape_->findData(int(c.shape)));
    radius_->setValue(c.radius);
    noise_->setValue(c.noiseFraction * 100.0);
    // Given centers are not chosen in the panel but kept from a loaded request (its file named),
    // so running a stored request again starts from the same centers.
    if (const int given = init_->findData(int(InitMethod::Given)); given >= 0)
      init_->removeItem(given);
    if (c.init == InitMethod::Given) {
      init_->addItem(
          tr("Centers file: %1").arg(QFileInfo(QString::fromStdString(c.centersPath)).fileName()),
          int(InitMethod::Given));
      init_->setItemData(init_->count() - 1, QString::fromStdString(c.centersPath),
                         Qt::ToolTipRole);
    }
    init_->setCurrentIndex(std::max(0, init_->findData(int(c.init))));
    maxIter_->setValue(c.maxIterations);
    stopRule_->setCurrentIndex(std::max(0, stopRule_->findData(int(c.stopRule))));
    epsilon_->setValue(c.epsilon);
    rows_->setValue(r.knn.rows);
    cols_->setValue(r.knn.cols);
    components_->setValue(r.knn.components);
    window_->setValue(r.knn.window);
    knnK_->setValue(r.knn.k);
    imagePath_->setText(QString::fromStdString(r.knn.inputPath));
    blockX_->setValue(std::clamp(r.launch.blockX, 0, 1024));
    blockY_->setValue(std::clamp(r.launch.blockY, 0, 1024));
    seed_->setValue(static_cast<int>(std::min<uint64_t>(r.seed, 2147483647u)));
    // Every standard block size first; updateVisibility then offers those valid for the tile.
    tpb_->clear();
    for (int t : kThreadsPerBlockChoices) tpb_->addItem(QString::number(t), t);
    int tpbIndex = tpb_->findData(r.launch.threadsPerBlock);
    if (tpbIndex < 0) {
      tpb_->addItem(QString::number(r.launch.threadsPerBlock), r.launch.threadsPerBlock);
      tpbIndex = tpb_->count() - 1;
    }
    tpb_->setCurrentIndex(tpbIndex);
    tile_->setCurrentIndex(std::max(0, tile_->findData(r.launch.tile)));
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

kernellab::RunRequest ExperimentPanel::request() const {
  RunRequest r = base_;
  r.family = family();
  r.variants.clear();
  for (QCheckBox* c : switches_)
    if (c->isChecked() && c->isEnabled()) r.variants.push_back(c->property("variantId").toString().toStdString());
  r.transpose.width = width_->value();
  r.transpose.height = height_->value();
  auto& c = r.clustering;
  c.inputPath = source_->currentIndex() == 1 ? pointsPath_->text().trimmed().toStdString() : std::string();
  c.n = n_->value();
  c.k = k_->value();
  c.d = d_->value();
  c.shape = static_cast<DatasetShape>(shape_->currentData().toInt());
  c.radius = radius_->value();
  c.noiseFraction = noise_->value() / 100.0;
  c.init = static_cast<InitMethod>(init_->currentData().toInt());
  c.maxIterations = maxIter_->value();
  c.stopRule = static_cast<StopRule>(stopRule_->currentData().toInt());
  c.epsilon = epsilon_->value();
  r.knn.rows = rows_->value();
  r.knn.cols = cols_->value();
  r.knn.components = components_->value();
  r.knn.window = window_->value();
  r.knn.k = knnK_->value();
  r.knn.inputPath = imagePath_->text().trimmed().toStdString();
  r.launch.blockX = blockX_->value();
  r.launch.blockY = blockY_->value();
  r.seed = static_cast<uint64_t>(seed_->value());
  r.launch.threadsPerBlock = tpb_->currentData().toInt();
  r.launch.tile = tile_->currentData().toInt();
  if (r.family == Family::Transpose && r.launch.threadsPerBlock > 0 &&
      r.launch.tile * r.launch.tile % r.launch.threadsPerBlock == 0)
    r.launch.rowsPerThread = r.launch.tile * r.launch.tile / r.launch.threadsPerBlock;
  r.repetitions = reps_->value();
  r.warmup = warmup_->value();
  r.backend = static_cast<BackendChoice>(backend_->currentData().toInt());
  r.verify = verify_->isChecked();
  r.recordSchedule = schedule_->isChecked() && schedule_->isEnabled();
  return r;
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
  if (i > 0) sweepMemory_[int(family()) * 100 + i] = values;
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
  if (source_->currentIndex() == 1 && pointsPath_->text().trimmed().isEmpty() &&
      (family() == Family::KMeans || family() == Family::KCenters))
    return tr("Choose a points file (CSV or .npy), or generate the points.");
  return {};
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
