// SPDX-License-Identifier: MIT
// ScheduleView: histogram bars are the model's partition loads of the current wave, the tile
// grid's pixels follow dispatch order, the scrubber and the partition toggle drive both sides.
#include <QSignalSpy>
#include <QtTest>

#include "kernellab/occupancy.h"
#include "model_colors.h"
#include "schedule_view.h"
#include "tile_grid_view.h"

using namespace kernellab;
using namespace kernellab::widgets;
using schedule::Mapping;

class TstScheduleView : public QObject {
  Q_OBJECT

  static schedule::Config gt200() {
    schedule::Config c;
    c.gridX = 64;
    c.gridY = 64;
    const auto a = occupancy::archById("gt200");
    c.smCount = a.smCount;
    c.blocksPerSM = occupancy::calculate(a, {256, 16, 32 * 33 * 4}).activeBlocks;
    return c;
  }

  static void compareBars(const ScheduleView& v, Mapping m, int wave) {
    const auto& w = v.model(m).waves[size_t(wave)];
    const QVector<double> written = v.writtenKiB(m), read = v.readKiB(m);
    QCOMPARE(written.size(), int(w.writeBytes.size()));
    for (int p = 0; p < written.size(); ++p) {
      QCOMPARE(written[p], double(w.writeBytes[size_t(p)]) / 1024.0);
      QCOMPARE(read[p], double(w.readBytes[size_t(p)]) / 1024.0);
    }
  }

 private slots:
  void histogramShowsTheCurrentWavesPartitionLoad() {
    ScheduleView v;
    v.resize(1100, 800);
    v.setConfig(gt200());
    QCOMPARE(v.waveCount(), 46);
    compareBars(v, Mapping::Cartesian, 0);
    compareBars(v, Mapping::Diagonal, 0);
    // Wave 0, Cartesian: every write lands in partition 0 (one tile row of the output's columns).
    const QVector<double> cart = v.writtenKiB(Mapping::Cartesian);
    QVERIFY(cart[0] > 0);
    for (int p = 1; p < cart.size(); ++p) QCOMPARE(cart[p], 0.0);
    for (double kib : v.writtenKiB(Mapping::Diagonal)) QVERIFY(kib > 0);

    QSignalSpy spy(&v, &ScheduleView::waveChanged);
    v.setWave(7);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toInt(), 7);
    compareBars(v, Mapping::Cartesian, 7);
    compareBars(v, Mapping::Diagonal, 7);
    QCOMPARE(v.grid(Mapping::Cartesian)->wave(), 7);
    QCOMPARE(v.grid(Mapping::Diagonal)->wave(), 7);
    v.setWave(1000);  // clamped
    QCOMPARE(v.wave(), 45);
  }

  void gridPixelsFollowDispatchOrder() {
    ScheduleView v;
    v.resize(1100, 800);
    schedule::Config c = gt200();
    c.gridX = 12;
    c.gridY = 12;
    c.smCount = 4;
    c.blocksPerSM = 3;  // 12 blocks per wave: one tile row
    v.setConfig(c);
    v.setWave(2);
    for (Mapping m : {Mapping::Cartesian, Mapping::Diagonal}) {
      TileGridView* g = v.grid(m);
      g->resize(360, 360);
      const QImage img = g->grab().toImage();
      const double ratio = img.width() / double(g->width());
      const int n = 144;
      for (int row = 0; row < 12; ++row)
        for (int col = 0; col < 12; ++col) {
          const int id = g->blockAt(col, row);
          QVERIFY(id >= 0);
          const int wave = id / 12;
          const QColor order = orderColor(double(id) / (n - 1));
          const QColor expected = wave == 2 ? order : faded(order, wave < 2 ? 0.55 : 0.85);
          QCOMPARE(g->tileColor(col, row), expected);
          // Sample inside the tile, clear of its outline and its partition label.
          const QRectF r = g->tileRect(col, row);
          const QPoint at((r.left() + r.width() * 0.2) * ratio, (r.top() + r.height() * 0.2) * ratio);
          QCOMPARE(img.pixelColor(at).rgb(), expected.rgb());
        }
      // Output matrix of the Cartesian order: block id = tile.x + 12 * tile.y, shown at (y, x).
      if (m == Mapping::Cartesian) {
        QCOMPARE(g->matrix(), TileGridView::Matrix::Output);
        QCOMPARE(g->blockAt(3, 5), 5 + 12 * 3);
      }
    }
  }

  void noteSaysWhenPartitionCampingMattered() {
    ScheduleView v;
    QVERIFY(v.noteText().contains("compute capability 2.0"));
    QVERIFY(v.noteText().contains("hashed"));
  }

  void hashedToggleRecomputesBothSides() {
    ScheduleView v;
    v.setConfig(gt200());
    const double linear = v.model(Mapping::Cartesian).meanWorstWriteShare;
    QSignalSpy spy(&v, &ScheduleView::partitionMappingChanged);
    v.setHashedPartitions(true);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(v.model(Mapping::Cartesian).config.partitions.mapping, schedule::PartitionMapping::Hashed);
    QCOMPARE(v.model(Mapping::Diagonal).config.partitions.mapping, schedule::PartitionMapping::Hashed);
    QVERIFY(v.model(Mapping::Cartesian).meanWorstWriteShare < linear);
    compareBars(v, Mapping::Cartesian, v.wave());
  }

  void playStepsAndStops() {
    ScheduleView v;
    v.setConfig(gt200());
    v.play();
    QVERIFY(v.isPlaying());
    v.pause();
    QVERIFY(!v.isPlaying());
    v.setWave(v.waveCount() - 1);
    v.play();  // at the end: starts over from the first wave
    QCOMPARE(v.wave(), 0);
    v.pause();
  }
};

QTEST_MAIN(TstScheduleView)
#include "tst_schedule_view.moc"
