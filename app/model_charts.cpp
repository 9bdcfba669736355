// SPDX-License-Identifier: MIT
// The model pages' charts.
#include "model_charts.h"

#include <QObject>
#include <algorithm>

#include "kernellab/knn.h"
#include "kernellab/transpose.h"
#include "published_baselines.h"
#include "run_text.h"
#include "view_style.h"

namespace kernellab::app {
namespace {

using widgets::ChartKind;
using widgets::ChartSeries;
using widgets::ChartSpec;

int transposeColor(const char* id) { return variantColorIndex(transpose::kFamily, id); }

}  // namespace

ChartSpec partitionShareChart(const schedule::Model& cart, const schedule::Model& diag, const QString& context) {
  ChartSpec c;
  c.id = QStringLiteral("partition-share");
  c.title = QObject::tr("Busiest memory partition per wave (schedule model): %1").arg(context);
  c.kind = ChartKind::Lines;
  c.xLabel = QObject::tr("Wave");
  c.yLabel = QObject::tr("Busiest partition's share of the wave's writes (%)");
  c.unit = QStringLiteral("%");
  auto series = [](const schedule::Model& m, const QString& name, int color) {
    ChartSeries s;
    s.name = name;
    s.colorIndex = color;
    for (const auto& w : m.waves) {
      s.x << w.wave + 1;
      s.y << 100.0 * w.worstWriteShare;
    }
    return s;
  };
  c.series << series(cart, QObject::tr("Cartesian blockIdx"), transposeColor("padded"))
           << series(diag, QObject::tr("Diagonal blockIdx"), transposeColor("diagonal"));
  const int partitions = cart.config.partitions.count;
  c.notes << QObject::tr("%1 partitions of %2 B (%3): perfectly even is %4 %, 100 % means every write of "
                         "the wave queues at one partition. A model, not a measurement.")
                 .arg(partitions)
                 .arg(cart.config.partitions.widthBytes)
                 .arg(cart.config.partitions.mapping == schedule::PartitionMapping::Hashed
                          ? QObject::tr("hashed, illustrative")
                          : QObject::tr("linear"))
                 .arg(100.0 / std::max(1, partitions), 0, 'f', 1);
  return c;
}

ChartSpec waveLoadChart(const schedule::Model& cart, const schedule::Model& diag, int wave, const QString& context) {
  ChartSpec c;
  c.id = QStringLiteral("wave-load");
  c.title = QObject::tr("Writes per memory partition in wave %1 (schedule model): %2").arg(wave + 1).arg(context);
  c.kind = ChartKind::GroupedBars;
  c.xLabel = QObject::tr("Memory partition");
  c.yLabel = QObject::tr("Written in this wave (KiB)");
  c.unit = QStringLiteral("KiB");
  for (int p = 0; p < cart.config.partitions.count; ++p) c.categories << QString::number(p);
  auto series = [&](const schedule::Model& m, const QString& name, int color) {
    ChartSeries s;
    s.name = name;
    s.colorIndex = color;
    if (wave >= 0 && wave < static_cast<int>(m.waves.size())) {
      const auto& w = m.waves[static_cast<size_t>(wave)];
      for (size_t p = 0; p < w.writeBytes.size(); ++p) {
        s.x << static_cast<double>(p);
        s.y << static_cast<double>(w.writeBytes[p]) / 1024.0;
      }
    }
    return s;
  };
  c.series << series(cart, QObject::tr("Cartesian blockIdx"), transposeColor("padded"))
           << series(diag, QObject::tr("Diagonal blockIdx"), transposeColor("diagonal"));
  c.notes << QObject::tr("Bytes of the output tiles the wave's blocks write, by the partition they fall in. A model.");
  return c;
}

ChartSpec recordedConcurrencyChart(const RunResult& run) {
  ChartSpec c;
  c.id = QStringLiteral("gantt-concurrency");
  c.title = QObject::tr("Blocks running at once (recorded with %smid / %globaltimer on %1)").arg(fromStd(run.device.name));
  c.kind = ChartKind::Lines;
  c.xLabel = QObject::tr("Time since the variant's first block started (us)");
  c.yLabel = QObject::tr("Blocks running (blocks)");
  c.unit = QObject::tr("blocks");
  constexpr int kSamples = 240;
  for (const VariantResult& v : run.variants) {
    if (v.schedule.empty()) continue;
    const auto summary = schedule::summarizeRecorded(v.schedule);
    const double span = std::max<double>(1.0, static_cast<double>(summary.endNs - summary.startNs));
    // Start and end events; the count after each event, sampled on a regular grid.
    std::vector<std::pair<uint64_t, int>> events;
    events.reserve(v.schedule.size() * 2);
    for (const BlockRecord& b : v.schedule) {
      events.push_back({b.startNs, +1});
      events.push_back({b.endNs, -1});
    }
    std::sort(events.begin(), events.end());  // an end (-1) sorts before a start at the same time
    ChartSeries s;
    s.name = QObject::tr("%1 (%2 blocks, recording +%3 %)")
                 .arg(variantTitle(run.request.family, v.variant))
                 .arg(v.schedule.size())
                 .arg(v.scheduleOverheadPct, 0, 'f', 1);
    s.colorIndex = variantColorIndex(run.request.family, v.variant);
    size_t e = 0;
    int running = 0;
    for (int i = 0; i <= kSamples; ++i) {
      const double t = span * i / kSamples;
      const uint64_t at = summary.startNs + static_cast<uint64_t>(t);
      while (e < events.size() && events[e].first <= at) running += events[e++].second;
      s.x << t / 1000.0;
      s.y << running;
    }
    c.series << s;
  }
  c.notes << QObject::tr("Counted from the recorded start and end of every block; the overhead is the "
                         "instrumented kernel's median against the uninstrumented one in the same run.");
  return c;
}

QVector<ChartSpec> accessCharts(const QVector<access::WarpReport>& reports, const QString& context) {
  ChartSpec sectors;
  sectors.id = QStringLiteral("sectors");
  sectors.title = QObject::tr("Global-memory sectors one warp needs (access model): %1").arg(context);
  sectors.kind = ChartKind::GroupedBars;
  sectors.xLabel = QObject::tr("Variant");
  sectors.yLabel = QObject::tr("32-byte sectors per warp (sectors)");
  sectors.unit = QObject::tr("sectors");
  ChartSpec shared = sectors;
  shared.id = QStringLiteral("shared-memory");
  shared.title = QObject::tr("Shared-memory passes one warp needs (access model): %1").arg(context);
  shared.yLabel = QObject::tr("Shared-memory wavefronts per warp (passes)");
  shared.unit = QObject::tr("passes");
  ChartSeries actual, ideal, sharedActual, sharedIdeal;
  actual.name = QObject::tr("Needed");
  actual.colorIndex = 3;
  ideal.name = QObject::tr("Ideal (the useful bytes, packed)");
  ideal.colorIndex = 2;
  sharedActual.name = QObject::tr("Needed (bank conflicts included)");
  sharedActual.colorIndex = 3;
  sharedIdeal.name = QObject::tr("Ideal (one per request)");
  sharedIdeal.colorIndex = 2;
  int sharedColumn = 0;
  for (int i = 0; i < reports.size(); ++i) {
    const access::WarpReport& r = reports[i];
    const QString name =
        variantTitle(familyFromString(r.family).value_or(transpose::kFamily), r.variant);
    sectors.categories << name;
    actual.x << i;
    actual.y << r.warpTotals.sectors;
    actual.notes << QObject::tr("%1 global requests, %2 % efficiency").arg(r.warpTotals.globalRequests).arg(100.0 * r.warpTotals.efficiency, 0, 'f', 1);
    ideal.x << i;
    ideal.y << r.warpTotals.idealSectors;
    if (r.warpTotals.sharedRequests > 0) {
      shared.categories << name;
      sharedActual.x << sharedColumn;
      sharedActual.y << r.warpTotals.wavefronts;
      sharedActual.notes << QObject::tr("worst %1-way conflict").arg(r.warpTotals.maxConflict);
      sharedIdeal.x << sharedColumn;
      sharedIdeal.y << r.warpTotals.idealWavefronts;
      ++sharedColumn;
    }
  }
  sectors.series << actual << ideal;
  shared.series << sharedActual << sharedIdeal;
  QVector<ChartSpec> out;
  if (!reports.isEmpty()) {
    const auto& first = reports.front();
    sectors.notes << QObject::tr("Block (%1, %2), warp %3; computed from the kernels' own index functions, not measured.")
                         .arg(first.block.x).arg(first.block.y).arg(first.warp);
    shared.notes << QObject::tr("%1 banks of %2 B%3; a request takes as many passes as its worst bank has distinct words.")
                        .arg(first.memory.banks).arg(first.memory.bankBytes)
                        .arg(first.memory.halfWarpBanks ? QObject::tr(" per half-warp (cc 1.x)") : QString());
    out << sectors;
    if (sharedColumn > 0) out << shared;
  }
  return out;
}

QVector<ChartSpec> occupancyCharts(const occupancy::ArchSpec& arch, const occupancy::Input& input) {
  const occupancy::Charts data = occupancy::charts(arch, input);
  const QString archName = fromStd(arch.name);
  auto chart = [&](const char* id, const QString& what, const QString& xLabel,
                   const std::vector<occupancy::ChartPoint>& points, double xScale) {
    ChartSpec c;
    c.id = QString::fromLatin1(id);
    c.title = QObject::tr("Occupancy against %1 on %2").arg(what, archName);
    c.kind = ChartKind::Lines;
    c.xLabel = xLabel;
    c.yLabel = QObject::tr("Occupancy (% of the SM's warps)");
    c.unit = QStringLiteral("%");
    ChartSeries s;
    s.name = QObject::tr("Calculator");
    for (const auto& p : points) {
      s.x << p.x * xScale;
      s.y << 100.0 * p.occupancy;
      s.notes << QObject::tr("%1 blocks, %2 warps per SM").arg(p.activeBlocks).arg(p.activeWarps);
    }
    c.series << s;
    c.notes << QObject::tr("The other inputs held at %1 threads per block, %2 registers per thread, %3 B of shared memory per block.")
                   .arg(input.threadsPerBlock).arg(input.registersPerThread).arg(input.sharedBytesPerBlock);
    return c;
  };
  return {chart("threads", QObject::tr("threads per block"), QObject::tr("Threads per block (threads)"), data.byThreads, 1.0),
          chart("registers", QObject::tr("registers per thread"), QObject::tr("Registers per thread (registers)"), data.byRegisters, 1.0),
          chart("shared-memory", QObject::tr("shared memory per block"), QObject::tr("Shared memory per block (KiB)"), data.bySharedMemory, 1.0 / 1024.0)};
}

ChartSpec occupancyDeviceChart(const std::vector<occupancy::DeviceCheck>& checks, const QString& device) {
  ChartSpec c;
  c.id = QStringLiteral("device");
  c.title = QObject::tr("Blocks per SM: the CUDA occupancy API on %1 next to the calculator").arg(device);
  c.kind = ChartKind::GroupedBars;
  c.xLabel = QObject::tr("Variant: kernel");
  c.yLabel = QObject::tr("Resident blocks per SM (blocks)");
  c.unit = QObject::tr("blocks");
  ChartSeries api, calc;
  api.name = QObject::tr("cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  api.colorIndex = 0;
  calc.name = QObject::tr("Calculator");
  calc.colorIndex = 1;
  int agree = 0;
  for (size_t i = 0; i < checks.size(); ++i) {
    const auto& k = checks[i];
    c.categories << QStringLiteral("%1: %2").arg(fromStd(k.variant), fromStd(k.kernel));
    const QString note = QObject::tr("%1 threads, %2 registers, %3 B shared").arg(k.input.threadsPerBlock).arg(k.input.registersPerThread).arg(k.input.sharedBytesPerBlock);
    api.x << static_cast<double>(i);
    api.y << k.deviceBlocks;
    api.notes << note;
    calc.x << static_cast<double>(i);
    calc.y << k.calculatorBlocks;
    calc.notes << note;
    agree += k.match ? 1 : 0;
  }
  if (checks.empty()) return c;
  c.series << api << calc;
  c.notes << QObject::tr("They agree on %1 of %2 kernels.").arg(agree).arg(checks.size());
  return c;
}

QVector<ChartSpec> knnCharts(const RunResult& run) {
  ChartSpec time;
  time.id = QStringLiteral("time");
  time.title = QObject::tr("KNN time per variant on %1 (%2x%3x%4, window %5, k %6)")
                   .arg(deviceShort(run))
                   .arg(run.request.section<KnnProblem>().rows)
                   .arg(run.request.section<KnnProblem>().cols)
                   .arg(run.request.section<KnnProblem>().components)
                   .arg(run.request.section<KnnProblem>().window)
                   .arg(run.request.section<KnnProblem>().k);
  time.kind = ChartKind::GroupedBars;
  time.xLabel = QObject::tr("Variant");
  time.yLabel = QObject::tr("Time (ms)");
  time.unit = QStringLiteral("ms");
  ChartSpec shared = time;
  shared.id = QStringLiteral("shared-memory");
  shared.title = QObject::tr("KNN shared memory per block");
  shared.yLabel = widgets::sharedMemoryAxisLabel();
  shared.unit = QStringLiteral("KiB");
  ChartSpec blocks = time;
  blocks.id = QStringLiteral("blocks");
  blocks.title = QObject::tr("KNN resident blocks per SM (CUDA occupancy API)");
  blocks.yLabel = QObject::tr("Resident blocks per SM (blocks)");
  blocks.unit = QObject::tr("blocks");
  QString clock;
  for (size_t i = 0; i < run.variants.size(); ++i) {
    const VariantResult& v = run.variants[i];
    const QString name = variantTitle(knn::kFamily, v.variant);
    for (ChartSpec* c : {&time, &shared, &blocks}) c->categories << name;
    ChartSeries s;
    s.name = name;
    s.colorIndex = variantColorIndex(knn::kFamily, v.variant);
    if (v.ok && v.total.samples > 0) {
      ChartSeries t = s;
      t.x << static_cast<double>(i);
      t.y << v.total.medianMs;
      t.low << v.total.minMs;
      t.high << v.total.maxMs;
      time.series << t;
      if (clock.isEmpty()) clock = clockTitle(v.total.clock);
    }
    if (v.detail<KnnDetails>()) {
      ChartSeries m = s;
      m.x << static_cast<double>(i);
      m.y << static_cast<double>(v.detail<KnnDetails>()->sharedBytesPerBlock) /
                 widgets::kBytesPerKiB;
      shared.series << m;
    }
    if (!v.kernels.empty() && v.kernels.front().resources) {
      ChartSeries b = s;
      b.x << static_cast<double>(i);
      b.y << v.kernels.front().resources->maxActiveBlocksPerSM;
      blocks.series << b;
    }
  }
  time.notes << QObject::tr("Median of %1 repetitions with min-max whiskers; clock: %2.").arg(run.request.repetitions).arg(clock);
  if (run.backend == "cpu") {
    // Beside a CPU run, what the GPU does: KernelLab's own H200 run of every variant.
    bool reference = false;
    for (const PublishedTable* t : gpuReference().forFamily(knn::kFamily)) {
      for (const PublishedSeries& ps : t->series) {
        const int c = static_cast<int>(
            time.categories.indexOf(variantTitle(knn::kFamily, ps.variant.toStdString())));
        if (c < 0 || ps.values.isEmpty()) continue;
        ChartSeries s;
        s.name = QObject::tr("%1: %2").arg(referenceLabel(*t),
                                           variantTitle(knn::kFamily, ps.variant.toStdString()));
        s.colorIndex = variantColorIndex(knn::kFamily, ps.variant.toStdString());
        s.published = s.reference = true;
        s.source = t->source;
        s.x << c;
        s.y << ps.values.front();
        s.notes << t->problem;
        time.series << s;
        reference = true;
      }
      if (reference)
        time.notes << QObject::tr("Cross-hatched bars: KernelLab on an NVIDIA H200, measured %1 (%2), not in this run: %3")
                          .arg(t->measured, t->problem, t->source);
    }
    time.notes << QObject::tr("CPU backend: times of the CPU executor running the kernels' index functions on CPU threads, "
                              "not GPU times; on a CPU the ranking of the variants can reverse.");
  }
  QVector<ChartSpec> out;
  for (const ChartSpec& c : {time, shared, blocks})
    if (!c.isEmpty()) out << c;
  return out;
}

}  // namespace kernellab::app
