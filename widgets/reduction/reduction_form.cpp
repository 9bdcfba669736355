// SPDX-License-Identifier: MIT
// The parallel reduction's page of the experiment panel: N and the operation, and the
// grid-stride variant's blocks in the Launch box.
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <algorithm>

#include "family_form.h"
#include "kernellab/reduction.h"

namespace kernellab::widgets {
namespace {

class ReductionForm final : public FamilyForm {
 public:
  explicit ReductionForm(QWidget* parent) : FamilyForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    n_ = spin(this, 1, 2147483647, 1 << 20);
    n_->setToolTip(tr("Floats to reduce: seeded values in (-1, 1), never zero"));
    op_ = new QComboBox(this);
    op_->addItem(tr("Sum"), int(reduction::Operation::Sum));
    op_->addItem(tr("Maximum and its index"), int(reduction::Operation::MaxIndex));
    op_->setToolTip(
        tr("Sum: checked against a double reference within the rounding bound of "
           "the variant's summation depth. Maximum: the value and its first index, "
           "exactly (the reduction k-centers runs per center)."));
    form->addRow(tr("N (floats)"), n_);
    form->addRow(tr("Operation"), op_);
    form->addRow(note(tr("The last-warp variants exchange values with __shfl_down_sync: the old "
                         "warp-synchronous trick (a volatile shared array, no barrier) races "
                         "since Volta's independent thread scheduling."),
                      this));

    launch_ = new QWidget(this);
    auto* launchForm = new QFormLayout(launch_);
    launchForm->setContentsMargins(0, 0, 0, 0);
    blocks_ = spin(launch_, 0, 2147483647);
    blocks_->setSpecialValueText(tr("auto"));
    blocks_->setToolTip(
        tr("Blocks of the grid-stride variant (auto: one wave that fills the "
           "device: SMs x resident blocks)"));
    launchForm->addRow(tr("Grid-stride blocks"), blocks_);
    watchFields();
  }

  void setRequest(const RunRequest& r) override {
    const ReductionProblem& p = r.section<ReductionProblem>();
    n_->setValue(static_cast<int>(std::clamp<int64_t>(p.n, 1, n_->maximum())));
    op_->setCurrentIndex(std::max(0, op_->findData(int(p.op))));
    blocks_->setValue(std::max(0, p.blocks));
  }

  ParameterValues values() const override {
    return {
        {"n", std::to_string(n_->value())},
        {"op", reduction::toString(static_cast<reduction::Operation>(op_->currentData().toInt()))},
        {"blocks", std::to_string(blocks_->value())}};
  }

  QWidget* launchFields() override { return launch_; }

  // The tree halves the block: powers of two from a warp up.
  bool acceptsThreadsPerBlock(int tpb) const override {
    return tpb >= 32 && tpb <= 1024 && (tpb & (tpb - 1)) == 0;
  }

 private:
  QSpinBox* n_ = nullptr;
  QComboBox* op_ = nullptr;
  QWidget* launch_ = nullptr;
  QSpinBox* blocks_ = nullptr;
};

}  // namespace

FamilyFormEntry reductionForm() {
  return {{reduction::kFamily}, [](QWidget* parent) { return new ReductionForm(parent); }, {}};
}

}  // namespace kernellab::widgets
