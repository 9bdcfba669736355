// SPDX-License-Identifier: MIT
// Results -> charts: categories from what differs between runs, values and whiskers from the
// timings, published figures from the compiled-in resource, speed-up arithmetic.
#include <QtTest>
#include <cmath>

#include "chart_builder.h"
#include "chart_data_io.h"
#include "chart_view.h"
#include "kernellab/clustering_request.h"
#include "kernellab/transpose.h"
#include "published_baselines.h"
#include "report_writer.h"
#include "results_table.h"
#include "run_text.h"
#include "speedup_panel.h"

using namespace kernellab;
using namespace kernellab::app;
using widgets::ChartSeries;
using widgets::ChartSpec;

namespace {

struct V {
  const char* id;
  double median, min, max, gbps = 0, fracCopy = 0;
};

RunResult makeRun(Family family, int tpb, std::vector<V> variants, const char* backend = "cpu") {
  RunResult r;
  r.request.family = family;
  r.request.launch.threadsPerBlock = tpb;
  r.request.repetitions = 5;
  r.backend = backend;
  r.device.name = backend == std::string("cuda") ? "NVIDIA H200" : "Test CPU";
  for (const V& v : variants) {
    VariantResult vr;
    vr.variant = v.id;
    vr.total = {v.median, v.min, v.max, 5, "cpu-steady-clock"};
    vr.gbps = v.gbps;
    vr.fractionOfCopyKernel = v.fracCopy;
    r.variants.push_back(vr);
  }
  return r;
}

// The run solved this clustering problem (the thesis's and the H200 reference's: 1e6, 100, 200).
RunResult withProblem(RunResult r, int64_t n, int k, int d) {
  r.request.section<ClusteringProblem>().n = n;
  r.request.section<ClusteringProblem>().k = k;
  r.request.section<ClusteringProblem>().d = d;
  return r;
}

RunSelection selectionOf(const std::vector<RunResult>& runs) {
  auto file = std::make_shared<ResultsFile>();
  file->runs = runs;
  RunSelection sel;
  for (int i = 0; i < static_cast<int>(runs.size()); ++i)
    sel.runs << RunRef{file, i, QStringLiteral("e"), QStringLiteral("#%1").arg(i + 1)};
  sel.primary = 0;
  return sel;
}

const ChartSpec* chart(const TimingCharts& c, const QString& id) {
  for (const auto& s : c.charts)
    if (s.id == id) return &s;
  return nullptr;
}

const ChartSeries* series(const ChartSpec& spec, const QString& name) {
  for (const auto& s : spec.series)
    if (s.name == name) return &s;
  return nullptr;
}

// The value of a series in a category, or NaN.
double valueAt(const ChartSpec& spec, const ChartSeries& s, const QString& category) {
  const int c = static_cast<int>(spec.categories.indexOf(category));
  for (int i = 0; i < s.size(); ++i)
    if (static_cast<int>(s.x[i]) == c) return s.y[i];
  return std::nan("");
}

}  // namespace

class TstChartBuilder : public QObject {
  Q_OBJECT
 private slots:
  void categoriesFollowWhatDiffers() {
    const RunSelection sel = selectionOf({
        makeRun(transpose::kFamily, 256, {{"naive", 3, 2, 4}, {"padded", 1, 0.5, 1.5}}),
        makeRun(transpose::kFamily, 64, {{"naive", 6, 5, 7}, {"padded", 2, 1.5, 2.5}}),
        makeRun(transpose::kFamily, 128, {{"naive", 5, 4, 6}, {"padded", 1.5, 1, 2}}),
    });
    QVector<const RunRef*> runs;
    for (const auto& r : sel.runs) runs << &r;
    const CategoryPlan plan = planCategories(runs);
    QCOMPARE(plan.numericField, QStringLiteral("tpb"));
    QCOMPARE(plan.categories, (QStringList{"TPB 64", "TPB 128", "TPB 256"}));
    QCOMPARE(plan.categoryOfRun, (QVector<int>{2, 0, 1}));

    ChartOptions noPublished;
    noPublished.showPublished = false;
    const TimingCharts charts = buildTimingCharts(sel, noPublished);
    const ChartSpec* time = chart(charts, QStringLiteral("time"));
    QVERIFY(time);
    QCOMPARE(time->categories, plan.categories);
    QCOMPARE(time->unit, QStringLiteral("ms"));
    QVERIFY(time->yLabel.contains(QStringLiteral("ms")));
    const ChartSeries* naive = series(*time, variantTitle(transpose::kFamily, "naive"));
    QVERIFY(naive);
    QCOMPARE(valueAt(*time, *naive, QStringLiteral("TPB 64")), 6.0);
    QCOMPARE(valueAt(*time, *naive, QStringLiteral("TPB 256")), 3.0);
    QVERIFY(naive->hasWhiskers());
    const int i = static_cast<int>(naive->y.indexOf(5.0));
    QCOMPARE(naive->low[i], 4.0);
    QCOMPARE(naive->high[i], 6.0);
    for (const auto& s : time->series) QVERIFY(!s.published);
    // A numeric difference between runs also gives the sweep as lines.
    const ChartSpec* sweep = chart(charts, QStringLiteral("sweep"));
    QVERIFY(sweep);
    QCOMPARE(sweep->kind, widgets::ChartKind::Lines);
  }

