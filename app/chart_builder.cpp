// SPDX-License-Identifier: MIT
// Results -> chart specs.
#include "chart_builder.h"

#include <QObject>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"
#include "run_text.h"
#include "view_style.h"

namespace kernellab::app {
namespace {

using widgets::ChartKind;
using widgets::ChartSeries;
using widgets::ChartSpec;
using widgets::SpeedupEntry;

constexpr int kCeilingColor = 7;  // grey in the shared palette
// Measured and reference values this far apart get a logarithmic axis (logWhenScalesApart).
constexpr double kLogScaleRatio = 30.0;
// A variant whose slowest repetition took this many times its fastest gets a note (measuredNotes).
constexpr double kNotableSpread = 1.5;

struct Field {
  QString id;
  QString title;
  std::function<QString(const RunResult&)> label;
  std::function<double(const RunResult&)> number;  // NaN: not numeric
};

// What can tell runs apart on the x axis: threads per block, the family's parameters that name a
// chart category (its descriptor's: tile and size, N, K and D, window and image), the device.
QVector<Field> fieldsFor(Family f) {
  const double nan = std::nan("");
  QVector<Field> out;
  auto add = [&](const FamilyParameter& p) {
    if (!p.label) return;
    const auto label = p.label;
    const auto number = p.number;
    out.push_back({fromStd(p.name), fromStd(p.title),
                   [label](const RunResult& r) { return fromStd(label(r.request)); },
                   [number, nan](const RunResult& r) { return number ? number(r.request) : nan; }});
  };
  for (const FamilyParameter& p : commonParameters()) add(p);
  if (const FamilyDescriptor* d = findFamily(f))
    for (const FamilyParameter& p : d->parameters) add(p);
  out.push_back({QStringLiteral("device"), QObject::tr("Device"),
                 [](const RunResult& r) { return deviceShort(r); }, [nan](const RunResult&) { return nan; }});
  return out;
}

// Categories that may gain published entries; measured ones sort by number when the plan is
// numeric, published-only ones (other devices) stay at the end in the order added.
struct Categories {
  QStringList labels;
  QVector<double> numbers;
  QVector<bool> tail;
  bool numeric = false;

  int add(const QString& label, double number, bool atTail) {
    const int i = static_cast<int>(labels.indexOf(label));
    if (i >= 0) return i;
    labels << label;
    numbers << number;
    tail << atTail;
    return static_cast<int>(labels.size()) - 1;
  }
  // Sorts and renumbers every series' x.
  void finish(QVector<ChartSeries>& series) {
    QVector<int> order(labels.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      if (tail[a] != tail[b]) return !tail[a];
      if (numeric && !tail[a]) return numbers[a] < numbers[b];
      return false;
    });
    QVector<int> newIndex(labels.size());
    QStringList sorted;
    for (int i = 0; i < order.size(); ++i) {
      newIndex[order[i]] = i;
      sorted << labels[order[i]];
    }
    labels = sorted;
    for (auto& s : series)
      for (double& x : s.x) x = newIndex[static_cast<int>(x)];
  }
};

bool knownVariant(Family f, const std::string& id) {
  for (const auto& v : describeVariants(f))
    if (v.id == id) return true;
  return false;
}

Family familyOf(const RunSelection& sel, const ChartOptions& opt) {
  const QVector<Family> present = familiesOf(sel);
  if (opt.family && present.contains(*opt.family)) return *opt.family;
  return present.isEmpty() ? opt.emptyFamily : present.front();
}

bool anyCpu(const QVector<const RunRef*>& runs) {
  for (const RunRef* r : runs)
    if (r->run().backend == "cpu") return true;
  return false;
}

// The reference tables shown beside these runs: KernelLab's H200 set, when a CPU run is charted.
QVector<const PublishedTable*> referenceTables(const QVector<const RunRef*>& runs, Family family,
                                               const ChartOptions& opt, const PublishedBaselines& ref) {
  if (!opt.showGpuReference || !anyCpu(runs)) return {};
  return ref.forFamily(family);
}

QString referenceDate(const PublishedBaselines& ref) {
  for (const PublishedTable& t : ref.tables)
    if (!t.measured.isEmpty()) return t.measured;
  return {};
}

// Every chart of a CPU run says so: the CPU executor can reverse a GPU lesson.
QString cpuNote(bool referenceShown, const QString& referenceDate) {
  QString note = QObject::tr("CPU backend: times of the CPU executor running the kernels' index functions on CPU "
                             "threads, not GPU times. On a CPU the ranking of the variants can reverse: its caches "
                             "hide what uncoalesced accesses and bank conflicts cost a GPU.");
  if (referenceShown)
    note += QLatin1Char(' ') + QObject::tr("Cross-hatched: KernelLab's own runs on an NVIDIA H200 (measured %1), "
                                           "what the GPU does.").arg(referenceDate);
  else
    note += QLatin1Char(' ') + QObject::tr("KernelLab's H200 figures (measured %1) are in docs/BENCHMARKS.md.").arg(referenceDate);
  return note;
}

QString verifiedText(const VariantResult& v) {
  if (!v.verification.performed) return QObject::tr("not verified");
  if (v.verification.passed && v.verification.approximate)
    return QObject::tr("approximate labels: %L1 not the nearest center")
        .arg(qulonglong(v.verification.approximateMismatches));
  return v.verification.passed ? QObject::tr("verified") : QObject::tr("VERIFICATION FAILED: %1")
                                                                .arg(fromStd(v.verification.note));
}

QString pointNote(const RunRef& ref, const VariantResult& v) {
  const RunResult& r = ref.run();
  QString note = QObject::tr("run %1 · %2 · %3 repetitions (%4) · %5")
                     .arg(ref.label, deviceShort(r))
                     .arg(v.total.samples)
                     .arg(clockTitle(v.total.clock), verifiedText(v));
  // The best transpose says how it moved this shape (a size sweep shows the strategy change).
  if (!v.strategy.empty())
    note += QObject::tr(" · strategy %1").arg(QString::fromStdString(v.strategy));
  return note;
}

// Variant series in describeVariants order, then unknown ids in order of appearance.
struct SeriesBook {
  Family family;
  std::map<std::string, int> index;
  QVector<ChartSeries> series;
  QVector<std::string> ids;

  ChartSeries& at(const std::string& id, const QString& suffix = {}) {
    const std::string key = id + suffix.toStdString();
    auto it = index.find(key);
    if (it != index.end()) return series[it->second];
    ChartSeries s;
    s.name = variantTitle(family, id) + suffix;
    s.colorIndex = variantColorIndex(family, id);
    index[key] = static_cast<int>(series.size());
    series.push_back(s);
    ids.push_back(id);
    return series.back();
  }
  QVector<ChartSeries> ordered() const {
    const auto known = describeVariants(family);
    QVector<int> order(series.size());
    std::iota(order.begin(), order.end(), 0);
    auto rank = [&](int i) {
      for (size_t k = 0; k < known.size(); ++k)
        if (known[k].id == ids[i]) return static_cast<int>(k);
      return 1000 + i;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      if (series[a].published != series[b].published) return !series[a].published;
      return rank(a) < rank(b);
    });
    QVector<ChartSeries> out;
    for (int i : order) out << series[i];
    return out;
  }
};

