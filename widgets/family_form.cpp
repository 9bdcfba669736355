// SPDX-License-Identifier: MIT
// FamilyForm's shared parts, the registry of forms (family_forms.def) and the generic form.
#include "family_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include "kernellab/family.h"

namespace kernellab::widgets {

FamilyForm::FamilyForm(QWidget* parent) : QWidget(parent) {}

void FamilyForm::setFamily(Family family) { family_ = family; }

bool FamilyForm::acceptsThreadsPerBlock(int) const { return true; }

bool FamilyForm::takesDataFile(const QString&, RunRequest&) const { return false; }

QSpinBox* FamilyForm::spin(QWidget* parent, int lo, int hi, int step) {
  return makeSpinBox(parent, lo, hi, step);
}

QSpinBox* makeSpinBox(QWidget* parent, int lo, int hi, int step) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setSingleStep(step);
  s->setGroupSeparatorShown(true);
  s->setAccelerated(true);
  return s;
}

QLabel* FamilyForm::note(const QString& text, QWidget* parent) {
  auto* l = new QLabel(text, parent);
  l->setWordWrap(true);
  l->setStyleSheet(QStringLiteral("color: #5a5a5a; font-size: 9pt;"));
  return l;
}

void FamilyForm::watchFields() {
  for (QSpinBox* s : findChildren<QSpinBox*>())
    connect(s, &QSpinBox::valueChanged, this, &FamilyForm::edited);
  for (QDoubleSpinBox* s : findChildren<QDoubleSpinBox*>())
    connect(s, &QDoubleSpinBox::valueChanged, this, &FamilyForm::edited);
  for (QComboBox* c : findChildren<QComboBox*>())
    connect(c, &QComboBox::currentIndexChanged, this, &FamilyForm::edited);
  for (QCheckBox* c : findChildren<QCheckBox*>())
    connect(c, &QCheckBox::toggled, this, &FamilyForm::edited);
  for (QLineEdit* e : findChildren<QLineEdit*>())
    connect(e, &QLineEdit::editingFinished, this, &FamilyForm::edited);
}

// ---- the registry ------------------------------------------------------------------------------

#define KL_FAMILY_FORM(entryFunction) FamilyFormEntry entryFunction();
#include "family_forms.def"
#undef KL_FAMILY_FORM

const std::vector<FamilyFormEntry>& familyForms() {
  static const std::vector<FamilyFormEntry> list = {
#define KL_FAMILY_FORM(entryFunction) entryFunction(),
#include "family_forms.def"
#undef KL_FAMILY_FORM
  };
  return list;
}

const FamilyFormEntry* familyFormFor(Family family) {
  for (const FamilyFormEntry& e : familyForms())
    for (Family f : e.families)
      if (f == family) return &e;
  return nullptr;
}

// ---- the generic form --------------------------------------------------------------------------

namespace {

// Every parameter of the family as text, in the CLI's syntax; empty fields keep the defaults.
class GenericForm final : public FamilyForm {
 public:
  GenericForm(Family family, QWidget* parent) : FamilyForm(parent) {
    setFamily(family);
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    if (const FamilyDescriptor* d = findFamily(family))
      for (const FamilyParameter& p : d->parameters) {
        auto* field = new QLineEdit(this);
        field->setToolTip(QString::fromStdString(p.help));
        field->setPlaceholderText(tr("default"));
        form->addRow(QString::fromStdString(p.title), field);
        fields_.push_back({p.name, field});
      }
    watchFields();
  }
  void setRequest(const RunRequest&) override {}
  ParameterValues values() const override {
    ParameterValues out;
    for (const auto& [name, field] : fields_)
      if (!field->text().trimmed().isEmpty())
        out.emplace_back(name, field->text().trimmed().toStdString());
    return out;
  }

 private:
  std::vector<std::pair<std::string, QLineEdit*>> fields_;
};

}  // namespace

FamilyForm* makeGenericForm(Family family, QWidget* parent) {
  return new GenericForm(family, parent);
}

}  // namespace kernellab::widgets