  void oneRunIsGroupedByItsThreadsPerBlock() {
    const RunSelection sel = selectionOf({makeRun(
        transpose::kFamily, 256, {{"copy", 1, 1, 1, 100, 1.0}, {"naive", 4, 3, 5, 25, 0.25}})});
    ChartOptions opt;
    opt.showPublished = false;
    const TimingCharts charts = buildTimingCharts(sel, opt);
    QCOMPARE(chart(charts, QStringLiteral("time"))->categories, QStringList{"TPB 256"});
    const ChartSpec* bw = chart(charts, QStringLiteral("bandwidth"));
    QVERIFY(bw);
    QVERIFY(bw->yLabel.contains(QStringLiteral("GB/s")));
    QVERIFY(bw->yLabel.contains(QStringLiteral("10^9")));
    QCOMPARE(series(*bw, variantTitle(transpose::kFamily, "naive"))->y, QVector<double>{25});
    const ChartSpec* fraction = chart(charts, QStringLiteral("fraction"));
    QCOMPARE(series(*fraction, variantTitle(transpose::kFamily, "naive"))->y, QVector<double>{25});
    QVERIFY(!series(*fraction, variantTitle(transpose::kFamily, "copy")));  // the copy is the 100 %
  }

  void transposePublishedFiguresAreTheTable() {
    const PublishedBaselines& pub = publishedBaselines();
    QVERIFY2(pub.error.isEmpty(), qPrintable(pub.error));
    const RunSelection sel = selectionOf({makeRun(
        transpose::kFamily, 256, {{"copy", 1, 1, 1, 100, 1.0}, {"tiled", 2, 2, 2, 50, 0.5}})});
    const TimingCharts charts = buildTimingCharts(sel, ChartOptions{});
    const ChartSpec* bw = chart(charts, QStringLiteral("bandwidth"));
    QVERIFY(bw->categories.contains(QStringLiteral("GTX 280 (published)")));
    const ChartSeries* paperTiled =
        series(*bw, QStringLiteral("Published: %1").arg(variantTitle(transpose::kFamily, "tiled")));
    QVERIFY(paperTiled);
    QVERIFY(paperTiled->published);
    QVERIFY(paperTiled->source.contains(QStringLiteral("Optimizing Matrix Transpose in CUDA")));
    QCOMPARE(valueAt(*bw, *paperTiled, QStringLiteral("GTX 280 (published)")), 16.5);
    QCOMPARE(valueAt(*bw, *paperTiled, QStringLiteral("Tesla M2090 (published)")), 92.8);
    QCOMPARE(valueAt(*bw, *paperTiled, QStringLiteral("Tesla K20X (published)")), 114.0);
    const ChartSeries* paperDiag = series(
        *bw, QStringLiteral("Published: %1").arg(variantTitle(transpose::kFamily, "diagonal")));
    QCOMPARE(valueAt(*bw, *paperDiag, QStringLiteral("GTX 280 (published)")), 69.5);
    const ChartSpec* fraction = chart(charts, QStringLiteral("fraction"));
    const ChartSeries* fracNaive = series(
        *fraction, QStringLiteral("Published: %1").arg(variantTitle(transpose::kFamily, "naive")));
    QVERIFY(std::fabs(valueAt(*fraction, *fracNaive, QStringLiteral("Tesla K20X (published)")) - 92.0 / 147.6 * 100) < 1e-9);
    // The measured category says where it ran, beside the published devices.
    QCOMPARE(bw->categories.front(), QStringLiteral("CPU · TPB 256"));
    // Hidden on request.
    ChartOptions off;
    off.showPublished = false;
    const TimingCharts offCharts = buildTimingCharts(sel, off);  // alive through the loop
    for (const auto& s : chart(offCharts, QStringLiteral("bandwidth"))->series)
      QVERIFY(!s.published || s.reference);  // the H200 reference is a switch of its own
  }

