// SPDX-License-Identifier: MIT
// The clustering families' page of the experiment panel (k-means and k-centers share it): the
// points, generated or from a file, K and D, and k-means's initial centers and stop rule.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "family_form.h"
#include "kernellab/checked_number.h"
#include "kernellab/clustering_request.h"

namespace kernellab::widgets {
namespace {

class ClusteringForm final : public FamilyForm {
 public:
  explicit ClusteringForm(QWidget* parent) : FamilyForm(parent) {
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    auto* sourceForm = new QFormLayout;
    source_ = new QComboBox(this);
    source_->addItem(tr("Generate"));
    source_->addItem(tr("Open a file (CSV or .npy)"));
    sourceForm->addRow(tr("Points"), source_);
    column->addLayout(sourceForm);

    generated_ = new QWidget(this);
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
    shape_->setToolTip(
        tr("Seed generator: the thesis's points, each cluster two cubes meeting at "
           "its center. Blobs: round Gaussian clusters with uniformly scattered noise."));
    radius_ = new QDoubleSpinBox(generated_);
    radius_->setRange(1, 1e9);
    radius_->setDecimals(1);
    radius_->setToolTip(
        tr("Seed generator: every coordinate is offset by a uniform amount in [0, "
           "radius) from its cluster's center, up for even points and down for odd "
           "ones, so each cluster is two cubes of side radius meeting at the center "
           "(the thesis's generator)."));
    noise_ = new QDoubleSpinBox(generated_);
    // The request takes any share 0..1 (one broad cloud is 99.999 % noise: issue 15's data where
    // pruning helps little); the field keeps a loaded request's value to 0.001 %, never clamps it.
    noise_->setRange(0, 100);
    noise_->setDecimals(3);
    noise_->setSuffix(QStringLiteral(" %"));
    noise_->setToolTip(tr("Blobs: share of uniformly scattered noise points"));
    gf->addRow(tr("N (points)"), n_);
    gf->addRow(tr("Shape"), shape_);
    gf->addRow(tr("Radius"), radius_);
    gf->addRow(tr("Noise"), noise_);
    column->addWidget(generated_);

    fromFile_ = new QWidget(this);
    auto* ff = new QHBoxLayout(fromFile_);
    ff->setContentsMargins(0, 0, 0, 0);
    pointsPath_ = new QLineEdit(fromFile_);
    pointsPath_->setPlaceholderText(tr("points.csv or points.npy"));
    auto* browse = new QToolButton(fromFile_);
    browse->setText(tr("Browse..."));
    ff->addWidget(pointsPath_, 1);
    ff->addWidget(browse);
    column->addWidget(fromFile_);
    connect(browse, &QToolButton::clicked, this, [this] {
      const QString path = QFileDialog::getOpenFileName(
          this, tr("Open points"), pointsPath_->text(), tr("Points (*.csv *.npy);;All files (*)"));
      if (path.isEmpty()) return;
      pointsPath_->setText(path);
      emit edited();
    });

    auto* algo = new QFormLayout;
    k_ = spin(this, 1, 1000000);
    k_->setToolTip(tr("Clusters K (also the generator's clusters)"));
    d_ = spin(this, 1, 100000);
    d_->setToolTip(tr("Dimensions D of each point"));
    algo->addRow(tr("K (clusters)"), k_);
    algo->addRow(tr("D (dimensions)"), d_);
    column->addLayout(algo);

    kmeansOnly_ = new QWidget(this);
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
    column->addWidget(kmeansOnly_);

    watchFields();
    for (QComboBox* c : {source_, shape_, stopRule_})
      connect(c, &QComboBox::currentIndexChanged, this, [this] { updateVisibility(); });
    updateVisibility();
  }

  void setFamily(Family family) override {
    FamilyForm::setFamily(family);
    updateVisibility();
  }

  void setRequest(const RunRequest& r) override {
    const ClusteringProblem& c = r.section<ClusteringProblem>();
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
    updateVisibility();
  }

  ParameterValues values() const override {
    ParameterValues v;
    if (fromFile()) {
      v.push_back({"input", pointsPath_->text().trimmed().toStdString()});  // decides N and D
    } else {
      v.push_back({"input", ""});
      v.push_back({"n", std::to_string(n_->value())});
      v.push_back({"d", std::to_string(d_->value())});
      v.push_back({"shape", toString(static_cast<DatasetShape>(shape_->currentData().toInt()))});
      v.push_back({"radius", numberText(radius_->value())});
      v.push_back({"noise", numberText(noise_->value() / 100.0)});
    }
    v.push_back({"k", std::to_string(k_->value())});
    if (family() != clustering::kKMeans) return v;
    const auto init = static_cast<InitMethod>(init_->currentData().toInt());
    if (init == InitMethod::Given)
      v.push_back({"centers", init_->currentData(Qt::ToolTipRole).toString().toStdString()});
    else
      v.push_back({"init", toString(init)});
    v.push_back({"max-iter", std::to_string(maxIter_->value())});
    const auto rule = static_cast<StopRule>(stopRule_->currentData().toInt());
    v.push_back({"stop", toString(rule)});
    if (rule == StopRule::ScoreChange) v.push_back({"epsilon", numberText(epsilon_->value())});
    return v;
  }

  QString problem() const override {
    if (fromFile() && pointsPath_->text().trimmed().isEmpty())
      return tr("Choose a points file (CSV or .npy), or generate the points.");
    return {};
  }

  // A .csv or .npy opened in the window becomes the points of a clustering run.
  bool takesDataFile(const QString& path, RunRequest& r) const override {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("csv") && suffix != QLatin1String("npy")) return false;
    if (!clustering::isClustering(r.family)) r.family = clustering::kKMeans;
    r.section<ClusteringProblem>().inputPath = QFileInfo(path).absoluteFilePath().toStdString();
    return true;
  }

 private:
  bool fromFile() const { return source_->currentIndex() == 1; }

  void updateVisibility() {
    const bool file = fromFile();
    generated_->setVisible(!file);
    fromFile_->setVisible(file);
    d_->setEnabled(!file);
    kmeansOnly_->setVisible(family() == clustering::kKMeans);
    epsilon_->setEnabled(static_cast<StopRule>(stopRule_->currentData().toInt()) ==
                         StopRule::ScoreChange);
    const bool seedShape =
        static_cast<DatasetShape>(shape_->currentData().toInt()) == DatasetShape::SeedGenerator;
    radius_->setEnabled(seedShape);
    noise_->setEnabled(!seedShape);
  }

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
};

}  // namespace

FamilyFormEntry clusteringForm() {
  return {{clustering::kKMeans, clustering::kKCenters},
          [](QWidget* parent) { return new ClusteringForm(parent); },
          QStringLiteral("clusters")};
}

}  // namespace kernellab::widgets
