// SPDX-License-Identifier: MIT
// Texts about requests and results.
#include "run_text.h"

#include <QCoreApplication>
#include <QObject>
#include <QRegularExpression>
#include <functional>

#include "kernellab/experiment.h"
#include "kernellab/family.h"

namespace kernellab::app {

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

QString familyTitle(Family f) {
  const FamilyDescriptor* family = findFamily(f);
  return family ? fromStd(family->title) : fromStd(f.id());
}

QString variantTitle(Family f, const std::string& id) {
  for (const auto& v : describeVariants(f))
    if (v.id == id) return fromStd(v.title);
  return fromStd(id);
}

int variantColorIndex(Family f, const std::string& id) {
  const auto list = describeVariants(f);
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].id == id) return static_cast<int>(i);
  // Unknown ids (a file from a newer build) still get a stable colour, after the known ones.
  return 8 + static_cast<int>(std::hash<std::string>{}(id) % 16);
}

QString requestSummary(const RunRequest& r) {
  // The family's one summary, the same the CLI's table header says in full.
  const FamilyDescriptor* family = findFamily(r.family);
  return family ? fromStd(family->summary(r, false)) : fromStd(r.family.id());
}

QString deviceShort(const RunResult& r) {
  const QString name = fromStd(r.device.name);
  if (r.backend == "cuda") return name.isEmpty() ? QObject::tr("GPU") : name;
  return name.isEmpty() ? QObject::tr("CPU") : QObject::tr("CPU (%1)").arg(name);
}

QString clockTitle(const std::string& clock) {
  if (clock == "cuda-events") return QObject::tr("CUDA events");
  if (clock == "cpu-steady-clock") return QObject::tr("CPU steady clock");
  return fromStd(clock);
}

QString runStamp(const QString& label, const RunResult& run) {
  const QString when = fromStd(run.createdAt).replace(QLatin1Char('T'), QLatin1Char(' ')).remove(QLatin1Char('Z')).left(16);
  return QObject::tr("run %1 (%2), %3, %4 UTC").arg(label, requestSummary(run.request), deviceShort(run), when);
}

QString inPanelTerms(const QString& message, Family family) {
  // Field names as the experiment panel labels them: the family's parameters' titles (one
  // name for the CLI's option, the panel's field and the charts' axis), then the common
  // options; options the panel has no field for stay.
  struct Term {
    const char* option;
    const char* field;
  };
  static const Term common[] = {
      {"--reps", QT_TRANSLATE_NOOP("PanelTerms", "Repetitions")},
      {"--warmup", QT_TRANSLATE_NOOP("PanelTerms", "Warm-up runs")},
      {"--variant", QT_TRANSLATE_NOOP("PanelTerms", "Variant")},
      {"--backend", QT_TRANSLATE_NOOP("PanelTerms", "Backend")},
      {"--record-schedule", QT_TRANSLATE_NOOP("PanelTerms", "Record block schedule")},
      {"--family", QT_TRANSLATE_NOOP("PanelTerms", "Kernel family")},
  };
  QString out = message;
  auto replaceOption = [&](const QString& option, const QString& field) {
    // Whole options only: "--n" must not eat "--noise".
    const QRegularExpression re(QStringLiteral("%1(?![A-Za-z-])").arg(QRegularExpression::escape(option)));
    out.replace(re, field);
  };
  if (const FamilyDescriptor* f = findFamily(family))
    for (const FamilyParameter& p : f->parameters)
      replaceOption(QStringLiteral("--") + fromStd(p.name), fromStd(p.title));
  for (const FamilyParameter& p : commonParameters())
    replaceOption(QStringLiteral("--") + fromStd(p.name), fromStd(p.title));
  for (const Term& t : common)
    replaceOption(QString::fromLatin1(t.option),
                  QCoreApplication::translate("PanelTerms", t.field));
  return out;
}

}  // namespace kernellab::app