  void kcentersPublishedFiguresShareTheTpbAxis() {
    // A run of the thesis's own problem: its figures stand on the same axis.
    const RunSelection sel = selectionOf(
        {withProblem(makeRun(clustering::kKCenters, 256, {{"shared-coalesced", 10, 9, 11}}), 1000000, 100, 200)});
    const TimingCharts charts = buildTimingCharts(sel, ChartOptions{});
    const ChartSpec* time = chart(charts, QStringLiteral("time"));
    QCOMPARE(time->categories, (QStringList{"TPB 64", "TPB 128", "TPB 256", "TPB 512", "TPB 1024"}));
    const ChartSeries* titan = series(*time, QStringLiteral("Published (GTX Titan): Coalesced + shared"));
    QVERIFY(titan);
    QCOMPARE(titan->y, (QVector<double>{73.51, 143.59, 283.28, 286.42, 298.23}));
    const ChartSeries* worst = series(*time, QStringLiteral("Published (GTX Titan): Non-coalesced + global"));
    QCOMPARE(worst->y, (QVector<double>{569, 1126.41, 2398.14, 2435.27, 2707.95}));
    const ChartSeries* globalCo = series(*time, QStringLiteral("Published (GTX Titan): Coalesced + global"));
    QCOMPARE(globalCo->y, (QVector<double>{81.74, 157.27, 304.44, 328.09, 370.39}));
    const ChartSeries* sharedNc = series(*time, QStringLiteral("Published (GTX Titan): Non-coalesced + shared"));
    QCOMPARE(sharedNc->y, (QVector<double>{550.866, 1042.09, 2198.39, 2316.33, 2515.69}));
    // The measured value sits in the TPB 256 group with the published ones.
    const ChartSeries* measured =
        series(*time, variantTitle(clustering::kKCenters, "shared-coalesced"));
    QCOMPARE(valueAt(*time, *measured, QStringLiteral("TPB 256")), 10.0);
    // The defect note travels with the figures.
    QVERIFY(time->notes.join(' ').contains(QStringLiteral("grid was sized for 256 threads")));
    // Speed-up entries include the published times.
    bool found = false;
    for (const auto& e : charts.speedups)
      if (e.published && e.label.contains(QStringLiteral("Coalesced + shared")) && e.label.contains(QStringLiteral("GTX Titan")) &&
          e.label.endsWith(QStringLiteral("TPB 512"))) {
        QCOMPARE(e.ms, 286.42);
        found = true;
      }
    QVERIFY(found);
  }

  void kmeansKernelsStackAndIterationsLine() {
    RunResult run = makeRun(clustering::kKMeans, 256,
                            {{"shared-coalesced", 3.5, 3, 4}, {"global-interleaved", 9, 8, 10}});
    const char* names[] = {"assignKernel", "centroidKernel", "scoreKernel"};
    for (size_t v = 0; v < run.variants.size(); ++v) {
      for (int k = 0; k < 3; ++k) {
        KernelResult kr;
        kr.name = names[k];
        kr.totalMs = (v + 1) * (k + 1) * 0.5;
        run.variants[v].kernels.push_back(kr);
      }
      run.variants[v].phases.push_back({"host to device", 0.25});
      for (int it = 0; it < 4; ++it) {
        IterationRecord r;
        r.iteration = it;
        r.score = 100.0 / (it + 1);
        r.kernelMs = {0.1, 0.2, 0.3};
        run.variants[v].iterations.push_back(r);
      }
    }
    const TimingCharts charts = buildTimingCharts(selectionOf({run}), ChartOptions{});
    const ChartSpec* kernels = chart(charts, QStringLiteral("kernels"));
    QVERIFY(kernels);
    QCOMPARE(kernels->kind, widgets::ChartKind::StackedBars);
    QCOMPARE(kernels->categories.size(), 2);
    QCOMPARE(kernels->series.size(), 4);  // three kernels and one transfer phase
    const ChartSeries* centroid = series(*kernels, QStringLiteral("centroidKernel"));
    QCOMPARE(centroid->y, (QVector<double>{1.0, 2.0}));
    QCOMPARE(series(*kernels, QStringLiteral("host to device"))->y, (QVector<double>{0.25, 0.25}));
    const ChartSpec* score = chart(charts, QStringLiteral("score"));
    QCOMPARE(score->series.size(), 2);
    QCOMPARE(score->series[0].y, (QVector<double>{100, 50, 100.0 / 3, 25}));
    const ChartSpec* perIteration = chart(charts, QStringLiteral("iteration-time"));
    QVERIFY(std::fabs(perIteration->series[0].y[2] - 0.6) < 1e-12);
  }


