// SPDX-License-Identifier: MIT
// Parsing of sizes, lists and enum names, and sweep values applied to requests.
#include <QtTest>

#include "kernellab/clustering_request.h"
#include "kernellab/errors.h"
#include "kernellab/knn.h"
#include "kernellab/request.h"
#include "kernellab/text.h"
#include "kernellab/transpose.h"

using namespace kernellab;

class TstRequestParsing : public QObject {
  Q_OBJECT
 private slots:
  void sizes() {
    QCOMPARE(parseSize("1000x37", "--size"), (std::pair<int64_t, int64_t>{1000, 37}));
    QCOMPARE(parseSize("8X4", "--size").first, int64_t(8));
    QVERIFY_THROWS_EXCEPTION(InputError, parseSize("1000", "--size"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseSize("10xabc", "--size"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseSize("1x2x3", "--size"));
    QCOMPARE(parseDims("377x329x8", "--image").size(), size_t(3));
  }

  void integersAndLists() {
    QCOMPARE(parseInteger("-12", "--n"), int64_t(-12));
    QVERIFY_THROWS_EXCEPTION(InputError, parseInteger("12a", "--n"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseInteger("", "--n"));
    QCOMPARE(splitList("64, 128,,256").size(), size_t(3));
  }

  void enumNamesRoundTrip() {
    for (Family f : {transpose::kFamily, clustering::kKCenters, clustering::kKMeans, knn::kFamily})
      QCOMPARE(*familyFromString(toString(f)), f);
    for (InitMethod i : {InitMethod::First, InitMethod::Random, InitMethod::KMeansPlusPlus, InitMethod::Given})
      QCOMPARE(*initFromString(toString(i)), i);
    QCOMPARE(*layoutFromString("COALESCED"), DataLayout::Coalesced);
    QVERIFY(!memoryFromString("texture"));
  }

  void sweepValues() {
    RunRequest base;
    base.family = transpose::kFamily;
    QCOMPARE(applySweepValue(base, "tpb", "128").launch.threadsPerBlock, 128);
    QCOMPARE(applySweepValue(base, "size", "64x32").section<TransposeProblem>().height,
             int64_t(32));
    // An axis is a parameter of the request's family: the image is KNN's.
    RunRequest knnBase;
    knnBase.family = knn::kFamily;
    const RunRequest img = applySweepValue(knnBase, "image", "377x329x4");
    QCOMPARE(img.section<KnnProblem>().rows, 377);
    QCOMPARE(img.section<KnnProblem>().cols, 329);
    QCOMPARE(img.section<KnnProblem>().components, 4);
    try {
      applySweepValue(base, "colour", "red");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY(QString(e.what()).contains("unknown sweep axis 'colour'"));
    }
    try {
      applySweepValue(base, "image", "377x329");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("unknown sweep axis 'image' for transpose"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TstRequestParsing)
#include "tst_request_parsing.moc"
