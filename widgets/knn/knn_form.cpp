// SPDX-License-Identifier: MIT
// Window KNN's page of the experiment panel: the feature image (generated or a .npy), the
// window and k, and the block shape in the Launch box.
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>
#include <algorithm>

#include "family_form.h"
#include "kernellab/knn.h"

namespace kernellab::widgets {
namespace {

class KnnForm final : public FamilyForm {
 public:
  explicit KnnForm(QWidget* parent) : FamilyForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    rows_ = spin(this, 1, 100000);
    cols_ = spin(this, 1, 100000);
    components_ = spin(this, 1, 1024);
    window_ = spin(this, 1, 100000);
    k_ = spin(this, 1, 1024);
    rows_->setToolTip(tr("Rows of the feature image (the seed's: 377)"));
    cols_->setToolTip(tr("Columns of the feature image (the seed's: 329)"));
    components_->setToolTip(
        tr("Features per pixel C (PCA components; the seed uses 1, at most 32)"));
    window_->setToolTip(tr("Rows of the search window around each pixel (the seed's: 14)"));
    k_->setToolTip(tr("Neighbours kept per pixel, nearest first (1..32)"));
    auto* imageFile = new QWidget(this);
    auto* imageLayout = new QHBoxLayout(imageFile);
    imageLayout->setContentsMargins(0, 0, 0, 0);
    imagePath_ = new QLineEdit(imageFile);
    imagePath_->setPlaceholderText(tr("(generated)"));
    imagePath_->setToolTip(
        tr("A .npy feature image (rows, cols[, C]) instead of the generated one; "
           "its shape replaces the size fields"));
    auto* browse = new QToolButton(imageFile);
    browse->setText(tr("Browse..."));
    imageLayout->addWidget(imagePath_, 1);
    imageLayout->addWidget(browse);
    form->addRow(tr("Image rows"), rows_);
    form->addRow(tr("Image columns"), cols_);
    form->addRow(tr("Components"), components_);
    form->addRow(tr("Image file"), imageFile);
    form->addRow(tr("Window rows"), window_);
    form->addRow(tr("Neighbours k"), k_);
    connect(browse, &QToolButton::clicked, this, [this] {
      const QString path =
          QFileDialog::getOpenFileName(this, tr("Open a feature image"), imagePath_->text(),
                                       tr("NumPy arrays (*.npy);;All files (*)"));
      if (path.isEmpty()) return;
      imagePath_->setText(path);
      emit edited();
    });

    launch_ = new QWidget(this);
    auto* launchForm = new QFormLayout(launch_);
    launchForm->setContentsMargins(0, 0, 0, 0);
    auto* block = new QWidget(launch_);
    auto* blockLayout = new QHBoxLayout(block);
    blockLayout->setContentsMargins(0, 0, 0, 0);
    blockX_ = spin(block, 0, 1024);
    blockY_ = spin(block, 0, 1024);
    for (QSpinBox* b : {blockX_, blockY_}) b->setSpecialValueText(tr("auto"));
    blockX_->setToolTip(
        tr("Block width in pixels, along an image row (auto: from threads per block)"));
    blockY_->setToolTip(tr("Block height in image rows (auto: from threads per block)"));
    blockLayout->addWidget(blockX_, 1);
    blockLayout->addWidget(new QLabel(QStringLiteral("x"), block));
    blockLayout->addWidget(blockY_, 1);
    launchForm->addRow(tr("Block shape"), block);
    watchFields();
  }

  void setRequest(const RunRequest& r) override {
    const KnnProblem& p = r.section<KnnProblem>();
    rows_->setValue(p.rows);
    cols_->setValue(p.cols);
    components_->setValue(p.components);
    window_->setValue(p.window);
    k_->setValue(p.k);
    imagePath_->setText(QString::fromStdString(p.inputPath));
    blockX_->setValue(std::clamp(p.blockX, 0, 1024));
    blockY_->setValue(std::clamp(p.blockY, 0, 1024));
  }

  ParameterValues values() const override {
    ParameterValues v;
    const std::string path = imagePath_->text().trimmed().toStdString();
    v.push_back({"input", path});
    if (path.empty())  // a file's shape replaces the size fields
      v.push_back({"image", std::to_string(rows_->value()) + "x" + std::to_string(cols_->value()) +
                                "x" + std::to_string(components_->value())});
    v.push_back({"window", std::to_string(window_->value())});
    v.push_back({"k", std::to_string(k_->value())});
    // Both sides or neither: half a shape is derived from threads per block as a whole.
    const bool shaped = blockX_->value() > 0 && blockY_->value() > 0;
    v.push_back(
        {"block", shaped ? std::to_string(blockX_->value()) + "x" + std::to_string(blockY_->value())
                         : std::string("auto")});
    return v;
  }

  QWidget* launchFields() override { return launch_; }
  bool setsThreadsPerBlock() const override { return blockX_->value() > 0 && blockY_->value() > 0; }

 private:
  QSpinBox* rows_ = nullptr;
  QSpinBox* cols_ = nullptr;
  QSpinBox* components_ = nullptr;
  QSpinBox* window_ = nullptr;
  QSpinBox* k_ = nullptr;
  QLineEdit* imagePath_ = nullptr;
  QWidget* launch_ = nullptr;
  QSpinBox* blockX_ = nullptr;
  QSpinBox* blockY_ = nullptr;
};

}  // namespace

FamilyFormEntry knnForm() {
  return {{knn::kFamily}, [](QWidget* parent) { return new KnnForm(parent); }, {}};
}

}  // namespace kernellab::widgets