  // Issue 14, item 5: beside a CPU run, KernelLab's own H200 runs, labelled with their date.
  void cpuRunsShowTheH200Reference() {
    const PublishedBaselines& ref = gpuReference();
    QVERIFY2(ref.error.isEmpty(), qPrintable(ref.error));
    const RunSelection sel = selectionOf({makeRun(transpose::kFamily, 256,
                                                  {{"copy", 1, 1, 1, 100, 1.0},
                                                   {"naive", 2, 2, 2, 46, 0.46},
                                                   {"padded", 3, 3, 3, 32, 0.32}})});
    ChartOptions opt;
    opt.showPublished = false;
    const TimingCharts charts = buildTimingCharts(sel, opt);
    const ChartSpec* fraction = chart(charts, QStringLiteral("fraction"));
    QVERIFY(fraction);
    QString h200;
    for (const QString& c : fraction->categories)
      if (c == QStringLiteral("H200 (measured 2026-11-29)")) h200 = c;
    QVERIFY2(!h200.isEmpty(), qPrintable(fraction->categories.join(QStringLiteral(" | "))));
    const ChartSeries* naive =
        series(*fraction, QStringLiteral("H200, measured 2026-11-29: %1")
                              .arg(variantTitle(transpose::kFamily, "naive")));
    QVERIFY(naive);
    QVERIFY(naive->published && naive->reference);
    QVERIFY(std::fabs(valueAt(*fraction, *naive, h200) - 554.9 / 4015.6 * 100) < 1e-9);
    // The CPU's own bars stay what it measured, in their own category.
    const ChartSeries* measured = series(*fraction, variantTitle(transpose::kFamily, "naive"));
    QCOMPARE(valueAt(*fraction, *measured, QStringLiteral("CPU · TPB 256")), 46.0);
    QVERIFY(fraction->caption.contains(QStringLiteral("cross-hatched")));
    // The CPU's 100 GB/s beside the H200's 4,016 GB/s: a linear axis drew no CPU bar, so the
    // bandwidth chart is logarithmic and says why; the share chart (46 % beside 14..90 %) is not.
    const ChartSpec* bandwidth = chart(charts, QStringLiteral("bandwidth"));
    QVERIFY(bandwidth);
    QVERIFY(bandwidth->logY);
    QVERIFY(bandwidth->notes.join(QLatin1Char(' ')).contains(QStringLiteral("Logarithmic value axis")));
    QVERIFY(!fraction->logY);
    // Every chart of a CPU run says it is one.
    for (const auto& c : charts.charts)
      QVERIFY2(c.notes.join(QLatin1Char(' ')).contains(QStringLiteral("CPU backend")), qPrintable(c.id));
    // Not beside a GPU run, and not when switched off.
    for (const auto& c :
         buildTimingCharts(
             selectionOf({makeRun(transpose::kFamily, 256, {{"copy", 1, 1, 1, 100, 1.0}}, "cuda")}),
             opt)
             .charts) {
      for (const auto& ser : c.series) QVERIFY(!ser.reference);
      QVERIFY(!c.logY);
    }
    opt.showGpuReference = false;
    for (const auto& c : buildTimingCharts(sel, opt).charts)
      for (const auto& ser : c.series) QVERIFY(!ser.reference);
    // k-centers: the H200's times per TPB beside the CPU's, when the CPU ran the same problem.
    const TimingCharts kc = buildTimingCharts(
        selectionOf({withProblem(makeRun(clustering::kKCenters, 256, {{"shared-coalesced", 10, 9, 11}}), 1000000, 100, 200)}),
        ChartOptions{});
    const ChartSeries* h200kc = series(*chart(kc, QStringLiteral("time")), QStringLiteral("H200, measured 2026-11-29: Coalesced + shared"));
    QVERIFY(h200kc && h200kc->reference);
    QCOMPARE(h200kc->y, (QVector<double>{22.63, 20.51, 20.27, 20.29, 20.62}));
    QVERIFY(!chart(kc, QStringLiteral("time-reference")));
  }

  // Issue 14, item 5: times of another problem never share the millisecond axis. A CPU k-means
  // at N = 20,000 beside the H200 at N = 1e6 read as the GPU being 40x slower; the published and
  // H200 times now stand in a chart of their own that names both problems.
  void timesOfAnotherProblemGetTheirOwnChart() {
    const TimingCharts charts = buildTimingCharts(
        selectionOf({withProblem(makeRun(clustering::kKMeans, 256, {{"shared-coalesced", 15, 14, 16}}), 20000, 6, 3)}),
        ChartOptions{});
    const ChartSpec* time = chart(charts, QStringLiteral("time"));
    QVERIFY(time);
    for (const auto& s : time->series) QVERIFY2(!s.published, qPrintable(s.name));
    QVERIFY(time->notes.join(QLatin1Char(' ')).contains(QStringLiteral("Times on their own problem")));
    const ChartSpec* apart = chart(charts, QStringLiteral("time-reference"));
    QVERIFY(apart);
    QVERIFY2(apart->title.contains(QStringLiteral("N=1,000,000 K=100 D=200")), qPrintable(apart->title));
    int reference = 0;
    for (const auto& s : apart->series) {
      QVERIFY(s.published);
      reference += s.reference;
    }
    QVERIFY(reference > 0);
    const QString notes = apart->notes.join(QLatin1Char(' '));
    QVERIFY2(notes.contains(QStringLiteral("N=20,000")) || notes.contains(QStringLiteral("N=20000")), qPrintable(notes));
    // The same run at the reference's problem: the H200 bars join the measured ones.
    const TimingCharts same = buildTimingCharts(
        selectionOf({withProblem(makeRun(clustering::kKMeans, 256, {{"shared-coalesced", 15, 14, 16}}), 1000000, 100, 200)}),
        ChartOptions{});
    bool joined = false;
    for (const auto& s : chart(same, QStringLiteral("time"))->series) joined = joined || s.reference;
    QVERIFY(joined);
    QVERIFY(!chart(same, QStringLiteral("time-reference")));
  }

