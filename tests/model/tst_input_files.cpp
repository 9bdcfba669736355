// SPDX-License-Identifier: MIT
// Hostile input files (issue 16, items 5, 7 and 11): every loader (CSV and .npy points, centers,
// the KNN .npy image, request and results JSON) stats the file first and refuses what is not a
// regular file, checks a header's claimed size against the file and the memory before reading,
// parses .npy shapes in checked 64-bit arithmetic, and says what is wrong in words. xz-compressed
// results (docs/data keeps the large ones so) open like plain JSON; a damaged or truncated one is
// refused in words.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"

using namespace kernellab;

namespace {

std::string npyBytes(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += char(0);
  const uint32_t len = static_cast<uint32_t>(header.size());
  for (size_t b = 0; b < prefix - 8; ++b) out += char((len >> (8 * b)) & 0xFF);
  return out + header + data;
}

std::string npy(const std::string& descr, const std::string& shape, const std::string& data) {
  return npyBytes("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }",
                  data);
}

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

class TstInputFiles : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }
  std::string write(const char* name, const std::string& bytes) const {
    std::ofstream out(path(name), std::ios::binary | std::ios::trunc);
    out << bytes;
    return path(name);
  }

 private slots:
  // The committed H200 profile of k-means opens as it is (xz), with its runs and counters; the
  // same bytes cut short, or with a damaged body, are refused with the path and the reason.
  void xzResultsOpenAndDamageIsNamed() {
    const std::string committed =
        std::string(KERNELLAB_SOURCE_DIR) + "/docs/data/h200-profile-kmeans-2026-12-02.json.xz";
    std::ifstream in(committed, std::ios::binary);
    QVERIFY(in.good());
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    QVERIFY(bytes.size() > 1000);
    const ResultsFile file = readResultsFile(committed);
    QVERIFY(!file.runs.empty());
    QVERIFY(file.runs.front().request.family == Family("kmeans"));
    QVERIFY(!file.runs.front().variants.empty());

    const std::string cut = write("cut.json.xz", bytes.substr(0, bytes.size() / 2));
    QString why = errorOf([&] { readResultsFile(cut); });
    QVERIFY2(why.contains(QString::fromStdString(cut)) && why.contains(QStringLiteral("truncated")),
             qPrintable(why));
    std::string damaged = bytes;
    for (size_t i = 64; i < 4096 && i < damaged.size(); ++i) damaged[i] = char(damaged[i] ^ 0x5A);
    why = errorOf([&] { readResultsFile(write("damaged.json.xz", damaged)); });
    QVERIFY2(why.contains(QStringLiteral("damaged xz data")) || why.contains(QStringLiteral("xz")),
             qPrintable(why));
    // Only the magic of xz: refused, not read as text.
    why = errorOf([&] { readResultsFile(write("magic.json.xz", std::string("\xFD" "7zXZ\0", 6))); });
    QVERIFY2(!why.isEmpty(), "six bytes of xz magic were accepted");
  }

  void directoriesAreNamedAsSuch() {
    // Used to be "no data lines" and "not valid JSON (byte 1)".
    QVERIFY(QDir(dir_.path()).mkpath("points.csv"));
    QVERIFY(QDir(dir_.path()).mkpath("run.json"));
    QVERIFY(QDir(dir_.path()).mkpath("image.npy"));
    QCOMPARE(errorOf([&] { clustering::loadPoints(path("points.csv")); }),
             QString::fromStdString(path("points.csv") + ": is a directory, not a file"));
    // The path once: "run.json: run.json: is a directory" named it twice.
    const QString directory =
        QString::fromStdString(path("run.json") + ": is a directory, not a file");
    QCOMPARE(errorOf([&] { readResultsFile(path("run.json")); }), directory);
    QCOMPARE(errorOf([&] { readRequestFile(path("run.json")); }), directory);
    // A parse error still names the file.
    const std::string bad = write("bad.json", "{\"family\": ");
    QVERIFY(errorOf([&] { readRequestFile(bad); }).startsWith(QString::fromStdString(bad + ": ")));
    QVERIFY(errorOf([&] { readResultsFile(bad); }).startsWith(QString::fromStdString(bad + ": ")));
    QVERIFY(errorOf([&] {
              knn::loadNpyImage(path("image.npy"));
            }).endsWith("is a directory, not a file"));
  }

  void fifosAndDevicesAreRefusedWithoutBlocking() {
    // A FIFO blocked forever; /dev/zero grew to 8 GB.
    QCOMPARE(::mkfifo(path("pipe.csv").c_str(), 0600), 0);
    QCOMPARE(::symlink("/dev/zero", path("zero.npy").c_str()), 0);
    QElapsedTimer t;
    t.start();
    QVERIFY(errorOf([&] {
              clustering::loadPoints(path("pipe.csv"));
            }).contains("is a FIFO (named pipe)"));
    QVERIFY(errorOf([&] { clustering::peekPointsShape(path("pipe.csv")); }).contains("is a FIFO"));
    QVERIFY(errorOf([&] {
              clustering::loadPoints(path("zero.npy"));
            }).contains("is a character device"));
    QVERIFY(
        errorOf([&] { knn::readNpyShape(path("zero.npy")); }).contains("is a character device"));
    QVERIFY(t.elapsed() < 5000);
  }

  void csvNumbersAndEncodings() {
    // 1e-400 is a number out of range, not "not a number".
    QVERIFY(errorOf([&] {
              clustering::loadPoints(write("tiny.csv", "1,2\n1e-400,3\n"));
            }).contains("tiny.csv line 2, field 1: '1e-400' is out of range: nonzero but below"));
    QVERIFY(errorOf([&] {
              clustering::loadPoints(write("huge.csv", "1,2\n3,1e400\n"));
            }).contains("line 2, field 2: '1e400' is out of range: it does not fit in float32"));
    // UTF-16 used to print NUL bytes.
    const std::string utf16(
        "\xFF\xFE"
        "1\0,\0"
        "2\0\n\0",
        10);
    QVERIFY(errorOf([&] {
              clustering::loadPoints(write("u16.csv", utf16));
            }).contains("u16.csv: not UTF-8 text (it starts with a UTF-16 byte order mark)"));
    QVERIFY(errorOf([&] {
              clustering::loadPoints(write("nul.csv", std::string("1,2\n3,\0\n", 8)));
            }).contains("not UTF-8 text (a NUL byte at offset 6"));
    // A 5 MB field is quoted, not echoed.
    const QString e = errorOf([&] {
      clustering::loadPoints(write("long.csv", "1,2\n3," + std::string(5 << 20, 'x') + "\n"));
    });
    QVERIFY2(e.size() < 400 && e.contains("(5242880 bytes)"), qPrintable(e.left(400)));
    // Still fine: a UTF-8 byte order mark, CRLF, a header, lines across the 1 MiB read chunks.
    std::string many = "\xEF\xBB\xBFx,y\r\n";
    for (int i = 0; i < 120000; ++i)
      many += std::to_string(i) + ".25," + std::to_string(-i) + "\r\n";
    const clustering::PointSet s = clustering::loadPoints(write("many.csv", many));
    QCOMPARE(s.n, int64_t(120000));
    QCOMPARE(s.d, 2);
    QCOMPARE(s.values[2 * 99999], 99999.25f);
    QCOMPARE(s.values[2 * 99999 + 1], -99999.0f);
    const clustering::PointsFileShape peek = clustering::peekPointsShape(path("many.csv"));
    QCOMPARE(peek.d, 2);
    QVERIFY(!peek.exact);
    QVERIFY2(peek.n > 100000 && peek.n < 140000, qPrintable(QString::number(peek.n)));
  }

  void npyHeadersSayWhatIsWrong() {
    // Truncated after the magic: "truncated header", not "magic string missing".
    QVERIFY(errorOf([&] {
              clustering::loadPoints(write("t1.npy", std::string("\x93NUMPY\x01", 7)));
            }).contains("truncated .npy header: the file ends after 7 bytes"));
    QVERIFY(errorOf([&] {
              clustering::loadPoints(write("t2.npy", std::string("\x93NUMPY\x01\x00\x76", 9)));
            }).contains("truncated .npy header"));
    QVERIFY(errorOf([&] {
              clustering::loadPoints(
                  write("t3.npy", std::string("\x93NUMPY\x01\x00\x76\x00{'descr'", 18)));
            }).contains("truncated .npy header: it says 118 bytes, the file has 8"));
    QVERIFY(errorOf([&] {
              clustering::loadPoints(write("x.npy", "hello world"));
            }).contains("not a .npy file"));
    // Malformed dicts: no "basic_string::substr", no "stoll".
    const std::string bad[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3}",
        "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3), }",
        "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': '<f4', 'shape': (2, 3), }",
        "'descr': '<f4'",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }",
    };
    for (const std::string& dict : bad) {
      const std::string p = write("bad.npy", npyBytes(dict, std::string(24, '\0')));
      const QString a = errorOf([&] { clustering::loadPoints(p); });
      const QString b = errorOf([&] { knn::loadNpyImage(p); });
      for (const QString& m : {a, b}) {
        QVERIFY2(m.contains("malformed .npy header") || m.contains("no 'fortran_order' entry"),
                 qPrintable(QString::fromStdString(dict) + " -> " + m));
        QVERIFY(!m.contains("substr") && !m.contains("stoll") && !m.contains("not an InputError"));
      }
    }
    const std::string twenty = write("d20.npy", npy("<f4", "(99999999999999999999, 2)", ""));
    QVERIFY(errorOf([&] {
              knn::loadNpyImage(twenty);
            }).contains("99999999999999999999 is above the limit"));
    QVERIFY(errorOf([&] {
              clustering::loadPoints(twenty);
            }).contains("99999999999999999999 is above the limit"));
  }

  void npyShapeArithmeticIsChecked() {
    // (4611686018427387906, 2305843009213693955) wrapped to 6 elements and loaded as a 2x3 image.
    const std::string wrap =
        write("wrap.npy",
              npy("<f4", "(4611686018427387906, 2305843009213693955)", std::string(24, '\0')));
    QVERIFY(errorOf([&] { knn::loadNpyImage(wrap); }).contains("holds more than 2^64 elements"));
    QVERIFY(
        errorOf([&] { clustering::loadPoints(wrap); }).contains("holds more than 2^64 elements"));
    const std::string bytes =
        write("bytes.npy", npy("<f8", "(3074457345618258603, 1)", std::string(24, '\0')));
    QVERIFY(errorOf([&] { clustering::loadPoints(bytes); }).contains("needs more than 2^64 bytes"));
    // The KNN image: more values than 32-bit indices, refused from the header alone.
    const std::string big = write("big.npy", npy("<f4", "(65536, 65536)", ""));
    QVERIFY(errorOf([&] {
              knn::readNpyShape(big);
            }).contains("data is 0 bytes; shape (65536, 65536) of <f4 needs 17179869184"));
  }

  void headerSizesAreCheckedBeforeReading() {
    // A sparse 8 GiB file claiming N = 2^31 points: refused from the header, nothing read.
    const std::string header = npy("<f4", "(2147483648, 1)", "");
    const std::string p = write("sparse.npy", header);
    QCOMPARE(::truncate(p.c_str(), off_t(header.size()) + (off_t(1) << 33)), 0);
    QElapsedTimer t;
    t.start();
    QVERIFY(errorOf([&] {
              clustering::loadPoints(p);
            }).contains("holds 2147483648 points; at most 2147483646"));
    QVERIFY(errorOf([&] { clustering::peekPointsShape(p); }).contains("at most 2147483646"));
    QVERIFY(t.elapsed() < 5000);
    // More data than memory: refused with the numbers before the data is read.
    const std::string h2 = npy("<f8", "(2000000000, 1000)", "");
    const std::string q = write("huge.npy", h2);
    if (::truncate(q.c_str(), off_t(h2.size()) + off_t(2000000000) * 1000 * 8) != 0)
      QSKIP("this file system has no 16 TB sparse files");
    QVERIFY(errorOf([&] {
              clustering::loadPoints(q);
            }).contains("float32 values) needs 8.00 TB of host memory"));
  }

  void bufferParsersMatchTheFileLoaders() {
    const std::string f4("\0\0\x80\x3f\0\0\0\x40\0\0\x40\x40\0\0\x80\x40", 16);  // 1 2 3 4
    const clustering::PointSet a = clustering::parsePointsNpy(npy("<f4", "(2, 2)", f4), "mem");
    QCOMPARE(a.n, int64_t(2));
    QCOMPARE(a.values[3], 4.0f);
    const knn::Image img = knn::parseNpyImage(npy("<f4", "(2, 2)", f4), "mem");
    QCOMPARE(img.at(3, 0), 4.0f);
    const clustering::PointSet c = clustering::parsePointsCsv("a;b\n1;2\n3;4\n", "mem");
    QCOMPARE(c.n, int64_t(2));
    QVERIFY(errorOf([] {
              clustering::parsePointsNpy(std::string("\x93NUMPY\x02\x00\x01", 9), "mem");
            }).contains("mem: truncated .npy header"));
  }
};

QTEST_APPLESS_MAIN(TstInputFiles)
#include "tst_input_files.moc"
