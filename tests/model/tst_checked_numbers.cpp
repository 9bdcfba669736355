// SPDX-License-Identifier: MIT
// The one number layer (checked_number.h) and the readers that use it: 64-bit input parsed, then
// range-checked; nothing wraps, truncates or silently becomes a default, and every refusal names
// the option or field, the value and the limit (issue 16, item 6; messages, item 11).
#include <QtTest>

#include "kernellab/checked_number.h"
#include "kernellab/clustering_request.h"
#include "kernellab/errors.h"
#include "kernellab/input_text.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/request.h"
#include "kernellab/text.h"
#include "kernellab/transpose.h"

using namespace kernellab;

namespace {

template <class Fn>
QString errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  } catch (const std::exception& e) {
    return QStringLiteral("not an InputError: ") + e.what();
  }
  return {};
}

}  // namespace

class TstCheckedNumbers : public QObject {
  Q_OBJECT
 private slots:
  void integersAreParsedIn64BitsThenRangeChecked() {
    QCOMPARE(parseInt64("-12", "--n"), int64_t(-12));
    QCOMPARE(parseInt64("+7", "--n"), int64_t(7));
    QCOMPARE(parseIntegerAs<int>("2147483647", "--k"), 2147483647);
    // 2^32 + 256 used to become 256 threads per block.
    QCOMPARE(errorOf([] { parseIntegerAs<int>("4294967552", "--tpb"); }),
             QString("--tpb 4294967552 is above the limit 2147483647"));
    QCOMPARE(errorOf([] { parseIntegerAs<int>("-4294967298", "--k"); }),
             QString("--k -4294967298 is below the limit -2147483648"));
    // Beyond 64 bits: out of range, not "not a whole number".
    QCOMPARE(errorOf([] { parseInt64("99999999999999999999", "--n"); }),
             QString("--n 99999999999999999999 is above the limit 9223372036854775807"));
    for (const char* bad : {"", "1e3", "0x10", " 5", "5 ", "1.5", "--3", "+"})
      QVERIFY2(errorOf([&] { parseInt64(bad, "--n"); }).contains("is not a whole number"), bad);
    QCOMPARE(parseInt64("5", "--warmup", 0, 10), int64_t(5));
    QCOMPARE(errorOf([] { parseInt64("11", "--warmup", 0, 10); }),
             QString("--warmup 11 is above the limit 10"));
  }

  void seedsAreFull64BitValuesAndNeverNegative() {
    QCOMPARE(parseUint64("18446744073709551615", "--seed"), uint64_t(18446744073709551615ull));
    QCOMPARE(parseUint64("0", "--seed"), uint64_t(0));
    QCOMPARE(errorOf([] { parseUint64("-1", "--seed"); }),
             QString("--seed -1 is negative; it must be 0..18446744073709551615"));
    QVERIFY(
        errorOf([] { parseUint64("18446744073709551616", "--seed"); }).contains("above the limit"));
  }

  void realsMustBeFiniteAndInRange() {
    QCOMPARE(parseFinite("1e-4", "--epsilon"), 1e-4);
    QCOMPARE(parseFinite("+0.5", "--noise", 0, 1), 0.5);
    QCOMPARE(errorOf([] { parseFinite("nan", "--epsilon"); }),
             QString("--epsilon nan is not a finite number"));
    QCOMPARE(errorOf([] { parseFinite("inf", "--noise"); }),
             QString("--noise inf is not a finite number"));
    // 1e-400 is a number too small for a double: out of range, not "not a number".
    QVERIFY(errorOf([] {
              parseFinite("1e-400", "--epsilon");
            }).startsWith("--epsilon 1e-400 is out of range: nonzero but below"));
    QVERIFY(errorOf([] {
              parseFinite("0.000" + std::string(400, '0') + "1", "--epsilon");
            }).contains("below the smallest"));
    QVERIFY(errorOf([] {
              parseFinite("1e400", "--epsilon");
            }).contains("is out of range: beyond the largest"));
    // An exponent of 2^63 - 1 (found by fuzz_points_csv) must not overflow the overflow check,
    // and a huge exponent written with leading zeros is the same number.
    QVERIFY(errorOf([] {
              parseFinite("5E" + std::string(60, '0') + "9223372036854775807", "--epsilon");
            }).contains("beyond the largest"));
    QVERIFY(errorOf([] {
              parseFinite("5E-9223372036854775808", "--epsilon");
            }).contains("below the smallest"));
    QVERIFY(errorOf([] {
              parseFinite("0.0005E-9223372036854775807", "--epsilon");
            }).contains("below the smallest"));
    QCOMPARE(errorOf([] { parseFinite("-1", "--epsilon", 0); }),
             QString("--epsilon -1 is below the limit 0"));
    QCOMPARE(errorOf([] { parseFinite("abc", "--noise"); }),
             QString("--noise: 'abc' is not a number"));
  }

  void dimensionsOfIntFieldsAreCheckedNotWrapped() {
    // 2^32 + 377 rows used to load as 377 rows.
    QCOMPARE(errorOf([] { parseDims("4294967673x329", "--image", 2147483647); }),
             QString("--image 4294967673x329: 4294967673 is above the limit 2147483647"));
    QCOMPARE(errorOf([] { parseSize("10xabc", "--size"); }),
             QString("--size 10xabc: 'abc' is not a whole number"));
    QVERIFY(errorOf([] { parseSize("-5x3", "--size"); }).contains("-5 is below the limit 0"));
  }

