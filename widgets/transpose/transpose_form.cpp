// SPDX-License-Identifier: MIT
// The transpose's page of the experiment panel: the matrix, and the tile in the Launch box.
#include <QComboBox>
#include <QFormLayout>
#include <QSpinBox>
#include <algorithm>

#include "family_form.h"
#include "kernellab/transpose.h"

namespace kernellab::widgets {
namespace {

class TransposeForm final : public FamilyForm {
 public:
  explicit TransposeForm(QWidget* parent) : FamilyForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    width_ = spin(this, 1, 1000000, 256);
    height_ = spin(this, 1, 1000000, 256);
    width_->setToolTip(
        tr("Columns of the input matrix (float32); any size, not only tile multiples"));
    height_->setToolTip(tr("Rows of the input matrix"));
    form->addRow(tr("Width (columns)"), width_);
    form->addRow(tr("Height (rows)"), height_);

    launch_ = new QWidget(this);
    auto* launchForm = new QFormLayout(launch_);
    launchForm->setContentsMargins(0, 0, 0, 0);
    tile_ = new QComboBox(launch_);
    tile_->addItem(QStringLiteral("16"), 16);
    tile_->addItem(QStringLiteral("32"), 32);
    tile_->setToolTip(tr("Edge of the square tile a block moves, in elements"));
    launchForm->addRow(tr("Tile"), tile_);
    watchFields();
    connect(tile_, &QComboBox::currentIndexChanged, this, &FamilyForm::launchChanged);
  }

  void setRequest(const RunRequest& r) override {
    const TransposeProblem& p = r.section<TransposeProblem>();
    width_->setValue(static_cast<int>(std::clamp<int64_t>(p.width, 1, width_->maximum())));
    height_->setValue(static_cast<int>(std::clamp<int64_t>(p.height, 1, height_->maximum())));
    tile_->setCurrentIndex(std::max(0, tile_->findData(p.tile)));
  }

  ParameterValues values() const override {
    return {{"size", std::to_string(width_->value()) + "x" + std::to_string(height_->value())},
            {"tile", std::to_string(tile_->currentData().toInt())}};
  }

  QWidget* launchFields() override { return launch_; }

  // The kernels' own rule, asked of the function that validates a run: the block is tile x
  // (threads / tile) threads, whole rows dividing the tile.
  bool acceptsThreadsPerBlock(int tpb) const override {
    RunRequest r;
    r.family = transpose::kFamily;
    TransposeProblem& p = r.section<TransposeProblem>();
    p.tile = tile_->currentData().toInt();
    p.width = p.height = p.tile;
    r.launch.threadsPerBlock = tpb;
    try {
      transpose::makeGeometry(r, transpose::Variant::Padded);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

 private:
  QSpinBox* width_ = nullptr;
  QSpinBox* height_ = nullptr;
  QWidget* launch_ = nullptr;
  QComboBox* tile_ = nullptr;
};

}  // namespace

FamilyFormEntry transposeForm() {
  return {{transpose::kFamily}, [](QWidget* parent) { return new TransposeForm(parent); }, {}};
}

}  // namespace kernellab::widgets