  // Issue 14, item 8: "Kernel time per iteration" is the median repetition, and says so.
  // Issue 14, item 5: min-max spreads of 2x on the CPU were shown without a word; the notes now
  // say how far the repetitions scatter and which variant scattered most.
  void scatteredRepetitionsAreNamed() {
    const TimingCharts steady = buildTimingCharts(
        selectionOf({makeRun(transpose::kFamily, 256, {{"copy", 1, 0.95, 1.1, 100, 1.0}, {"naive", 2, 1.9, 2.2, 50, 0.5}})}),
        ChartOptions{});
    QVERIFY(!chart(steady, QStringLiteral("time"))->notes.join(QLatin1Char(' ')).contains(QStringLiteral("scatter")));
    const TimingCharts noisy = buildTimingCharts(
        selectionOf({makeRun(transpose::kFamily, 256, {{"copy", 1, 0.95, 1.1, 100, 1.0}, {"naive", 2, 1.5, 3.3, 50, 0.5}})}),
        ChartOptions{});
    const QString notes = chart(noisy, QStringLiteral("time"))->notes.join(QLatin1Char(' '));
    QVERIFY2(notes.contains(QStringLiteral("up to 2.2x the fastest (%1, run").arg(variantTitle(transpose::kFamily, "naive"))),
             qPrintable(notes));
    QVERIFY(notes.contains(QStringLiteral("other processes share")));
  }

  void iterationTimesAreTheMedianRepetition() {
    RunResult run = makeRun(clustering::kKMeans, 256, {{"shared-coalesced", 3.5, 3, 4}});
    for (int it = 0; it < 3; ++it) {
      IterationRecord r;
      r.iteration = it + 1;
      r.kernelMs = {0.5, 0.5, 0.1};
      run.variants[0].iterations.push_back(r);
    }
    KernelResult kr;
    kr.name = "assign";
    run.variants[0].kernels = {kr, kr, kr};
    run.variants[0].iterationsFrom = "median";
    const TimingCharts tCharts = buildTimingCharts(selectionOf({run}), ChartOptions{});
    const ChartSpec* t = chart(tCharts, QStringLiteral("iteration-time"));
    QVERIFY(t);
    QVERIFY(t->title.contains(QStringLiteral("median")));
    QVERIFY2(t->series[0].name.endsWith(QStringLiteral("(median of 5)")), qPrintable(t->series[0].name));
    run.variants[0].iterationsFrom.clear();  // a file written before the median was kept
    const TimingCharts oldCharts = buildTimingCharts(selectionOf({run}), ChartOptions{});
    const ChartSpec* old = chart(oldCharts, QStringLiteral("iteration-time"));
    QVERIFY2(old->series[0].name.endsWith(QStringLiteral("(last repetition)")), qPrintable(old->series[0].name));
    QVERIFY(old->notes.join(QLatin1Char(' ')).contains(QStringLiteral("before KernelLab kept the median")));
  }

  // Issue 14, item 4: a file of several families charts each of them.
  void mixedFamiliesChartEachFamily() {
    RunResult km = makeRun(clustering::kKMeans, 256, {{"shared-coalesced", 3.5, 3, 4}});
    KernelResult kr;
    kr.name = "assign";
    km.variants[0].kernels = {kr, kr};
    const RunSelection sel =
        selectionOf({makeRun(transpose::kFamily, 256, {{"copy", 1, 1, 1, 100, 1.0}}), km});
    QVERIFY(familiesOf(sel) == (QVector<Family>{transpose::kFamily, clustering::kKMeans}));
    const TimingCharts first = buildTimingCharts(sel, ChartOptions{});
    QCOMPARE(first.family, transpose::kFamily);
    QVERIFY(chart(first, QStringLiteral("time"))->notes.join(QLatin1Char(' ')).contains(QStringLiteral("choose their family")));
    ChartOptions kmeans;
    kmeans.family = clustering::kKMeans;
    const TimingCharts second = buildTimingCharts(sel, kmeans);
    QCOMPARE(second.family, clustering::kKMeans);
    QVERIFY(chart(second, QStringLiteral("kernels")));
  }

  // Issue 14, item 4: the default speed-up compares variants of one size, never the copy.
  void speedupDefaultComparesLikeWithLike() {
    RunResult small = makeRun(transpose::kFamily, 256,
                              {{"copy", 0.13, 0.13, 0.13, 4000, 1},
                               {"naive", 0.97, 0.9, 1, 550, 0.14},
                               {"padded", 0.15, 0.15, 0.16, 3500, 0.87}},
                              "cuda");
    small.request.section<TransposeProblem>().width =
        small.request.section<TransposeProblem>().height = 8192;
    RunResult large = makeRun(
        transpose::kFamily, 256,
        {{"copy", 0.51, 0.5, 0.52, 4100, 1}, {"padded", 0.6, 0.6, 0.61, 3500, 0.85}}, "cuda");
    large.request.section<TransposeProblem>().width =
        large.request.section<TransposeProblem>().height = 16384;
    ChartOptions opt;
    opt.showPublished = false;
    const TimingCharts charts = buildTimingCharts(selectionOf({small, large}), opt);
    widgets::SpeedupPanel panel;
    panel.setEntries(charts.speedups);
    const QString text = panel.oldLabel() + QStringLiteral(" / ") + panel.newLabel();
    QVERIFY2(text.count(QStringLiteral("8192x8192")) == 2, qPrintable(text));
    QVERIFY2(!text.contains(variantTitle(transpose::kFamily, "copy")), qPrintable(text));
    QVERIFY2(text.contains(variantTitle(transpose::kFamily, "naive")), qPrintable(text));
  }

