// SPDX-License-Identifier: MIT
// A family's page of the experiment panel, and the registry of those pages (family_forms.def,
// one line per family). A form shows its family's section of a request and gives its fields
// back as parameter values in the CLI's words ({"size", "2048x2048"}), so the window builds its
// request with the CLI's builder (kernellab::buildRequest) and checks it with the same rules.
// A family without a registered form gets a generic one: a text field per parameter.
#pragma once

#include <QString>
#include <QWidget>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernellab/family_id.h"
#include "kernellab/request.h"

class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace kernellab::widgets {

using ParameterValues = std::vector<std::pair<std::string, std::string>>;

// A spin box as the panel's fields are: group separators, accelerated steps.
QSpinBox* makeSpinBox(QWidget* parent, int lo, int hi, int step = 1);

class FamilyForm : public QWidget {
  Q_OBJECT
 public:
  explicit FamilyForm(QWidget* parent = nullptr);

  // The family shown: a form may serve several (k-means and k-centers share one).
  virtual void setFamily(kernellab::Family family);
  kernellab::Family family() const { return family_; }

  // Shows the request's section (a request without one shows its defaults).
  virtual void setRequest(const kernellab::RunRequest& request) = 0;
  // The fields as parameter values, in the family's parameter names.
  virtual ParameterValues values() const = 0;
  // The family's own launch fields (transpose's tile, KNN's block shape) for the panel's Launch
  // box, or nullptr; the panel takes ownership.
  virtual QWidget* launchFields() { return nullptr; }
  // Whether a block of `tpb` threads fits the form's launch (transpose: whole rows of the tile).
  virtual bool acceptsThreadsPerBlock(int tpb) const;
  // Whether the form's launch fields set the threads per block themselves (KNN's block shape):
  // the panel's threads per block is then left out of the request's values.
  virtual bool setsThreadsPerBlock() const { return false; }
  // What to fix before a run ("choose a points file"); empty when the form is complete.
  virtual QString problem() const { return {}; }
  // A data file the window opened (File > Open, a drop, the command line): true when the form
  // takes it into `request` (a clustering's points file).
  virtual bool takesDataFile(const QString& path, kernellab::RunRequest& request) const;

 signals:
  void edited();         // a field changed
  void launchChanged();  // the offered threads per block may have changed (the tile)

 protected:
  // Helpers for forms: a spin box that does not jump on the wheel unfocused (the panel filters),
  // a grey explanation under a field.
  static QSpinBox* spin(QWidget* parent, int lo, int hi, int step = 1);
  static QLabel* note(const QString& text, QWidget* parent);
  // Connects every field below this form to edited().
  void watchFields();

 private:
  kernellab::Family family_;
};

// One line of family_forms.def: the families a form serves, how to make it, and the window's
// view for their results ("clusters"; empty: the Timing view).
struct FamilyFormEntry {
  std::vector<kernellab::Family> families;
  std::function<FamilyForm*(QWidget* parent)> make;
  QString resultView;
};

// Every registered form (family_forms.def).
const std::vector<FamilyFormEntry>& familyForms();
// The entry serving `family`, or nullptr (the family then gets the generic form).
const FamilyFormEntry* familyFormFor(kernellab::Family family);
// A text field per parameter of the family (its title, its CLI help as the tooltip).
FamilyForm* makeGenericForm(kernellab::Family family, QWidget* parent);

}  // namespace kernellab::widgets