QStringList measuredNotes(const QVector<const RunRef*>& runs, bool referenceShown = false,
                          const QString& date = referenceDate(gpuReference())) {
  QStringList notes;
  if (runs.isEmpty()) return notes;
  QSet<QString> devices;
  bool cpu = false;
  QStringList profiled;
  int reps = 0, warm = 0;
  QString clock;
  for (const RunRef* r : runs) {
    devices.insert(deviceShort(r->run()));
    cpu = cpu || r->run().backend == "cpu";
    if (r->run().profile) profiled << r->label;
    reps = r->run().request.repetitions;
    warm = r->run().request.warmup;
    for (const auto& v : r->run().variants)
      if (!v.total.clock.empty()) clock = clockTitle(v.total.clock);
  }
  QStringList deviceList = devices.values();
  deviceList.sort();
  notes << QObject::tr("Measured on %1 (%2): median of %3 timed repetitions after %4 warm-up; whiskers show min and max.")
               .arg(deviceList.join(QStringLiteral(", ")), clock.isEmpty() ? QObject::tr("no timings") : clock)
               .arg(reps)
               .arg(warm);
  // How far the repetitions scatter: a 2x whisker beside a bar reads as a finding unless said.
  double spread = 1.0;
  QString widest;
  for (const RunRef* r : runs)
    for (const auto& v : r->run().variants)
      if (v.ok && v.total.minMs > 0 && v.total.maxMs / v.total.minMs > spread) {
        spread = v.total.maxMs / v.total.minMs;
        widest = QStringLiteral("%1, run %2").arg(variantTitle(r->run().request.family, v.variant), r->label);
      }
  if (spread >= kNotableSpread)
    notes << QObject::tr("The repetitions scatter: the slowest took up to %1x the fastest (%2)%3. Read the medians; "
                         "more repetitions steady them, and the whiskers then show the outliers.")
                 .arg(spread, 0, 'f', 1)
                 .arg(widest, cpu ? QObject::tr(", as on a CPU whose cores other processes share")
                                  : QString());
  if (cpu) notes << cpuNote(referenceShown, date);
  // A profiled run's kernels were replayed under Nsight Compute to read the counters: its times
  // say nothing about speed (issue 13). Said first, before anything is read off the bars.
  if (!profiled.isEmpty())
    notes.prepend(QObject::tr("Profiled run %1: every variant ran alone under Nsight Compute, its kernels "
                              "replayed to read the GPU's counters. These times are the profiler's, "
                              "not benchmark times: read the counters (Access, Occupancy and the table "
                              "below), and time with kernellab-cli run or bench.")
                      .arg(profiled.join(QStringLiteral(", "))));
  return notes;
}

// Published and reference series of a chart: the legend and the caption say which is which.
bool hasSeries(const ChartSpec& spec, bool reference) {
  for (const auto& s : spec.series)
    if (s.published && s.reference == reference) return true;
  return false;
}

void captionFor(ChartSpec& spec, const QVector<const RunRef*>& runs, const QString& referenceDate) {
  spec.caption = runsCaption(runs);
  QStringList also;
  if (hasSeries(spec, false)) also << QObject::tr("hatched: published figures");
  if (hasSeries(spec, true)) also << QObject::tr("cross-hatched: KernelLab on an NVIDIA H200, measured %1").arg(referenceDate);
  if (!also.isEmpty()) spec.caption += QStringLiteral("; ") + also.join(QStringLiteral("; "));
}

// Whether every run solved the table's own problem: each number of it equal to the field of that
// name in the run's request (its family's section, "clustering": {"n": ...}). Only then may the
// table's times stand on the same millisecond axis as the runs': a time depends on the problem's
// size, and an H200 at N = 1e6 beside a CPU at N = 20,000 read as the GPU being 40x slower.
bool sameProblem(const PublishedTable& t, const QVector<const RunRef*>& runs) {
  if (t.problemValues.isEmpty() || runs.isEmpty()) return false;
  for (const RunRef* r : runs) {
    const nlohmann::json request = r->run().request;
    for (auto it = t.problemValues.begin(); it != t.problemValues.end(); ++it) {
      bool found = false;
      for (const auto& section : request.items()) {
        if (!section.value().is_object()) continue;
        const auto field = section.value().find(it.key().toStdString());
        if (field == section.value().end() || !field->is_number()) continue;
        if (field->get<double>() != it.value()) return false;
        found = true;
      }
      if (!found) return false;
    }
  }
  return true;
}

// Published and reference times of the table over its TPB axis, as hatched series of `book`.
void addTableTimes(const PublishedTable& t, bool sameAxis, SeriesBook& book, Categories& cats,
                   QVector<SpeedupEntry>& speedups, ChartSpec& spec) {
  const QString who = t.ownMeasurement ? referenceLabel(t) : QObject::tr("published, %1").arg(t.device);
  for (const PublishedSeries& ps : t.series) {
    ChartSeries& s = book.at(ps.variant.toStdString(), QStringLiteral(" (%1)").arg(who));
    s.name = t.ownMeasurement ? QObject::tr("%1: %2").arg(who, ps.label) : QObject::tr("Published (%1): %2").arg(t.device, ps.label);
    // Variants this build does not know yet still get distinct colours: the table's order.
    if (!knownVariant(book.family, ps.variant.toStdString())) s.colorIndex = static_cast<int>(&ps - t.series.data());
    s.published = true;
    s.reference = t.ownMeasurement;
    s.source = t.source;
    for (int i = 0; i < t.axisValues.size() && i < ps.values.size(); ++i) {
      const int tpb = static_cast<int>(t.axisValues[i]);
      const QString label = sameAxis ? QStringLiteral("TPB %1").arg(tpb)
                                     : QStringLiteral("%1 · TPB %2").arg(t.device).arg(tpb);
      s.x << cats.add(label, tpb, !sameAxis);
      s.y << ps.values[i];
      s.notes << QObject::tr("%1, %2").arg(t.shortSource, t.problem);
      speedups.push_back({QObject::tr("%1 (%2) · TPB %3").arg(ps.label, who).arg(tpb), ps.values[i], true,
                          QStringLiteral("%1|%2").arg(t.id).arg(tpb)});
    }
  }
  if (t.ownMeasurement)
    spec.notes << QObject::tr("Cross-hatched bars: KernelLab on an NVIDIA H200, measured %1 (%2), not in these runs: %3")
                      .arg(t.measured, t.problem, t.source);
  else
    spec.notes << QObject::tr("Hatched bars: published figures, not measured here (%1; %2): %3")
                      .arg(t.problem, t.device, t.source);
  spec.notes << t.notes;
}