  void tooltipsGiveExactValues() {
    const RunSelection sel = selectionOf({withProblem(
        makeRun(clustering::kKCenters, 256, {{"shared-coalesced", 12.3456789, 11.5, 13.25}}), 1000000, 100, 200)});
    const TimingCharts charts = buildTimingCharts(sel, ChartOptions{});
    const ChartSpec* time = chart(charts, QStringLiteral("time"));
    int measured = -1, published = -1;
    for (int i = 0; i < time->series.size(); ++i)
      if (!time->series[i].reference) (time->series[i].published ? published : measured) = i;
    const QString tip = widgets::pointTooltip(*time, measured, 0);
    QVERIFY2(tip.contains(QStringLiteral("12.34568 ms")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("min 11.5")));
    QVERIFY(tip.contains(QStringLiteral("max 13.25 ms")));
    QVERIFY(tip.contains(QStringLiteral("TPB 256")));
    const QString pub = widgets::pointTooltip(*time, published, 4);
    QVERIFY2(pub.contains(QStringLiteral("Published figure")), qPrintable(pub));
    QVERIFY(pub.contains(QStringLiteral("Orrit")));
  }

  void speedupAndGain() {
    // The thesis's own comparison at TPB 512: coalesced + global vs coalesced + shared.
    const auto r = widgets::computeSpeedup(328.09, 286.42);
    QVERIFY(r.valid);
    QVERIFY(std::fabs(r.speedup - 328.09 / 286.42) < 1e-12);
    QVERIFY(std::fabs(r.gainPercent - (328.09 - 286.42) / 328.09 * 100) < 1e-12);
    QVERIFY(std::fabs(r.speedup - 1.1455) < 1e-4);
    QVERIFY(std::fabs(r.gainPercent - 12.70) < 0.01);
    QVERIFY(!widgets::computeSpeedup(0, 1).valid);
    QVERIFY(!widgets::computeSpeedup(1, std::nan("")).valid);
    const auto slower = widgets::computeSpeedup(1, 2);
    QCOMPARE(slower.speedup, 0.5);
    QCOMPARE(slower.gainPercent, -100.0);
  }

  void speedupPanelDefaultsAndKeepsAChoice() {
    widgets::SpeedupPanel panel;
    panel.setEntries({{QStringLiteral("paper A"), 500, true}, {QStringLiteral("naive"), 8, false},
                      {QStringLiteral("padded"), 2, false}, {QStringLiteral("paper B"), 1, true}});
    // Measured entries first: slowest over fastest.
    QVERIFY2(panel.resultText().startsWith(QStringLiteral("S = 4.000x")), qPrintable(panel.resultText()));
    QVERIFY(panel.choose(QStringLiteral("paper A"), QStringLiteral("padded")));
    QVERIFY(panel.resultText().startsWith(QStringLiteral("S = 250.0x")));
    panel.setEntries({{QStringLiteral("paper A"), 500, true}, {QStringLiteral("padded"), 2.5, false},
                      {QStringLiteral("tiled"), 3, false}});
    QVERIFY2(panel.resultText().startsWith(QStringLiteral("S = 200.0x")), qPrintable(panel.resultText()));
    QVERIFY(panel.resultText().contains(QStringLiteral("gain 99.5 %")));
  }