  void sweepValuesUseTheSameLayer() {
    RunRequest base, kmeans, knnBase;
    base.family = transpose::kFamily;
    kmeans.family = clustering::kKMeans;
    knnBase.family = knn::kFamily;
    QVERIFY(
        errorOf([&] { applySweepValue(base, "tpb", "4294967552"); }).contains("above the limit"));
    QVERIFY(errorOf([&] {
              applySweepValue(kmeans, "k", "4294967298");
            }).contains("--k 4294967298 is above"));
    QVERIFY(errorOf([&] {
              applySweepValue(knnBase, "image", "4294967673x329");
            }).contains("4294967673 is above"));
  }

  void requestFieldsAreCheckedWithTheirRealValue() {
    QCOMPARE(errorOf([] { parseRequest(R"({"family":"kmeans","clustering":{"n":100.7}})"); }),
             QString("field 'n': 100.7 is not a whole number"));
    // 1e10 used to be refused as "--k -2147483648".
    QCOMPARE(errorOf([] { parseRequest(R"({"family":"kmeans","clustering":{"k":1e10}})"); }),
             QString("field 'k': 10000000000 is above the limit 2147483647"));
    QCOMPARE(errorOf([] { parseRequest(R"({"family":"kmeans","clustering":{"k":4294967298}})"); }),
             QString("field 'k': 4294967298 is above the limit 2147483647"));
    QCOMPARE(errorOf([] { parseRequest(R"({"family":"kmeans","seed":-1})"); }),
             QString("field 'seed': -1 is negative; it must be 0..18446744073709551615"));
    QCOMPARE(errorOf([] { parseRequest(R"({"family":"kmeans","clustering":{"epsilon":"x"}})"); }),
             QString("field 'epsilon' must be a number, not string"));
    // Whole values written with an exponent are fine.
    QCOMPARE(parseRequest(R"({"family":"kmeans","clustering":{"n":1e5}})")
                 .section<ClusteringProblem>()
                 .n,
             int64_t(100000));
    QCOMPARE(parseRequest(R"({"family":"kmeans","seed":18446744073709551615})").seed,
             uint64_t(18446744073709551615ull));
  }

  void schemaVersionsAreReadInFull() {
    // 4294967297 used to read as version 1 and bypass the newer-version refusal.
    QVERIFY(errorOf([] {
              parseRequest(R"({"schema_version":4294967297,"request":{"family":"knn"}})");
            }).contains("request has schema_version 4294967297, newer than this build"));
    QVERIFY(errorOf([] {
              parseResultsFile(
                  R"({"schema_version":4294967297,"kind":"kernellab-results","runs":[]})");
            }).contains("schema_version 4294967297, newer than this build"));
    QVERIFY(errorOf([] {
              parseResultsFile(R"({"schema_version":1.5,"kind":"kernellab-results","runs":[]})");
            }).contains("1.5 is not a whole number"));
    QVERIFY(errorOf([] {
              parseResultsFile(R"({"schema_version":1,"kind":7,"runs":[]})");
            }).contains("'kind' is not \"kernellab-results\""));
  }

  void numbersBeyondDoubleInJsonAreInputErrors() {
    // Found by fuzz_request: nlohmann reports 1e5676 as out_of_range, which escaped as a crash.
    QVERIFY(errorOf([] {
              parseRequest(R"({"family":"kmeans","clustering":{"epsilon":1e5676}})");
            }).contains("not valid JSON: [json.exception.out_of_range.406] number overflow"));
    QVERIFY(errorOf([] {
              parseResultsFile(R"({"schema_version":1e999})");
            }).contains("number overflow"));
  }

  void resultsFileNumbersAreChecked() {
    const std::string run =
        R"({"schema_version":1,"kind":"kernellab-results","runs":[{"request":{"family":"transpose"},"variants":[{"variant":"naive","kernels":[{"grid":[4294967296,1]}]}]}]})";
    QVERIFY(errorOf([&] {
              parseResultsFile(run);
            }).contains("4294967296 is above the limit 2147483647"));
  }

  void longFieldsAreShortenedInMessages() {
    const std::string big(5 * 1024 * 1024, 'a');
    const QString e = errorOf([&] { parseRequest(R"({"family":")" + big + R"("})"); });
    QVERIFY2(e.size() < 400, qPrintable(e.left(400)));
    QVERIFY(e.contains("(5242880 bytes)"));
    const QString n = errorOf([&] { parseInt64(std::string(1000000, '7'), "--n"); });
    QVERIFY(n.size() < 300);
    QVERIFY(n.contains("(1000000 bytes)"));
    QCOMPARE(QString::fromStdString(excerpt("a\x01\xff", 80)), QString("a\\x01\\xFF"));
    QCOMPARE(QString::fromStdString(excerpt("h\xC3\xA9llo", 80)),
             QString::fromUtf8("h\xC3\xA9llo"));
  }

  void utf16IsNamedNotPrinted() {
    const std::string utf16("\xFF\xFE{\0\"\0", 6);
    QVERIFY(errorOf([&] {
              parseRequest(utf16);
            }).contains("not UTF-8 text (it starts with a UTF-16 byte order mark)"));
    const std::string nul("{\"family\":\0}", 12);
    QVERIFY(errorOf([&] {
              parseResultsFile(nul);
            }).contains("not UTF-8 text (a NUL byte at offset 10"));
  }
};

QTEST_APPLESS_MAIN(TstCheckedNumbers)
#include "tst_checked_numbers.moc"