// `apart`: the time tables left out because the runs solved another problem (referenceTimeChart).
ChartSpec timeChart(const QVector<const RunRef*>& runs, const CategoryPlan& plan, Family family,
                    const ChartOptions& opt, const PublishedBaselines& pub, const PublishedBaselines& gpuSet,
                    QVector<SpeedupEntry>& speedups, QVector<const PublishedTable*>& apart) {
  ChartSpec spec;
  spec.id = QStringLiteral("time");
  spec.title = QObject::tr("Time per variant: %1").arg(familyTitle(family));
  spec.kind = ChartKind::GroupedBars;
  spec.xLabel = plan.axisTitle;
  spec.yLabel = widgets::timeAxisLabel();
  spec.unit = QStringLiteral("ms");
  Categories cats;
  cats.numeric = !plan.numericField.isEmpty();
  for (int c = 0; c < plan.categories.size(); ++c) {
    double number = 0;
    for (int r = 0; r < runs.size(); ++r)
      if (plan.categoryOfRun[r] == c && r < plan.numberOfRun.size()) number = plan.numberOfRun[r];
    cats.add(plan.categories[c], number, false);
  }
  SeriesBook book{family, {}, {}, {}};
  QStringList failures;
  for (int r = 0; r < runs.size(); ++r) {
    const RunRef& ref = *runs[r];
    // Like with like: one group per category (what differs between the runs) and device.
    const QString group = QStringLiteral("%1|%2").arg(plan.categories.value(plan.categoryOfRun[r]), deviceShort(ref.run()));
    for (const VariantResult& v : ref.run().variants) {
      if (!v.ok) {
        failures << QObject::tr("%1 in run %2: %3").arg(variantTitle(family, v.variant), ref.label, fromStd(v.error));
        continue;
      }
      ChartSeries& s = book.at(v.variant);
      s.x << plan.categoryOfRun[r];
      s.y << v.total.medianMs;
      s.low << v.total.minMs;
      s.high << v.total.maxMs;
      s.notes << pointNote(ref, v);
      QString label = variantTitle(family, v.variant);
      if (plan.categories.size() > 1) label += QStringLiteral(" · ") + plan.categories[plan.categoryOfRun[r]];
      speedups.push_back({label, v.total.medianMs, false, group, v.variant == "copy"});
    }
  }
  const QVector<const PublishedTable*> refs = referenceTables(runs, family, opt, gpuSet);
  // The CPU note speaks of the cross-hatched bars only when this chart draws them.
  bool refsDrawn = false;
  for (const PublishedTable* t : refs)
    refsDrawn = refsDrawn || (t->metric == QLatin1String("time_ms") && t->axis == QLatin1String("tpb") &&
                              sameProblem(*t, runs));
  spec.notes = measuredNotes(runs, refsDrawn, referenceDate(gpuSet));
  QVector<const PublishedTable*> tables;
  if (opt.showPublished) tables += pub.forFamily(family);
  tables += refs;
  for (const PublishedTable* t : tables) {
    if (t->metric != QLatin1String("time_ms") || t->axis != QLatin1String("tpb")) continue;
    if (!sameProblem(*t, runs)) {
      apart << t;  // another problem's times: their own chart
      continue;
    }
    const bool sameAxis = plan.numericField == QLatin1String("tpb") || runs.size() <= 1 || plan.categories.isEmpty();
    addTableTimes(*t, sameAxis, book, cats, speedups, spec);
    if (sameAxis && plan.categories.isEmpty()) spec.xLabel = QObject::tr("Threads per block");
  }
  if (!apart.isEmpty())
    spec.notes << QObject::tr("The published and H200 times of this family are in the chart \"Times on their own "
                              "problem\": they solved %1, not these runs' problem, and a time depends on the "
                              "problem's size.")
                      .arg(apart.front()->problem);
  if (!failures.isEmpty()) spec.notes << QObject::tr("Not shown (failed): %1").arg(failures.join(QStringLiteral("; ")));
  spec.series = book.ordered();
  cats.finish(spec.series);
  spec.categories = cats.labels;
  captionFor(spec, runs, referenceDate(gpuSet));
  return spec;
}

// Measured categories; beside published devices each says which device it ran on.
Categories measuredCategories(const QVector<const RunRef*>& runs, const CategoryPlan& plan,
                              bool besideDevices, QString& xLabel) {
  Categories cats;
  cats.numeric = !plan.numericField.isEmpty();
  const bool prefix = besideDevices && !plan.axisTitle.contains(QObject::tr("Device"));
  for (int c = 0; c < plan.categories.size(); ++c) {
    double number = 0;
    QString label = plan.categories[c];
    for (int r = 0; r < runs.size(); ++r) {
      if (plan.categoryOfRun[r] != c) continue;
      if (r < plan.numberOfRun.size()) number = plan.numberOfRun[r];
      if (prefix) {
        const RunResult& run = runs[r]->run();
        label = QStringLiteral("%1 · %2").arg(run.backend == "cuda" ? fromStd(run.device.name) : QObject::tr("CPU"),
                                              plan.categories[c]);
      }
    }
    cats.add(label, number, false);
  }
  if (besideDevices) xLabel = QObject::tr("Measured: device · %1; others: device").arg(plan.axisTitle.toLower());
  return cats;
}

// Transpose bandwidth tables by device (the paper's, the H200 reference) shown beside these runs.
QVector<const PublishedTable*> deviceTables(const QVector<const RunRef*>& runs, Family family,
                                            const ChartOptions& opt, const PublishedBaselines& pub,
                                            const PublishedBaselines& gpuSet) {
  QVector<const PublishedTable*> out;
  QVector<const PublishedTable*> all;
  if (opt.showPublished) all += pub.forFamily(family);
  all += referenceTables(runs, family, opt, gpuSet);
  for (const PublishedTable* t : all)
    if (t->metric == QLatin1String("gbps") && !t->devices.isEmpty()) out << t;
  return out;
}

QString deviceCategory(const PublishedTable& t, const PublishedDevice& d) {
  // Short, so it stays whole under its bars; the size and the source are in the notes.
  return t.ownMeasurement ? QObject::tr("%1 (measured %2)").arg(d.device, t.measured) : QObject::tr("%1 (published)").arg(d.device);
}

QString deviceSeriesName(const PublishedTable& t, const QString& variant) {
  return t.ownMeasurement ? QObject::tr("%1: %2").arg(referenceLabel(t), variant) : QObject::tr("Published: %1").arg(variant);
}

void deviceTableNotes(ChartSpec& spec, const PublishedTable& t) {
  if (t.ownMeasurement)
    spec.notes << QObject::tr("Cross-hatched bars: KernelLab on an NVIDIA H200, measured %1 (%2), not in these runs: %3")
                      .arg(t.measured, t.problem, t.source);
  else
    spec.notes << QObject::tr("Hatched bars: published figures, not measured here (%1): %2").arg(t.problem, t.source);
  spec.notes << t.notes;
}