  // Issue 15: the pruned k-centers variant's coordinates read per center, as a share of N, next
  // to the time; only for runs that counted them, exported as data like every chart.
  void coordinatesReadPerCenterIsVisitedOverN() {
    RunResult run = makeRun(clustering::kKCenters, 256, {{"best", 2, 2, 2}, {"pruned", 1, 1, 1}});
    run.request.section<ClusteringProblem>().n = 1000;
    const std::vector<int64_t> visited = {1000, 480, 120, 7};
    const std::vector<int64_t> screened = {0, 900, 500, 100};
    for (VariantResult& v : run.variants)
      for (size_t j = 0; j < visited.size(); ++j) {
        IterationRecord r;
        r.iteration = static_cast<int>(j) + 1;
        r.score = 10.0 - double(j);
        if (v.variant == "pruned") {  // best reads every point: uncounted
          r.visited = visited[j];
          r.screened = screened[j];
        }
        v.iterations.push_back(r);
      }
    const TimingCharts charts = buildTimingCharts(selectionOf({run}), ChartOptions{});
    const ChartSpec* read = chart(charts, QStringLiteral("coordinates-read"));
    QVERIFY(read);
    QCOMPARE(read->title, QStringLiteral("Coordinates read per center"));
    QCOMPARE(read->kind, widgets::ChartKind::Lines);
    // The pruned variant's two lines only: float coordinates (solid) and sketch (dashed), in
    // its colour.
    QCOMPARE(read->series.size(), 2);
    QVERIFY(read->series[0].name.startsWith(variantTitle(clustering::kKCenters, "pruned")));
    QVERIFY(read->series[0].name.endsWith(QStringLiteral("float coordinates")));
    QVERIFY(!read->series[0].dashed);
    QVERIFY(read->series[1].name.endsWith(QStringLiteral("8-bit sketch")));
    QVERIFY(read->series[1].dashed);
    QCOMPARE(read->series[1].colorIndex, read->series[0].colorIndex);
    QCOMPARE(read->series[0].x, (QVector<double>{1, 2, 3, 4}));
    QCOMPARE(read->series[0].y, (QVector<double>{1.0, 0.48, 0.12, 0.007}));
    QCOMPARE(read->series[1].x, (QVector<double>{2, 3, 4}));  // center 1 has no sketch test
    QCOMPARE(read->series[1].y, (QVector<double>{0.9, 0.5, 0.1}));
    QVERIFY(read->series[0].notes[1].startsWith(QStringLiteral("480 of ")));
    // The sketch point's tooltip adds the coordinate bytes: 0.48 + 0.9 / 4 = 70.5 % of a read.
    QVERIFY2(read->series[1].notes[0].contains(QStringLiteral("70.5 %")),
             qPrintable(read->series[1].notes[0]));
    // No screened counts (the lazy CPU engine, or a file from before the sketch): the float line
    // alone, and the notes explain the lazy reads instead of the two tests.
    {
      RunResult older = run;
      for (VariantResult& v : older.variants)
        for (IterationRecord& r : v.iterations) r.screened = -1;
      const TimingCharts olderCharts = buildTimingCharts(selectionOf({older}), ChartOptions{});
      const ChartSpec* one = chart(olderCharts, QStringLiteral("coordinates-read"));  // (alive)
      QVERIFY(one);
      QCOMPARE(one->series.size(), 1);
      QVERIFY(one->notes.join(' ').contains(QStringLiteral("lazy traversal")));
      QVERIFY(!one->notes.join(' ').contains(QStringLiteral("Dashed, diamonds")));
    }
    QVERIFY(read->notes.join(' ').contains(QStringLiteral("Dashed, diamonds")));
    // The CUDA engine's several centers a pass: each tooltip says whether its center ended a pass
    // or was chosen by the plan; records without the count (older files) say neither.
    QVERIFY(!read->series[0].notes[1].contains(QStringLiteral("pass")));
    {
      RunResult batched = run;
      const std::vector<int> pass = {1, 0, 0, 1};
      for (VariantResult& v : batched.variants)
        if (v.variant == "pruned")
          for (size_t j = 0; j < pass.size(); ++j) v.iterations[j].pass = pass[j];
      const TimingCharts batchedCharts = buildTimingCharts(selectionOf({batched}), ChartOptions{});
      const ChartSpec* b = chart(batchedCharts, QStringLiteral("coordinates-read"));
      QVERIFY(b);
      QVERIFY2(b->series[0].notes[0].endsWith(QStringLiteral("a pass over the N points ended here")),
               qPrintable(b->series[0].notes[0]));
      QVERIFY2(b->series[0].notes[1].contains(QStringLiteral("chosen by the plan")),
               qPrintable(b->series[0].notes[1]));
      QVERIFY(b->notes.join(' ').contains(QStringLiteral("Several centers a pass")));
    }
    // Exported through the same ChartSpec path as the other charts.
    const QStringList csv = widgets::chartToCsv(*read).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), 8);  // a header, four float points and three sketch points
    const QJsonObject point = QJsonDocument::fromJson(widgets::chartToJson(*read))
                                  .object()["series"]
                                  .toArray()[0]
                                  .toObject()["points"]
                                  .toArray()[2]
                                  .toObject();
    QCOMPARE(point["value"].toDouble(), 0.12);
    // No run that counted: no chart.
    for (VariantResult& v : run.variants)
      for (IterationRecord& r : v.iterations) r.visited = -1;
    QVERIFY(!chart(buildTimingCharts(selectionOf({run}), ChartOptions{}),
                   QStringLiteral("coordinates-read")));
  }

  // Issue 15: the pruned k-means' work per iteration (points read and distances computed, as
  // shares of N and N K); two runs of it (the seed's data, one broad cloud) in two colours.
  void kmeansWorkPerIterationIsReadOverN() {
    RunResult run = makeRun(clustering::kKMeans, 256, {{"best", 2, 2, 2}, {"pruned", 1, 1, 1}});
    run.request.section<ClusteringProblem>().n = 1000;
    run.request.section<ClusteringProblem>().k = 10;
    const std::vector<int64_t> visited = {1000, 600, 40};
    const std::vector<int64_t> distances = {10000, 5000, 100};
    for (VariantResult& v : run.variants)
      for (size_t j = 0; j < visited.size(); ++j) {
        IterationRecord r;
        r.iteration = static_cast<int>(j) + 1;
        r.score = 10.0 - double(j);
        if (v.variant == "pruned") {
          r.visited = visited[j];
          r.distances = distances[j];
        }
        v.iterations.push_back(r);
      }
    const ChartSpec* work = chart(buildTimingCharts(selectionOf({run}), ChartOptions{}),
                                  QStringLiteral("coordinates-read"));
    QVERIFY(work);
    QCOMPARE(work->title, QStringLiteral("Points read per iteration"));
    QCOMPARE(work->xLabel, QStringLiteral("Iteration"));
    QCOMPARE(work->series.size(), 2);
    QVERIFY(work->series[0].name.startsWith(variantTitle(clustering::kKMeans, "pruned")));
    QVERIFY(!work->series[0].dashed);
    QVERIFY(work->series[1].dashed);
    QCOMPARE(work->series[0].y, (QVector<double>{1.0, 0.6, 0.04}));
    QCOMPARE(work->series[1].y, (QVector<double>{1.0, 0.5, 0.01}));
    QVERIFY2(work->series[1].notes[1].startsWith(QStringLiteral("5,000 of 10,000")),
             qPrintable(work->series[1].notes[1]));
    // Two runs of it: four lines, the second run's in another colour.
    const RunResult second = run;
    const ChartSpec* two = chart(buildTimingCharts(selectionOf({run, second}), ChartOptions{}),
                                 QStringLiteral("coordinates-read"));
    QVERIFY(two);
    QCOMPARE(two->series.size(), 4);
    QCOMPARE(two->series[1].colorIndex, two->series[0].colorIndex);
    QVERIFY(two->series[2].colorIndex != two->series[0].colorIndex);
  }

  void chartDataAsCsvAndJson() {
    ChartSpec spec;
    spec.id = QStringLiteral("t");
    spec.unit = QStringLiteral("ms");
    spec.categories = {QStringLiteral("TPB 64"), QStringLiteral("TPB 128, big")};
    ChartSeries s;
    s.name = QStringLiteral("Naive \"v1\"");
    s.x = {0, 1};
    s.y = {1.5, 2.25};
    s.low = {1, 2};
    s.high = {2, 3};
    spec.series << s;
    const QStringList lines = widgets::chartToCsv(spec).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[2].startsWith(QStringLiteral("\"Naive \"\"v1\"\"\",no,1,\"TPB 128, big\",2.25,2,3,ms")));
    const QJsonDocument doc = QJsonDocument::fromJson(widgets::chartToJson(spec));
    QVERIFY(doc.isObject());
    const QJsonObject p = doc.object()["series"].toArray()[0].toObject()["points"].toArray()[1].toObject();
    QCOMPARE(p["value"].toDouble(), 2.25);
    QCOMPARE(p["category"].toString(), QStringLiteral("TPB 128, big"));
  }

  // Issue 17: a k-means run says why it stopped and after how many iterations, in the results
  // table (and so its CSV) and in the report, one line per variant.
  void kmeansStopReasonsReachTheTableAndTheReport() {
    RunResult r = makeRun(clustering::kKMeans, 256, {{"shared-coalesced", 1, 1, 1}, {"global-coalesced", 1, 1, 1}});
    ClusteringOutput converged;
    converged.iterations = 12;
    converged.stopReason = StopReason::Converged;
    r.variants[0].details.set(converged);
    ClusteringOutput limit;
    limit.iterations = 5;
    limit.stopReason = StopReason::IterationLimit;
    r.variants[1].details.set(limit);
    const RunSelection sel = selectionOf({r});
    const TableData t = buildResultsTable(sel);
    const int stopped = static_cast<int>(t.headers.indexOf(QStringLiteral("Stopped")));
    QVERIFY(stopped >= 0);
    QCOMPARE(t.rows.size(), 2);
    QCOMPARE(t.rows[0][stopped], QString::fromStdString(describeStop(StopReason::Converged, 12)));
    QVERIFY2(t.rows[0][stopped].contains(QStringLiteral("12 iterations")), qPrintable(t.rows[0][stopped]));
    QVERIFY2(t.rows[1][stopped].contains(QStringLiteral("5 iterations")), qPrintable(t.rows[1][stopped]));
    QVERIFY(t.rows[0][stopped] != t.rows[1][stopped]);
    QVERIFY(tableToCsv(t).contains(t.rows[1][stopped]));
    ReportContent c;
    c.selection = sel;
    c.table = t;
    const QString html = reportHtml(c, {});
    QVERIFY(html.contains(QStringLiteral("<th>Stopped</th>")));
    QVERIFY(html.contains(t.rows[0][stopped].toHtmlEscaped()));
    QVERIFY(html.contains(t.rows[1][stopped].toHtmlEscaped()));
  }
};

QTEST_MAIN(TstChartBuilder)
#include "tst_chart_builder.moc"
