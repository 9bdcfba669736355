// SPDX-License-Identifier: MIT
// Predictions against counters (model_vs_counters.h).
#include "model_vs_counters.h"

#include <cmath>

#include "kernellab/access_model.h"

namespace kernellab::app {
namespace {

struct Predicted {
  double ldSectors = 0, ldRequests = 0, stSectors = 0, stRequests = 0;
  double shLdExtra = 0, shLdRequests = 0, shStExtra = 0, shStRequests = 0;
};

Predicted predict(const access::WarpReport& rep) {
  Predicted p;
  for (const auto& r : rep.requests) {
    const bool load = r.kind == access::Kind::Load;
    if (r.space == access::Space::Global) {
      (load ? p.ldSectors : p.stSectors) += r.sectors;
      (load ? p.ldRequests : p.stRequests) += 1;
    } else {
      // A conflict is a pass beyond the fewest the words need (what ncu counts as a conflict).
      (load ? p.shLdExtra : p.shStExtra) += std::max(0, r.wavefronts - r.idealWavefronts);
      (load ? p.shLdRequests : p.shStRequests) += 1;
    }
  }
  return p;
}

QString kernelName(const std::string& name) {
  return QString::fromStdString(name.substr(0, name.find(' ')));
}

widgets::CounterComparison row(const QString& variant, const QString& kernel, const QString& what,
                               double predicted, double measured, const QString& note) {
  widgets::CounterComparison c;
  c.variant = variant;
  c.kernel = kernel;
  c.quantity = what;
  c.predicted = predicted;
  c.measured = measured;
  c.agrees = countersAgree(predicted, measured);
  c.note = note;
  return c;
}

}  // namespace

bool countersAgree(double predicted, double measured) {
  const double diff = std::abs(predicted - measured);
  return diff <= kCounterSlack || diff <= kCounterTolerance * std::max(std::abs(predicted), std::abs(measured));
}

bool hasCounters(const RunResult& run) {
  for (const auto& v : run.variants)
    if (!v.counters.empty()) return true;
  return false;
}

QVector<widgets::CounterComparison> accessComparison(const RunResult& run) {
  QVector<widgets::CounterComparison> out;
  const Family family = run.request.family;
  for (const VariantResult& v : run.variants) {
    if (v.counters.empty() || !access::canTrace(family, v.variant)) continue;
    std::vector<std::string> kernels;
    for (const auto& k : access::tracedKernels(family)) kernels.push_back(k.id);
    if (kernels.empty()) kernels.push_back(std::string());
    for (const std::string& kernel : kernels) {
      access::AccessQuery q;
      q.request = run.request;
      q.variant = v.variant;
      q.kernel = kernel;
      q.ccMajor = run.device.ccMajor > 0 ? run.device.ccMajor : 9;
      access::WarpReport rep;
      try {
        rep = access::analyze(q);  // block (0, 0): the grid's size
        q.block = {rep.gridDim.x / 2, rep.gridDim.y / 2};
        rep = access::analyze(q);  // the middle block: no edge
      } catch (const std::exception&) {
        continue;  // this kernel cannot be traced at this size: no prediction to show
      }
      const MeasuredCounters* m = countersFor(v.counters, rep.kernel);
      if (!m) continue;
      const Predicted p = predict(rep);
      const QString var = QString::fromStdString(v.variant), ker = kernelName(rep.kernel);
      const QString why = QObject::tr(
          "Model: warp 0 of block (%1, %2), from the kernel's own index functions; counters: every "
          "launch of the profiled run. Tolerance %3 % or %4. They differ where edges and other "
          "blocks behave otherwise, where the hardware merges requests, or where L1 serves a "
          "request the model counts.")
                              .arg(q.block.x).arg(q.block.y).arg(kCounterTolerance * 100).arg(kCounterSlack);
      if (p.ldRequests > 0 || m->globalLoadRequests > 0)
        out << row(var, ker, QObject::tr("global load sectors per request"),
                   p.ldRequests > 0 ? p.ldSectors / p.ldRequests : 0.0, m->loadSectorsPerRequest(), why);
      if (p.stRequests > 0 || m->globalStoreRequests > 0)
        out << row(var, ker, QObject::tr("global store sectors per request"),
                   p.stRequests > 0 ? p.stSectors / p.stRequests : 0.0, m->storeSectorsPerRequest(), why);
      if (p.shLdRequests > 0 || m->sharedLoadRequests > 0)
        out << row(var, ker, QObject::tr("shared load bank conflicts per request"),
                   p.shLdRequests > 0 ? p.shLdExtra / p.shLdRequests : 0.0, m->loadConflictsPerRequest(), why);
      if (p.shStRequests > 0 || m->sharedStoreRequests > 0)
        out << row(var, ker, QObject::tr("shared store bank conflicts per request"),
                   p.shStRequests > 0 ? p.shStExtra / p.shStRequests : 0.0, m->storeConflictsPerRequest(), why);
    }
  }
  return out;
}

QVector<widgets::CounterComparison> memoryComparison(const RunResult& run) {
  QVector<widgets::CounterComparison> out;
  for (const VariantResult& v : run.variants)
    for (const MeasuredCounters& m : v.counters) {
      const QString var = QString::fromStdString(v.variant), ker = QString::fromStdString(m.kernel);
      double ideal = 0;
      for (const KernelResult& k : v.kernels)
        if (kernelName(k.name) == ker) ideal = k.bytes * k.launches;
      if (ideal > 0) {
        auto c = row(var, ker, QObject::tr("DRAM bytes (read + written)"), ideal / 1e6,
                     (m.dramBytesRead + m.dramBytesWritten) / 1e6,
                     QObject::tr("Model: the bandwidth figures' ideal bytes (each input read once, "
                                 "each output written once) over %1 launch(es). More measured: "
                                 "re-reads L2 could not keep, partial sectors; less: L2 hits "
                                 "across launches.")
                         .arg(m.launches));
        c.unit = QStringLiteral("MB");
        out << c;
      }
      if (m.l2HitRatePct >= 0) {
        widgets::CounterComparison c;
        c.variant = var;
        c.kernel = ker;
        c.quantity = QObject::tr("L2 hit rate");
        c.measured = m.l2HitRatePct;
        c.unit = QStringLiteral("%");
        c.hasPrediction = false;
        c.note = QObject::tr("The models assume every byte comes from DRAM; the hit rate says how "
                             "much L2 served instead.");
        out << c;
      }
      if (m.threadsPerInstruction >= 0) {
        widgets::CounterComparison c;
        c.variant = var;
        c.kernel = ker;
        c.quantity = QObject::tr("warp execution efficiency");
        c.measured = 100.0 * m.warpExecutionEfficiency();
        c.unit = QStringLiteral("%");
        c.hasPrediction = false;
        c.note = QObject::tr("Active threads per executed warp instruction over 32: below 100 % "
                             "where lanes diverge or sit idle.");
        out << c;
      }
    }
  return out;
}

}  // namespace kernellab::app