// A bandwidth-bound family (its descriptor's bandwidthBound): effective bandwidth per variant,
// the copy ceiling, other devices.
ChartSpec bandwidthChart(const QVector<const RunRef*>& runs, const CategoryPlan& plan,
                         Family family, const ChartOptions& opt, const PublishedBaselines& pub,
                         const PublishedBaselines& gpuSet, QVector<SpeedupEntry>& speedups) {
  ChartSpec spec;
  spec.id = QStringLiteral("bandwidth");
  spec.title = QObject::tr("Effective bandwidth: each input read once, each output written once");
  spec.xLabel = plan.axisTitle;
  spec.yLabel = widgets::bandwidthAxisLabel();
  spec.unit = QStringLiteral("GB/s");
  const QVector<const PublishedTable*> tables = deviceTables(runs, family, opt, pub, gpuSet);
  Categories cats = measuredCategories(runs, plan, !tables.isEmpty(), spec.xLabel);
  SeriesBook book{family, {}, {}, {}};
  ChartSeries ceiling;
  for (int r = 0; r < runs.size(); ++r) {
    const RunRef& ref = *runs[r];
    const RunResult& run = ref.run();
    for (const VariantResult& v : run.variants) {
      if (!v.ok) continue;
      ChartSeries& s = book.at(v.variant);
      s.x << plan.categoryOfRun[r];
      s.y << v.gbps;
      QString note = pointNote(ref, v);
      if (!run.ceilings.empty() && v.fractionOfMemcpy > 0)
        note += QObject::tr(" · %1 % of %2").arg(v.fractionOfMemcpy * 100.0, 0, 'f', 1).arg(fromStd(run.ceilings.front().name));
      s.notes << note;
    }
    if (!run.ceilings.empty()) {
      const Ceiling& c = run.ceilings.front();
      ceiling.name = QObject::tr("%1 (ceiling)").arg(fromStd(c.name));
      ceiling.colorIndex = kCeilingColor;
      ceiling.x << plan.categoryOfRun[r];
      ceiling.y << c.gbps;
      ceiling.notes << QObject::tr("read + write bytes, run %1").arg(ref.label);
    }
  }
  bool referenceShown = false;
  for (const PublishedTable* t : tables) referenceShown = referenceShown || t->ownMeasurement;
  spec.notes = measuredNotes(runs, referenceShown, referenceDate(gpuSet));
  spec.notes << QObject::tr("GB/s are decimal (1 GB = 10^9 bytes).");
  for (const PublishedTable* t : tables) {
    for (const PublishedDevice& d : t->devices) {
      const int c = cats.add(deviceCategory(*t, d), 0, true);
      const double bytes = transpose::effectiveBytes(t->width > 0 ? int64_t(t->width) : 2048, t->height > 0 ? int64_t(t->height) : 2048);
      for (auto it = d.values.begin(); it != d.values.end(); ++it) {
        const QString variant = variantTitle(family, it.key().toStdString());
        ChartSeries& s = book.at(it.key().toStdString(), t->ownMeasurement ? QStringLiteral(" (reference)") : QStringLiteral(" (published)"));
        s.name = deviceSeriesName(*t, variant);
        s.published = true;
        s.reference = t->ownMeasurement;
        s.source = t->source;
        s.x << c;
        s.y << it.value();
        s.notes << QObject::tr("%1: \"%2\", %3").arg(t->shortSource, t->variantLabels.value(it.key(), it.key()), t->problem);
        // A table gives bandwidth for one size: its time follows from the bytes moved.
        speedups.push_back({QObject::tr("%1 (%2)").arg(variant, t->ownMeasurement ? referenceLabel(*t) : QObject::tr("published, %1").arg(d.device)),
                            bytes / (it.value() * 1e9) * 1e3, true, t->id + d.device, it.key() == QLatin1String("copy")});
      }
    }
    deviceTableNotes(spec, *t);
  }
  spec.series = book.ordered();
  if (!ceiling.y.isEmpty()) spec.series.push_front(ceiling);
  cats.finish(spec.series);
  spec.categories = cats.labels;
  captionFor(spec, runs, referenceDate(gpuSet));
  return spec;
}

// Transpose: bandwidth over the copy kernel of the same run (the in-run ceiling).
ChartSpec fractionChart(const QVector<const RunRef*>& runs, const CategoryPlan& plan,
                        const ChartOptions& opt, const PublishedBaselines& pub, const PublishedBaselines& gpuSet) {
  ChartSpec spec;
  spec.id = QStringLiteral("fraction");
  spec.title = QObject::tr("Share of the copy ceiling: bandwidth / copy kernel bandwidth");
  spec.xLabel = plan.axisTitle;
  spec.yLabel = QObject::tr("Share of the copy kernel's bandwidth (%)");
  spec.unit = QStringLiteral("%");
  const QVector<const PublishedTable*> tables =
      deviceTables(runs, transpose::kFamily, opt, pub, gpuSet);
  Categories cats = measuredCategories(runs, plan, !tables.isEmpty(), spec.xLabel);
  SeriesBook book{transpose::kFamily, {}, {}, {}};
  QStringList withoutCopy;
  for (int r = 0; r < runs.size(); ++r) {
    const RunRef& ref = *runs[r];
    bool hasCopy = false;
    for (const VariantResult& v : ref.run().variants) hasCopy = hasCopy || (v.variant == "copy" && v.ok);
    if (!hasCopy) {
      withoutCopy << ref.label;
      continue;
    }
    for (const VariantResult& v : ref.run().variants) {
      if (!v.ok || v.variant == "copy") continue;
      ChartSeries& s = book.at(v.variant);
      s.x << plan.categoryOfRun[r];
      s.y << v.fractionOfCopyKernel * 100.0;
      s.notes << QObject::tr("%1 GB/s; %2 % of %3")
                     .arg(v.gbps, 0, 'f', 1)
                     .arg(v.fractionOfMemcpy * 100.0, 0, 'f', 1)
                     .arg(ref.run().ceilings.empty() ? QObject::tr("the memory copy") : fromStd(ref.run().ceilings.front().name));
    }
  }
  bool referenceShown = false;
  for (const PublishedTable* t : tables) referenceShown = referenceShown || t->ownMeasurement;
  spec.notes = measuredNotes(runs, referenceShown, referenceDate(gpuSet));
  spec.notes << QObject::tr("100 % = the copy kernel of the same run: same blocks, same bytes, no transpose.");
  if (!withoutCopy.isEmpty())
    spec.notes << QObject::tr("Runs without the copy variant are left out (%1): switch on 'Copy (ceiling)'.")
                      .arg(withoutCopy.join(QStringLiteral(", ")));
  for (const PublishedTable* t : tables) {
    for (const PublishedDevice& d : t->devices) {
      const double copy = d.values.value(QStringLiteral("copy"));
      if (!(copy > 0)) continue;
      const int c = cats.add(deviceCategory(*t, d), 0, true);
      for (auto it = d.values.begin(); it != d.values.end(); ++it) {
        if (it.key() == QLatin1String("copy")) continue;
        ChartSeries& s = book.at(it.key().toStdString(), t->ownMeasurement ? QStringLiteral(" (reference)") : QStringLiteral(" (published)"));
        s.name = deviceSeriesName(*t, variantTitle(transpose::kFamily, it.key().toStdString()));
        s.published = true;
        s.reference = t->ownMeasurement;
        s.source = t->source;
        s.x << c;
        s.y << it.value() / copy * 100.0;
        s.notes << QObject::tr("%1 of %2 GB/s (copy)").arg(it.value()).arg(copy);
      }
    }
    deviceTableNotes(spec, *t);
  }
  spec.series = book.ordered();
  cats.finish(spec.series);
  spec.categories = cats.labels;
  captionFor(spec, runs, referenceDate(gpuSet));
  return spec;
}

