// SPDX-License-Identifier: MIT
// Texts about requests and results.
#include "run_text.h"

#include <QCoreApplication>
#include <QObject>
#include <QRegularExpression>
#include <functional>

#include "kernellab/experiment.h"

namespace kernellab::app {

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

QString familyTitle(Family f) {
  switch (f) {
    case Family::Transpose: return QObject::tr("Matrix transpose");
    case Family::KMeans: return QObject::tr("k-means");
    case Family::KCenters: return QObject::tr("k-centers");
    case Family::Knn: return QObject::tr("Window KNN");
  }
  return {};
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
  QString s;
  switch (r.family) {
    case Family::Transpose:
      s = QObject::tr("transpose %1x%2 · TPB %3 · tile %4")
              .arg(r.transpose.width)
              .arg(r.transpose.height)
              .arg(r.launch.threadsPerBlock)
              .arg(r.launch.tile);
      break;
    case Family::KMeans:
    case Family::KCenters: {
      const auto& c = r.clustering;
      const QString data = c.inputPath.empty()
                               ? QObject::tr("N=%L1 K=%2 D=%3").arg(c.n).arg(c.k).arg(c.d)
                               : QObject::tr("%1, K=%2").arg(fromStd(c.inputPath).section('/', -1)).arg(c.k);
      s = QObject::tr("%1 %2 · TPB %3")
              .arg(r.family == Family::KMeans ? QStringLiteral("k-means") : QStringLiteral("k-centers"),
                   data)
              .arg(r.launch.threadsPerBlock);
      break;
    }
    case Family::Knn:
      s = QObject::tr("knn %1x%2x%3 window %4 k=%5 · TPB %6")
              .arg(r.knn.rows)
              .arg(r.knn.cols)
              .arg(r.knn.components)
              .arg(r.knn.window)
              .arg(r.knn.k)
              .arg(r.launch.threadsPerBlock);
      break;
  }
  return s;
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
  // Field names as the experiment panel labels them; options the panel has no field for stay.
  struct Term {
    const char* option;
    const char* field;
  };
  static const Term terms[] = {
      {"--tpb", QT_TRANSLATE_NOOP("PanelTerms", "Threads per block")},
      {"--tile", QT_TRANSLATE_NOOP("PanelTerms", "Tile")},
      {"--rows-per-thread", QT_TRANSLATE_NOOP("PanelTerms", "Rows per thread")},
      {"--block", QT_TRANSLATE_NOOP("PanelTerms", "Block shape")},
      {"--size", QT_TRANSLATE_NOOP("PanelTerms", "Matrix size (width x height)")},
      {"--n", QT_TRANSLATE_NOOP("PanelTerms", "N (points)")},
      {"--d", QT_TRANSLATE_NOOP("PanelTerms", "D (dimensions)")},
      {"--init", QT_TRANSLATE_NOOP("PanelTerms", "Initial centers")},
      {"--centers", QT_TRANSLATE_NOOP("PanelTerms", "Initial centers file")},
      {"--max-iter", QT_TRANSLATE_NOOP("PanelTerms", "Max iterations")},
      {"--epsilon", QT_TRANSLATE_NOOP("PanelTerms", "Epsilon")},
      {"--input", QT_TRANSLATE_NOOP("PanelTerms", "Points file")},
      {"--image", QT_TRANSLATE_NOOP("PanelTerms", "Image")},
      {"--window", QT_TRANSLATE_NOOP("PanelTerms", "Window rows")},
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
  replaceOption(QStringLiteral("--k"), family == Family::Knn ? QCoreApplication::translate("PanelTerms", "Neighbours k")
                                                             : QCoreApplication::translate("PanelTerms", "K (clusters)"));
  for (const Term& t : terms) replaceOption(QString::fromLatin1(t.option), QCoreApplication::translate("PanelTerms", t.field));
  return out;
}

}  // namespace kernellab::app
