// SPDX-License-Identifier: MIT
// Results table rows.
#include "results_table.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "chart_data_io.h"
#include "run_text.h"

namespace kernellab::app {

TableData buildResultsTable(const RunSelection& selection) {
  TableData t;
  t.headers = {QObject::tr("Run"),      QObject::tr("Configuration"), QObject::tr("Device"),
               QObject::tr("Variant"),  QObject::tr("Median (ms)"),   QObject::tr("Min (ms)"),
               QObject::tr("Max (ms)"), QObject::tr("GB/s"),          QObject::tr("Share of copy"),
               QObject::tr("Verified"), QObject::tr("Stopped"),       QObject::tr("Note")};
  auto num = [](double v, int decimals) { return QString::number(v, 'f', decimals); };
  // Times in fixed point with four significant digits: 13.98, 0.1352, 1235 (never "1.398e+01").
  auto ms = [](double v) {
    const double mag = v == 0 ? 0 : std::floor(std::log10(std::fabs(v)));
    return QString::number(v, 'f', std::clamp(3 - static_cast<int>(mag), 0, 6));
  };
  for (const RunRef& ref : selection.runs) {
    const RunResult& r = ref.run();
    const QString config = requestSummary(r.request);
    const QString device = deviceShort(r);
    if (r.variants.empty()) {
      t.rows << QStringList{ref.label, config,    device,    QString(),
                            QString(), QString(), QString(), QString(),
                            QString(), QString(), QString(), fromStd(r.message)};
      t.rowFailed << !r.ok;
      continue;
    }
    for (const VariantResult& v : r.variants) {
      QString verified = v.verification.performed
                             ? (v.verification.passed ? QObject::tr("yes (%L1 compared)").arg(v.verification.compared)
                                                      : QObject::tr("NO: %L1 mismatches").arg(v.verification.mismatches))
                             : QObject::tr("not checked");
      if (v.verification.passed && v.verification.approximate)
        verified = QObject::tr("approximate (%L1 labels not the nearest)")
                       .arg(qulonglong(v.verification.approximateMismatches));
      QString note = v.ok ? fromStd(v.verification.note) : fromStd(v.error);
      // k-means: why and after how many iterations it stopped (converged, score rule, limit).
      const QString stopped = v.ok && v.detail<ClusteringOutput>()
                                  ? fromStd(describeStop(v.detail<ClusteringOutput>()->stopReason,
                                                         v.detail<ClusteringOutput>()->iterations))
                                  : QString();
      t.rows << QStringList{ref.label,
                            config,
                            device,
                            variantTitle(r.request.family, v.variant),
                            v.ok ? ms(v.total.medianMs) : QString(),
                            v.ok ? ms(v.total.minMs) : QString(),
                            v.ok ? ms(v.total.maxMs) : QString(),
                            v.ok && v.gbps > 0 ? num(v.gbps, 1) : QString(),
                            v.ok && v.fractionOfCopyKernel > 0
                                ? num(v.fractionOfCopyKernel * 100.0, 1) + QStringLiteral(" %")
                                : QString(),
                            verified,
                            stopped,
                            note};
      t.rowFailed << (!v.ok || (v.verification.performed && !v.verification.passed));
    }
  }
  return t;
}

QString tableToCsv(const TableData& table) {
  QString out;
  QStringList head;
  for (const QString& h : table.headers) head << widgets::csvField(h);
  out += head.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (const QStringList& row : table.rows) {
    QStringList cells;
    for (const QString& c : row) cells << widgets::csvField(c);
    out += cells.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return out;
}

}  // namespace kernellab::app