// Stacked time per kernel (and allocation / transfer phases) for multi-kernel families.
ChartSpec kernelsChart(const QVector<const RunRef*>& runs, const CategoryPlan& plan, Family family) {
  ChartSpec spec;
  spec.id = QStringLiteral("kernels");
  spec.title = QObject::tr("Time per kernel (stacked, per repetition)");
  spec.kind = ChartKind::StackedBars;
  spec.xLabel = QObject::tr("Variant");
  spec.yLabel = widgets::timeAxisLabel();
  spec.unit = QStringLiteral("ms");
  QMap<QString, int> seriesOf;
  auto series = [&](const QString& name) -> ChartSeries& {
    if (!seriesOf.contains(name)) {
      ChartSeries s;
      s.name = name;
      s.colorIndex = static_cast<int>(seriesOf.size());
      seriesOf[name] = static_cast<int>(spec.series.size());
      spec.series << s;
    }
    return spec.series[seriesOf[name]];
  };
  for (int r = 0; r < runs.size(); ++r) {
    for (const VariantResult& v : runs[r]->run().variants) {
      if (!v.ok) continue;
      QString cat = variantTitle(family, v.variant);
      if (plan.categories.size() > 1) cat += QStringLiteral(" · ") + plan.categories[plan.categoryOfRun[r]];
      spec.categories << cat;
      const int c = static_cast<int>(spec.categories.size()) - 1;
      for (const KernelResult& k : v.kernels) {
        ChartSeries& s = series(fromStd(k.name));
        s.x << c;
        s.y << k.totalMs;
        s.notes << QObject::tr("%1 launch(es) per repetition, median %2 ms each").arg(k.launches).arg(k.timing.medianMs, 0, 'g', 6);
      }
      for (const PhaseTiming& p : v.phases) {
        // The clustering phases list "kernels" (their sum, the seed's profile breakdown) beside
        // allocation and transfers: the kernels are already segments of their own.
        if (p.name == "kernels") continue;
        ChartSeries& s = series(fromStd(p.name));
        s.x << c;
        s.y << p.ms;
        s.notes << QString();
      }
    }
  }
  spec.notes << QObject::tr("Each segment is one kernel's time in a repetition (all its launches), or a phase such as allocation or a transfer.");
  spec.notes << measuredNotes(runs);
  captionFor(spec, runs, QString());
  return spec;
}

ChartSpec iterationTimeChart(const QVector<const RunRef*>& runs, Family family) {
  ChartSpec spec;
  spec.id = QStringLiteral("iteration-time");
  spec.title = QObject::tr("Kernel time per iteration (median repetition)");
  spec.kind = ChartKind::Lines;
  spec.xLabel = family == clustering::kKCenters ? QObject::tr("Center") : QObject::tr("Iteration");
  spec.yLabel = widgets::timeAxisLabel();
  spec.unit = QStringLiteral("ms");
  QStringList older;
  int reps = 0;
  for (const RunRef* ref : runs)
    for (const VariantResult& v : ref->run().variants) {
      if (v.iterations.empty()) continue;
      const bool median = v.iterationsFrom == "median";
      reps = std::max(reps, v.total.samples);
      ChartSeries s;
      // Which repetition the line is, in its name: the median one, or (older results) the last.
      s.name = variantTitle(family, v.variant) + (runs.size() > 1 ? QStringLiteral(" · ") + ref->label : QString()) +
               (median ? QObject::tr(" (median of %1)").arg(v.total.samples) : QObject::tr(" (last repetition)"));
      if (!median) older << ref->label;
      s.colorIndex = variantColorIndex(family, v.variant);
      for (const IterationRecord& it : v.iterations) {
        double sum = 0;
        for (double ms : it.kernelMs) sum += ms;
        s.x << it.iteration;
        s.y << sum;
        s.notes << (median ? QObject::tr("the repetition whose total is the median of %1").arg(v.total.samples)
                           : QObject::tr("the last timed repetition"));
      }
      spec.series << s;
    }
  spec.notes << QObject::tr(
                    "Each point: the time of every kernel launched in that %1, in the timed "
                    "repetition whose total "
                    "kernel time is the median of the %2 repetitions (the lower middle one of an "
                    "even count), so "
                    "the points add up to the median the other charts show.")
                    .arg(family == clustering::kKCenters ? QObject::tr("center")
                                                         : QObject::tr("iteration"))
                    .arg(reps);
  older.removeDuplicates();
  if (!older.isEmpty())
    spec.notes << QObject::tr("Runs %1 were recorded before KernelLab kept the median repetition: their lines are the "
                              "last timed repetition, named so.")
                      .arg(older.join(QStringLiteral(", ")));
  spec.notes << measuredNotes(runs);
  captionFor(spec, runs, QString());
  return spec;
}

// Whether a variant counted the points it read per center or iteration (the pruned variants,
// issue 15).
bool countsVisited(const VariantResult& v) {
  return std::any_of(v.iterations.begin(), v.iterations.end(),
                     [](const IterationRecord& it) { return it.visited >= 0; });
}

// Calls draw(problem, variant, name suffix, colour index) for every variant of every run that
// counted its reads (the pruned charts draw only those). Each gets its own colour (the variant's,
// then the next ones), so two runs of one variant (the seed's data and one broad cloud) are told
// apart by colour; the suffix names the run when there are several. Runs without N are skipped.
template <class Draw>
void forEachCountedVariant(const QVector<const RunRef*>& runs, Family family, Draw draw) {
  int drawn = 0;
  for (const RunRef* ref : runs) {
    const RunResult& run = ref->run();
    const ClusteringProblem* problem = run.request.sections.find<ClusteringProblem>();
    if (!problem || problem->n <= 0) continue;  // the file's N for a points file (the run's)
    for (const VariantResult& v : run.variants) {
      if (!countsVisited(v)) continue;
      const QString suffix = runs.size() > 1 ? QStringLiteral(" · ") + ref->label : QString();
      draw(*problem, v, suffix, variantColorIndex(family, v.variant) + drawn++);
    }
  }
}

// The pruned k-centers variant's work per center (issue 15), next to its time: per run of it, the
// share of the N points whose 8-bit sketch it read (the triangle test could not skip them) and the
// share whose float coordinates it read (the sketch could not skip them either), so the user sees
// which test ruled points out where, and where neither could.
ChartSpec kmeansWorkChart(const QVector<const RunRef*>& runs, Family family);

