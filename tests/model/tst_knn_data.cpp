// SPDX-License-Identifier: MIT
// KNN feature images: the seeded generator (smooth regions, edges, noise, ties) and the .npy
// reader's acceptance of good files and one-line refusal of bad ones.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernellab/errors.h"
#include "kernellab/knn.h"

using namespace kernellab;
using namespace kernellab::knn;

namespace {

// Writes a .npy file byte by byte (so the reader is tested against the format, not our writer).
QByteArray npy(const QByteArray& descr, const QByteArray& shape, const QByteArray& data,
               bool fortran = false, int major = 1) {
  QByteArray header = "{'descr': '" + descr + "', 'fortran_order': " +
                      (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  const int prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header.append(' ');
  header.append('\n');
  QByteArray out("\x93NUMPY", 6);
  out.append(char(major));
  out.append(char(0));
  const quint32 len = static_cast<quint32>(header.size());
  out.append(char(len & 0xFF));
  out.append(char((len >> 8) & 0xFF));
  if (major != 1) {
    out.append(char((len >> 16) & 0xFF));
    out.append(char((len >> 24) & 0xFF));
  }
  return out + header + data;
}

template <class T>
QByteArray raw(const std::vector<T>& v) {
  return QByteArray(reinterpret_cast<const char*>(v.data()), static_cast<int>(v.size() * sizeof(T)));
}

}  // namespace

class TstKnnData : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  QString write(const QString& name, const QByteArray& bytes) {
    const QString path = dir_.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(bytes);
    return path;
  }

 private slots:
  void generatorIsSeededAndShaped() {
    const Image a = makeImage(41, 37, 3, 7), b = makeImage(41, 37, 3, 7), c = makeImage(41, 37, 3, 8);
    QCOMPARE(a.rows, 41);
    QCOMPARE(a.cols, 37);
    QCOMPARE(a.components, 3);
    QCOMPARE(a.planes.size(), size_t(41 * 37 * 3));
    QVERIFY(a.planes == b.planes);
    QVERIFY(a.planes != c.planes);
  }

  void generatorValuesAreFiniteAndQuantised() {
    const Image img = makeImage(64, 80, 4, 1);
    for (float v : img.planes) {
      QVERIFY(std::isfinite(v));
      const double steps = double(v) * 4096.0;
      QCOMPARE(steps, std::nearbyint(steps));  // multiples of 2^-12
    }
  }

  void generatorHasSmoothRegionsEdgesAndTies() {
    const Image img = makeImage(200, 240, 1, 3);
    std::vector<double> steps;
    for (int r = 0; r < img.rows; ++r)
      for (int c = 1; c < img.cols; ++c) {
        const int64_t p = int64_t(r) * img.cols + c;
        steps.push_back(std::fabs(double(img.at(p, 0)) - img.at(p - 1, 0)));
      }
    std::sort(steps.begin(), steps.end());
    // Most horizontal steps are small (smooth regions with a little noise) ...
    QVERIFY2(steps[steps.size() / 2] < 0.02, qPrintable(QString::number(steps[steps.size() / 2])));
    // ... and some are large (edges between regions).
    QVERIFY(steps.back() > 0.1);
    // Exact ties: many pixels share a value, so the tie rule matters.
    std::vector<float> sorted = img.planes;
    std::sort(sorted.begin(), sorted.end());
    const auto distinct = std::unique(sorted.begin(), sorted.end()) - sorted.begin();
    QVERIFY(distinct < static_cast<long>(img.planes.size() / 4));
  }

  void laterComponentsVaryLess() {
    const Image img = makeImage(120, 120, 4, 5);
    auto spread = [&](int c) {
      double mean = 0, var = 0;
      const int64_t n = img.pixels();
      for (int64_t p = 0; p < n; ++p) mean += img.at(p, c);
      mean /= double(n);
      for (int64_t p = 0; p < n; ++p) var += (img.at(p, c) - mean) * (img.at(p, c) - mean);
      return var / double(n);
    };
    QVERIFY(spread(0) > spread(1));
    QVERIFY(spread(1) > spread(3));
  }

  void generatorRefusesBadSizes() {
    QVERIFY_THROWS_EXCEPTION(InputError, makeImage(0, 10, 1, 1));
    QVERIFY_THROWS_EXCEPTION(InputError, makeImage(10, 10, 33, 1));
  }