ChartSpec coordinatesReadChart(const QVector<const RunRef*>& runs, Family family) {
  if (family == clustering::kKMeans) return kmeansWorkChart(runs, family);
  ChartSpec spec;
  spec.id = QStringLiteral("coordinates-read");
  spec.title = QObject::tr("Coordinates read per center");
  spec.kind = ChartKind::Lines;
  spec.xLabel = QObject::tr("Center");
  spec.yLabel = QObject::tr("Points read (share of N)");
  // The CUDA engine's runs read a sketch; the CPU engine's (lazy, from session 17) do not.
  bool sketched = false, lazy = false;
  forEachCountedVariant(runs, family, [&](const ClusteringProblem& problem,
                                          const VariantResult& v, const QString& suffix,
                                          int colour) {
    const int64_t n = problem.n;
    ChartSeries full, sketch;
    full.name = variantTitle(family, v.variant) + QObject::tr(" · float coordinates") + suffix;
    sketch.name = variantTitle(family, v.variant) + QObject::tr(" · 8-bit sketch") + suffix;
    full.colorIndex = sketch.colorIndex = colour;
    sketch.dashed = true;
    for (const IterationRecord& it : v.iterations) {
      if (it.visited < 0) continue;
      const double share = double(it.visited) / double(n);
      full.x << it.iteration;
      full.y << share;
      QString note = QObject::tr("%L1 of %L2 points' float coordinates read (%3 %)")
                         .arg(qlonglong(it.visited))
                         .arg(qlonglong(n))
                         .arg(100.0 * share, 0, 'f', 1);
      // The lazy engine counts its distances too: a read point sums one per center it missed.
      if (it.distances >= 0)
        note += QObject::tr("; %L1 point-center distances summed").arg(qlonglong(it.distances));
      // The CUDA engine's several centers a pass: say which centers ended one.
      if (it.pass == 1)
        note += QObject::tr("; a pass over the N points ended here");
      else if (it.pass == 0)
        note += QObject::tr("; chosen by the plan from the points above the threshold (no pass)");
      full.notes << note;
      // No sketch line point for center 1 (nothing to test against yet: every point is read
      // in float) or for a file from before the sketch.
      if (it.screened < 0 || it.iteration <= 1) continue;
      const double screened = double(it.screened) / double(n);
      sketch.x << it.iteration;
      sketch.y << screened;
      sketch.notes << QObject::tr("%L1 of %L2 points' 8-bit sketch read (%3 %); coordinate "
                                  "bytes read: %4 % of one full read")
                          .arg(qlonglong(it.screened))
                          .arg(qlonglong(n))
                          .arg(100.0 * screened, 0, 'f', 1)
                          .arg(100.0 * (share + screened / 4.0), 0, 'f', 1);
    }
    spec.series << full;
    if (!sketch.x.isEmpty()) spec.series << sketch;
    (sketch.x.isEmpty() ? lazy : sketched) = true;
  });
  if (sketched) {
    spec.notes << QObject::tr(
        "Solid, circles: the share of the N points whose D float coordinates (4 D bytes) the "
        "pruned variant read for that center. Dashed, diamonds: the share whose 8-bit sketch (D "
        "bytes) it read. Every other point cost it 8 bytes (label and distance) a pass. Center 1 "
        "reads every point; the unpruned variants read every point for every center.");
    spec.notes << QObject::tr(
        "Several centers a pass (the CUDA engine): distances only shrink, so while the farthest "
        "of the points listed above a threshold is still above it, it is the next center, chosen "
        "without a pass; one pass then brings every point up to date with all the centers chosen "
        "since the last (up to 8). A point's reads count for the first center of its pass that "
        "needed them, so centers chosen by the plan show few or none (the tooltip says which "
        "centers ended a pass).");
    spec.notes << QObject::tr(
        "Two exact tests, each with a rounding margin, so the centers and distances are the "
        "unpruned ones bit for bit. Triangle: a point is skipped when the new center is more than "
        "twice as far from the point's center as the point is; clusters that have a center are "
        "skipped whole. Sketch: the distance to the point's 8-bit copy, less that copy's proven "
        "error, already exceeds the point's distance; it rules out the clusters still without a "
        "center. In one broad cloud the triangle test skips almost nothing and every pass reads "
        "every point's sketch: it still decides most of them in many dimensions, fewer in few.");
  }
  if (lazy)
    spec.notes << QObject::tr(
        "A line without a dashed partner is the lazy traversal (the CPU engine): after each "
        "center it needs only the farthest point, so a unit of 32 points is read only when its "
        "largest stored distance could be that point's, and then once for every center it missed "
        "(the triangle test drops the centers that cannot take any of its points). Its count for "
        "a center is the points read in that center's passes; the last center brings every unit "
        "up to date. The centers and distances are the unpruned ones bit for bit.");
  spec.notes << measuredNotes(runs);
  captionFor(spec, runs, QString());
  return spec;
}

// The pruned k-means variant's work per iteration (issue 15): per run of it, the share of the N
// points whose coordinates it read (their bounds overlapped) and the share of the N K distances
// it computed, so the user sees the first iteration pay in full and the later ones almost nothing
// once the centers settle, and where (one broad cloud) they never settle enough.
ChartSpec kmeansWorkChart(const QVector<const RunRef*>& runs, Family family) {
  ChartSpec spec;
  spec.id = QStringLiteral("coordinates-read");
  spec.title = QObject::tr("Points read per iteration");
  spec.kind = ChartKind::Lines;
  spec.xLabel = QObject::tr("Iteration");
  spec.yLabel = QObject::tr("Share of the unpruned work");
  forEachCountedVariant(runs, family, [&](const ClusteringProblem& problem,
                                          const VariantResult& v, const QString& suffix,
                                          int colour) {
    const int64_t n = problem.n;
    const int k = problem.k;
    if (k <= 0) return;
    ChartSeries read, distances;
    read.name = variantTitle(family, v.variant) + QObject::tr(" · points read") + suffix;
    distances.name =
        variantTitle(family, v.variant) + QObject::tr(" · distances computed") + suffix;
    read.colorIndex = distances.colorIndex = colour;
    distances.dashed = true;
    const double all = double(n) * double(k);
    for (const IterationRecord& it : v.iterations) {
      if (it.visited < 0) continue;
      const double share = double(it.visited) / double(n);
      read.x << it.iteration;
      read.y << share;
      read.notes << QObject::tr("%L1 of %L2 points' coordinates read (%3 %)")
                        .arg(qlonglong(it.visited))
                        .arg(qlonglong(n))
                        .arg(100.0 * share, 0, 'f', 2);
      if (it.distances < 0) continue;
      const double computed = double(it.distances) / all;
      distances.x << it.iteration;
      distances.y << computed;
      distances.notes << QObject::tr("%L1 of %L2 point-center distances computed (%3 %)")
                             .arg(qlonglong(it.distances))
                             .arg(qlonglong(n) * k)
                             .arg(100.0 * computed, 0, 'f', 2);
    }
    spec.series << read;
    if (!distances.x.isEmpty()) spec.series << distances;
  });
  spec.notes << QObject::tr(
      "Solid, circles: the share of the N points whose coordinates the pruned variant read in "
      "that iteration. Dashed, diamonds: the share of the N x K point-center distances it "
      "computed. Every other point cost it its label and bounds only (12 bytes on a GPU; on the "
      "CPU backend 8 bytes and 4 per group of centers). The first iteration computes every "
      "distance; the unpruned variants do in every iteration.");
  spec.notes << QObject::tr(
      "Hamerly's test: a point keeps its cluster unread while the upper bound on the distance to "
      "its center, grown by that center's drift, stays below both the lower bound on every other "
      "center (shrunk by the largest other drift) and half the distance from its center to the "
      "nearest other one. Failing that it re-measures its own center, and only then the others "
      "(on the CPU backend the lower bound is kept per group of about ten centers, Yinyang's, "
      "and only the groups it cannot exclude are measured: fewer distances than points read). The "
      "margins are proven, so the labels are plain Lloyd's. The bounds loosen as fast as the "
      "centers move: they skip little while the centers travel far (the first iterations, one "
      "broad cloud) and almost everything once they settle.");
  spec.notes << QObject::tr(
      "On a GPU with TF32 tensor cores the pruned variant decides the points its bounds leave "
      "open with the tensor-core products (best's proven bound; near ties in double), and while "
      "more than 1 % of the labels change (or most points fail the bounds) it keeps no bounds and "
      "reads every point (warm iterations at 100 %); the iteration after them measures every "
      "point's own center (points read 100 %, distances far fewer) and starts the bounds.");
  spec.notes << measuredNotes(runs);
  captionFor(spec, runs, QString());
  return spec;
}

ChartSpec sweepChart(const QVector<const RunRef*>& runs, const CategoryPlan& plan, Family family,
                     bool bandwidth) {
  ChartSpec spec;
  spec.id = bandwidth ? QStringLiteral("sweep-bandwidth") : QStringLiteral("sweep");
  // "Threads per block" reads "threads per block" mid-sentence; "N (points)" stays.
  QString axis = plan.axisTitle;
  if (axis.size() > 1 && axis[1].isLower()) axis[0] = axis[0].toLower();
  spec.title = bandwidth ? QObject::tr("Bandwidth vs %1").arg(axis) : QObject::tr("Time vs %1").arg(axis);
  spec.kind = ChartKind::Lines;
  spec.xLabel = plan.axisTitle;
  spec.yLabel = bandwidth ? widgets::bandwidthAxisLabel() : widgets::timeAxisLabel();
  spec.unit = bandwidth ? QStringLiteral("GB/s") : QStringLiteral("ms");
  SeriesBook book{family, {}, {}, {}};
  double lo = INFINITY, hi = 0;
  for (int r = 0; r < runs.size(); ++r) {
    const double x = plan.numberOfRun.value(r);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    for (const VariantResult& v : runs[r]->run().variants) {
      if (!v.ok) continue;
      ChartSeries& s = book.at(v.variant);
      s.x << x;
      s.y << (bandwidth ? v.gbps : v.total.medianMs);
      if (!bandwidth) {
        s.low << v.total.minMs;
        s.high << v.total.maxMs;
      }
      s.notes << pointNote(*runs[r], v);
    }
  }
  spec.logX = lo > 0 && hi / lo >= 8;
  spec.series = book.ordered();
  spec.notes = measuredNotes(runs);
  captionFor(spec, runs, QString());
  return spec;
}

}  // namespace

CategoryPlan planCategories(const QVector<const RunRef*>& runs) {
  CategoryPlan plan;
  plan.categoryOfRun.resize(runs.size());
  if (runs.isEmpty()) return plan;
  const Family family = runs.front()->run().request.family;
  const QVector<Field> fields = fieldsFor(family);
  QVector<const Field*> differing;
  for (const Field& f : fields) {
    QSet<QString> values;
    for (const RunRef* r : runs) values.insert(f.label(r->run()));
    if (values.size() > 1) differing << &f;
  }
  if (runs.size() == 1 || differing.isEmpty()) {
    // One run: its threads per block names the group (the seed's figure 19 axis).
    // Several runs of one configuration: one group per run.
    if (runs.size() == 1) {
      plan.axisTitle = fields.front().title;
      plan.numericField = fields.front().id;
      plan.categories << fields.front().label(runs.front()->run());
      plan.numberOfRun << fields.front().number(runs.front()->run());
    } else {
      plan.axisTitle = QObject::tr("Run");
      for (int r = 0; r < runs.size(); ++r) {
        plan.categories << runs[r]->label;
        plan.categoryOfRun[r] = r;
      }
    }
    return plan;
  }
  QStringList keys;
  for (const RunRef* r : runs) {
    QStringList parts;
    for (const Field* f : differing) parts << f->label(r->run());
    keys << parts.join(QStringLiteral(" · "));
  }
  if (QSet<QString>(keys.begin(), keys.end()).size() != keys.size())
    for (int r = 0; r < runs.size(); ++r) keys[r] += QStringLiteral(" · ") + runs[r]->label;
  QStringList titles;
  for (const Field* f : differing) titles << f->title;
  plan.axisTitle = titles.join(QStringLiteral(" · "));
  const bool numeric = differing.size() == 1 && !std::isnan(differing.front()->number(runs.front()->run()));
  if (numeric) {
    plan.numericField = differing.front()->id;
    for (const RunRef* r : runs) plan.numberOfRun << differing.front()->number(r->run());
  }
  // Category order: by the number when there is one, else as the runs come.
  QVector<int> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  if (numeric)
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return plan.numberOfRun[a] < plan.numberOfRun[b]; });
  for (int r : order) {
    if (!plan.categories.contains(keys[r])) plan.categories << keys[r];
    plan.categoryOfRun[r] = static_cast<int>(plan.categories.indexOf(keys[r]));
  }
  return plan;
}

QVector<Family> familiesOf(const RunSelection& selection) {
  QVector<Family> out;
  if (const RunRef* p = selection.primaryRun()) out << p->run().request.family;
  for (const RunRef& r : selection.runs)
    if (!out.contains(r.run().request.family)) out << r.run().request.family;
  return out;
}

QString runsCaption(const QVector<const RunRef*>& runs) {
  if (runs.isEmpty()) return {};
  QStringList labels, devices;
  QString first, last;
  for (const RunRef* r : runs) {
    labels << r->label;
    const QString device = deviceShort(r->run());
    if (!devices.contains(device)) devices << device;
    const QString when = fromStd(r->run().createdAt).replace(QLatin1Char('T'), QLatin1Char(' ')).remove(QLatin1Char('Z')).left(16);
    if (when.isEmpty()) continue;
    if (first.isEmpty() || when < first) first = when;
    if (last.isEmpty() || when > last) last = when;
  }
  const QString which = labels.size() == 1 ? QObject::tr("Run %1").arg(labels.front())
                        : labels.size() <= 4 ? QObject::tr("Runs %1").arg(labels.join(QStringLiteral(", ")))
                                             : QObject::tr("Runs %1 to %2 (%3 runs)").arg(labels.front(), labels.back()).arg(labels.size());
  QString when = first;
  if (!last.isEmpty() && last != first) when += (last.left(10) == first.left(10) ? QStringLiteral("-") + last.mid(11) : QStringLiteral(" to ") + last);
  return QObject::tr("%1 · %2 · %3 UTC").arg(which, devices.join(QStringLiteral(", ")), when.isEmpty() ? QObject::tr("date unknown") : when);
}