  void loadsFloat32TwoDimensions() {
    std::vector<float> v(3 * 4);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5f * float(i) - 1.0f;
    const QString path = write("f32.npy", npy("<f4", "(3, 4)", raw(v)));
    QCOMPARE(readNpyShape(path.toStdString()).rows, 3);
    const Image img = loadNpyImage(path.toStdString());
    QCOMPARE(img.rows, 3);
    QCOMPARE(img.cols, 4);
    QCOMPARE(img.components, 1);
    for (size_t i = 0; i < v.size(); ++i) QCOMPARE(img.planes[i], v[i]);
  }

  void loadsFloat64ThreeDimensionsIntoPlanes() {
    // (rows 2, cols 3, C 2), C order: value = 100 r + 10 c + ch.
    std::vector<double> v;
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c)
        for (int ch = 0; ch < 2; ++ch) v.push_back(100 * r + 10 * c + ch);
    const QString path = write("f64.npy", npy("<f8", "(2, 3, 2)", raw(v), false, 2));
    const Image img = loadNpyImage(path.toStdString());
    QCOMPARE(img.components, 2);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c)
        for (int ch = 0; ch < 2; ++ch) QCOMPARE(img.at(r * 3 + c, ch), float(100 * r + 10 * c + ch));
  }

  void saveAndLoadRoundTrip() {
    const Image a = makeImage(13, 17, 5, 2);
    const QString path = dir_.filePath("round.npy");
    saveNpyImage(path.toStdString(), a);
    const Image b = loadNpyImage(path.toStdString());
    QCOMPARE(b.rows, 13);
    QCOMPARE(b.cols, 17);
    QCOMPARE(b.components, 5);
    QVERIFY(a.planes == b.planes);
  }

  void badFilesGiveOneLineNamingTheProblem_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const std::vector<float> four(4, 1.0f);
    std::vector<float> withNan(6, 1.0f), withInf(6, 1.0f);
    withNan[4] = std::numeric_limits<float>::quiet_NaN();  // (1, 1) of a 2 x 3 image
    withInf[5] = std::numeric_limits<float>::infinity();
    QTest::newRow("not npy") << QByteArray("hello, world, this is text") << "not a .npy file";
    QTest::newRow("int32") << npy("<i4", "(2, 2)", raw(std::vector<int32_t>(4, 1))) << "dtype '<i4' is not supported";
    QTest::newRow("big endian") << npy(">f4", "(2, 2)", raw(four)) << "big-endian";
    QTest::newRow("fortran") << npy("<f4", "(2, 2)", raw(four), true) << "fortran_order is True";
    QTest::newRow("1-D") << npy("<f4", "(4,)", raw(four)) << "shape (4,) has 1 dimensions";
    QTest::newRow("4-D") << npy("<f4", "(1, 1, 2, 2)", raw(four)) << "shape (1, 1, 2, 2) has 4 dimensions";
    QTest::newRow("C > 32") << npy("<f4", "(1, 1, 33)", raw(std::vector<float>(33, 1.0f))) << "33 components; at most 32";
    QTest::newRow("empty") << npy("<f4", "(0, 4)", QByteArray()) << "empty dimension";
    QTest::newRow("NaN") << npy("<f4", "(2, 3)", raw(withNan)) << "value at (1, 1, 0) is NaN";
    QTest::newRow("Inf") << npy("<f4", "(2, 3)", raw(withInf)) << "value at (1, 2, 0) is Inf";
    QTest::newRow("truncated")
        << npy("<f4", "(2, 3)", raw(four))
        << "data is 16 bytes; shape (2, 3) of <f4 needs 24 (a truncated file)";
    QTest::newRow("version 9") << QByteArray("\x93NUMPY\x09\x00\x10\x00", 10) + QByteArray(16, ' ') << "format version 9";
  }

  void badFilesGiveOneLineNamingTheProblem() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString path = write("bad.npy", bytes);
    try {
      loadNpyImage(path.toStdString());
      QFAIL("no error");
    } catch (const InputError& e) {
      const QString msg = QString::fromStdString(e.what());
      QVERIFY2(msg.contains(expected), qPrintable(msg));
      QVERIFY(msg.startsWith(path));
      QVERIFY(!msg.contains('\n'));
    }
  }

  void missingFileNamesTheOption() {
    try {
      readNpyShape(dir_.filePath("nope.npy").toStdString());
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY(QString(e.what()).contains("--input"));
      QVERIFY(QString(e.what()).contains("cannot open"));
    }
  }
};

QTEST_GUILESS_MAIN(TstKnnData)
#include "tst_knn_data.moc"