// The published and reference times whose problem the runs did not solve, on an axis of their
// own: the GPU's story (and the thesis's) stays in view without standing beside times of another
// problem size.
ChartSpec referenceTimeChart(const QVector<const PublishedTable*>& tables, Family family,
                             const QVector<const RunRef*>& runs, QVector<SpeedupEntry>& speedups) {
  ChartSpec spec;
  spec.id = QStringLiteral("time-reference");
  spec.title = QObject::tr("Times on their own problem: %1 (%2)").arg(familyTitle(family), tables.front()->problem);
  spec.kind = ChartKind::GroupedBars;
  spec.xLabel = QObject::tr("Threads per block");
  spec.yLabel = widgets::timeAxisLabel();
  spec.unit = QStringLiteral("ms");
  Categories cats;
  cats.numeric = true;
  SeriesBook book{family, {}, {}, {}};
  QStringList problems;
  for (const PublishedTable* t : tables) {
    addTableTimes(*t, true, book, cats, speedups, spec);
    if (!problems.contains(t->problem)) problems << t->problem;
  }
  QStringList theirs;
  for (const RunRef* r : runs)
    if (!theirs.contains(requestSummary(r->run().request))) theirs << requestSummary(r->run().request);
  spec.notes.prepend(QObject::tr("Not drawn beside the measured runs (%1): these times are of %2. A time "
                                 "depends on the problem's size; compare the variants within a problem.")
                         .arg(theirs.join(QStringLiteral("; ")), problems.join(QStringLiteral("; "))));
  spec.series = book.ordered();
  cats.finish(spec.series);
  spec.categories = cats.labels;
  captionFor(spec, {}, referenceDate(gpuReference()));
  return spec;
}

// Measured bars beside published or H200 ones that lie decades apart: on a linear axis the smaller
// side draws no bar at all (a CPU's transpose at 10 GB/s beside the H200's 4,000 GB/s). The chart
// then takes a logarithmic value axis and says so; ratios read off it stay true.
static void logWhenScalesApart(ChartSpec& spec) {
  double measured = 0, others = 0;
  for (const ChartSeries& s : spec.series)
    for (double v : s.y) {
      if (!(v > 0) || !std::isfinite(v)) continue;
      double& side = s.published ? others : measured;
      side = std::max(side, v);
    }
  if (!(measured > 0) || !(others > 0)) return;
  const double apart = std::max(measured, others) / std::min(measured, others);
  if (apart < kLogScaleRatio) return;
  spec.logY = true;
  spec.notes << QObject::tr("Logarithmic value axis: the largest %1 value is %2x the largest %3 one, and on a "
                            "linear axis the smaller bars would not show.")
                    .arg(others > measured ? QObject::tr("published or H200") : QObject::tr("measured"))
                    .arg(apart, 0, 'f', 0)
                    .arg(others > measured ? QObject::tr("measured") : QObject::tr("published or H200"));
}

TimingCharts buildTimingCharts(const RunSelection& selection, const ChartOptions& options,
                               const PublishedBaselines& published, const PublishedBaselines& reference) {
  TimingCharts out;
  out.family = familyOf(selection, options);
  QVector<const RunRef*> runs;
  int otherFamilies = 0;
  for (const RunRef& r : selection.runs) {
    if (r.run().request.family != out.family) {
      ++otherFamilies;
      continue;
    }
    if (r.run().variants.empty()) continue;  // skipped sweep points: nothing timed
    runs << &r;
  }
  const CategoryPlan plan = planCategories(runs);
  QVector<SpeedupEntry> speedups;
  QVector<const PublishedTable*> apart;
  ChartSpec time = timeChart(runs, plan, out.family, options, published, reference, speedups, apart);
  if (otherFamilies > 0)
    time.notes << QObject::tr("%1 run(s) of other kernel families are selected: choose their family above the chart.").arg(otherFamilies);
  out.charts << time;
  if (!apart.isEmpty()) out.charts << referenceTimeChart(apart, out.family, runs, speedups);
  const FamilyDescriptor* descriptor = findFamily(out.family);
  const bool bandwidthBound = descriptor && descriptor->bandwidthBound;
  if (bandwidthBound)
    out.charts << bandwidthChart(runs, plan, out.family, options, published, reference, speedups);
  // The share of the family's in-run copy variant (the transpose's "copy ceiling"), if it has one.
  if (knownVariant(out.family, "copy"))
    out.charts << fractionChart(runs, plan, options, published, reference);
  bool multiKernel = false, iterations = false;
  for (const RunRef* r : runs)
    for (const VariantResult& v : r->run().variants) {
      multiKernel = multiKernel || v.kernels.size() > 1 || !v.phases.empty();
      iterations = iterations || !v.iterations.empty();
    }
  if (multiKernel) out.charts << kernelsChart(runs, plan, out.family);
  if (iterations) {
    QVector<QPair<QString, QVector<IterationRecord>>> series;
    QVector<int> colors;
    for (const RunRef* r : runs)
      for (const VariantResult& v : r->run().variants) {
        if (v.iterations.empty()) continue;
        series.push_back({variantTitle(out.family, v.variant) + (runs.size() > 1 ? QStringLiteral(" · ") + r->label : QString()),
                          QVector<IterationRecord>(v.iterations.begin(), v.iterations.end())});
        colors << variantColorIndex(out.family, v.variant);
      }
    ChartSpec score = buildScoreChart(out.family, series, colors, false);
    score.notes << measuredNotes(runs);
    captionFor(score, runs, QString());
    out.charts << score;
    out.charts << iterationTimeChart(runs, out.family);
  }
  bool visited = false;
  for (const RunRef* r : runs)
    for (const VariantResult& v : r->run().variants) visited = visited || countsVisited(v);
  if (visited) out.charts << coordinatesReadChart(runs, out.family);
  if (!plan.numericField.isEmpty() && QSet<double>(plan.numberOfRun.begin(), plan.numberOfRun.end()).size() >= 2) {
    out.charts << sweepChart(runs, plan, out.family, false);
    if (bandwidthBound) out.charts << sweepChart(runs, plan, out.family, true);
  }
  for (ChartSpec& c : out.charts) logWhenScalesApart(c);
  // Unique speed-up labels: two runs of one configuration would otherwise collide.
  QMap<QString, int> seen;
  for (auto& e : speedups) {
    const int n = seen[e.label]++;
    if (n > 0) e.label += QStringLiteral(" (%1)").arg(n + 1);
  }
  out.speedups = speedups;
  return out;
}

widgets::ChartSpec buildScoreChart(Family family,
                                   const QVector<QPair<QString, QVector<IterationRecord>>>& series,
                                   const QVector<int>& colorIndex, bool live) {
  ChartSpec spec;
  spec.id = QStringLiteral("score");
  spec.title = live ? QObject::tr("Score per iteration (live)") : QObject::tr("Score per iteration");
  spec.kind = ChartKind::Lines;
  spec.xLabel = family == clustering::kKCenters ? QObject::tr("Center") : QObject::tr("Iteration");
  spec.yLabel = family == clustering::kKCenters
                    ? QObject::tr("Score (farthest distance)")
                    : QObject::tr("Score (sum of distances to the centers)");
  for (int i = 0; i < series.size(); ++i) {
    ChartSeries s;
    s.name = series[i].first;
    s.colorIndex = colorIndex.value(i, i);
    for (const IterationRecord& r : series[i].second) {
      s.x << r.iteration;
      s.y << r.score;
      s.notes << (r.chosenPoint >= 0 ? QObject::tr("chose point %L1").arg(r.chosenPoint) : QString());
    }
    spec.series << s;
  }
  return spec;
}

}  // namespace kernellab::app
