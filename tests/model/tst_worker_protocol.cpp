// SPDX-License-Identifier: MIT
// The worker protocol's frames: JSON and packed bodies round-trip exactly, a stream fed in any
// pieces gives the same events, shell noise before the first frame is kept, damage is refused.
#include <QtTest>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#include "kernellab/clustering_request.h"
#include "kernellab/json_io.h"
#include "kernellab/worker_protocol.h"
#include "worker_stream.h"

using namespace kernellab;
using nlohmann::json;

namespace {

// A k-means result of a million labels and a recorded schedule of 65,536 blocks.
ResultsFile largeResults(int k) {
  ResultsFile f;
  RunResult r;
  r.request.family = clustering::kKMeans;
  r.request.section<ClusteringProblem>().n = 1000000;
  r.request.section<ClusteringProblem>().k = k;
  r.request.section<ClusteringProblem>().d = 3;
  VariantResult v;
  v.variant = "shared-coalesced";
  ClusteringOutput c;
  std::mt19937 g(7);
  c.labels.resize(1000000);
  for (auto& l : c.labels) l = static_cast<int32_t>(g() % static_cast<unsigned>(k));
  c.centers.resize(static_cast<size_t>(k) * 3);
  for (auto& x : c.centers) x = static_cast<float>(g() % 100000) / 7.0f;
  c.clusterSizes.assign(static_cast<size_t>(k), 1000000 / k);
  v.details.set(c);
  VariantResult s;
  s.variant = "naive";
  s.schedule.resize(65536);
  for (int i = 0; i < 65536; ++i)
    s.schedule[static_cast<size_t>(i)] = {i,
                                          static_cast<int>(g() % 132),
                                          1700000000000000000ull + g() % 100000,
                                          1700000000000100000ull + g() % 100000,
                                          i % 256,
                                          i / 256};
  r.variants = {v, s};
  f.runs = {r};
  return f;
}

json roundTrip(const json& j, worker::Encoding e) {
  const std::string frame = worker::encodeFrame(j, e);
  worker::FrameReader r;
  r.feed(frame.data(), frame.size());
  auto f = r.next();
  if (!f) throw std::runtime_error("no frame");
  return worker::decodeFrame(*f);
}

double ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

class TstWorkerProtocol : public QObject {
  Q_OBJECT

 private slots:
  void jsonFramesRoundTrip() {
    const json e{
        {"event", "progress"}, {"stage", "running naive: repetition 3 of 10"}, {"fraction", 0.25}};
    QCOMPARE(roundTrip(e, worker::Encoding::Json), e);
    // Small events stay readable text; large ones are packed.
    QCOMPARE(worker::encodeEvent(e)[2], 'J');
    json big{{"event", "result"}, {"results", json::array()}};
    QCOMPARE(worker::encodeEvent(big)[2], 'P');
  }

  void packedKeepsEveryNumberExactly() {
    json small = json::array(), neg = json::array(), wide = json::array(), floats = json::array(),
         doubles = json::array(), mixed = json::array(), huge = json::array(), rows = json::array();
    for (int i = 0; i < 300; ++i) {
      small.push_back(i % 7);                // u8
      neg.push_back(i % 2 ? -1 : i);         // i16 (values up to 298)
      wide.push_back(int64_t(1) << 40 | i);  // i64
      floats.push_back(static_cast<double>(static_cast<float>(i) / 3.0f));  // f32 exactly
      doubles.push_back(i / 3.0);                                           // f64
      mixed.push_back(i % 2 ? json(i) : json(i + 0.5));                     // numbers of both kinds
      huge.push_back(std::numeric_limits<uint64_t>::max() - i);             // u64 above int64
      rows.push_back(json::array({i, -i, 1700000000000000000ull + i}));
    }
    const json e{{"event", "result"}, {"a", small},
                 {"b", neg},          {"c", wide},
                 {"d", floats},       {"e", doubles},
                 {"f", mixed},        {"g", huge},
                 {"h", rows},         {"short", json::array({1, 2, 3})},
                 {"text", "x"}};
    const json back = roundTrip(e, worker::Encoding::Packed);
    QCOMPARE(back, e);
    // Integer columns stay integers (a column with floats in it is read as floats: every value
    // the same, as from_json reads them).
    QVERIFY(back["a"][1].is_number_integer());
    QVERIFY(back["d"][1].is_number_float());
    QVERIFY(back["g"][0].is_number_unsigned());
  }

  void packedNanReadsAsNull() {
    json a = json::array();
    for (int i = 0; i < 300; ++i)
      a.push_back(i == 5 ? std::numeric_limits<double>::quiet_NaN() : 1.5);
    const json back = roundTrip({{"event", "result"}, {"a", a}}, worker::Encoding::Packed);
    QVERIFY(back["a"][5].is_null());  // as the text form writes a NaN
    QCOMPARE(back["a"][6].get<double>(), 1.5);
  }

  void packedResultsMatchTheTextPath() {
    const ResultsFile f = largeResults(16);
    const json j{{"event", "result"}, {"results", f}};
    const ResultsFile viaText = json::parse(j.dump())["results"].get<ResultsFile>();
    const ResultsFile viaPacked =
        roundTrip(j, worker::Encoding::Packed)["results"].get<ResultsFile>();
    QCOMPARE(json(viaPacked), json(viaText));
    QCOMPARE(viaPacked.runs[0].variants[0].detail<ClusteringOutput>()->labels,
             f.runs[0].variants[0].detail<ClusteringOutput>()->labels);
    QCOMPARE(viaPacked.runs[0].variants[1].schedule.back().endNs,
             f.runs[0].variants[1].schedule.back().endNs);
  }

  void aStreamInPiecesGivesTheSameEvents() {
    std::string stream = "Welcome to gpu-box\nlast login: yesterday\n";
    std::vector<json> sent;
    for (int i = 0; i < 20; ++i) {
      json e{{"event", "progress"}, {"fraction", i / 20.0}};
      if (i % 5 == 0) {
        json labels = json::array();
        for (int k = 0; k < 1000; ++k) labels.push_back((k * i) % 9);
        e = json{{"event", "iteration"}, {"current", {{"labels", labels}}}};
      }
      sent.push_back(e);
      stream += worker::encodeEvent(e);
    }
    for (size_t piece : {size_t(1), size_t(3), size_t(7), size_t(4096)}) {
      worker::FrameReader r;
      std::vector<json> got;
      for (size_t at = 0; at < stream.size(); at += piece) {
        r.feed(stream.data() + at, std::min(piece, stream.size() - at));
        while (auto f = r.next()) got.push_back(worker::decodeFrame(*f));
      }
      QCOMPARE(got.size(), sent.size());
      for (size_t i = 0; i < got.size(); ++i) QCOMPARE(got[i], sent[i]);
      QCOMPARE(QString::fromStdString(r.noise()),
               QStringLiteral("Welcome to gpu-box\nlast login: yesterday\n"));
      QCOMPARE(r.pending(), size_t(0));
    }
  }

  void damageIsRefused() {
    std::string stream = worker::encodeEvent({{"event", "hello"}});
    stream += "garbage after a frame";
    worker::FrameReader r;
    r.feed(stream.data(), stream.size());
    QVERIFY(r.next().has_value());
    QVERIFY(!r.next().has_value());
    QVERIFY(QString::fromStdString(r.error()).contains(QStringLiteral("bad frame header")));

    // A packed body cut short, or naming an array it does not hold.
    json a = json::array();
    for (int i = 0; i < 300; ++i) a.push_back(i);
    std::string frame = worker::encodeFrame({{"a", a}}, worker::Encoding::Packed);
    worker::Frame cut{worker::Encoding::Packed,
                      frame.substr(worker::kHeaderBytes, frame.size() - worker::kHeaderBytes - 10)};
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, worker::decodeFrame(cut));
    std::string forged = worker::encodeFrame({{"a", {{"$kl_array", 3}}}}, worker::Encoding::Packed);
    worker::Frame f{worker::Encoding::Packed, forged.substr(worker::kHeaderBytes)};
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, worker::decodeFrame(f));

    // A frame longer than any result is a corrupt length, not an allocation.
    std::string header = "KLJ";
    header += '\0';
    header += std::string("\xff\xff\xff\xff", 4);
    worker::FrameReader big;
    big.feed(header.data(), header.size());
    QVERIFY(!big.next().has_value());
    QVERIFY(QString::fromStdString(big.error()).contains(QStringLiteral("exceeds")));
  }

  // Not a test of speed (nothing asserted): the numbers behind the packed encoding, printed in
  // the same run for docs/BENCHMARKS.md ("Worker stream").
  void measureEncodings() {
    for (int k : {16, 1000}) {
      const ResultsFile f = largeResults(k);
      const json j{{"event", "result"}, {"results", f}};
      auto t = std::chrono::steady_clock::now();
      const std::string text = j.dump();
      const double textEnc = ms(t);
      t = std::chrono::steady_clock::now();
      const ResultsFile a = json::parse(text)["results"].get<ResultsFile>();
      const double textDec = ms(t);
      t = std::chrono::steady_clock::now();
      std::vector<uint8_t> mp = json::to_msgpack(j);
      const double mpEnc = ms(t);
      t = std::chrono::steady_clock::now();
      const ResultsFile b = json::from_msgpack(mp)["results"].get<ResultsFile>();
      const double mpDec = ms(t);
      t = std::chrono::steady_clock::now();
      const std::string packed = worker::encodeFrame(j, worker::Encoding::Packed);
      const double pkEnc = ms(t);
      t = std::chrono::steady_clock::now();
      worker::Frame fr{worker::Encoding::Packed, packed.substr(worker::kHeaderBytes)};
      const ResultsFile c = worker::decodeFrame(fr)["results"].get<ResultsFile>();
      const double pkDec = ms(t);
      QCOMPARE(c.runs[0].variants[0].detail<ClusteringOutput>()->labels.size(), size_t(1000000));
      qInfo(
          "MEASURE stream K=%d (1e6 labels + 65,536 block records): JSON text %.2f MB, encode %.0f "
          "ms, "
          "decode+from_json %.0f ms | MessagePack %.2f MB, %.0f ms, %.0f ms | packed %.2f MB, %.0f "
          "ms, "
          "%.0f ms (decode %.1fx faster than text)",
          k, text.size() / 1e6, textEnc, textDec, mp.size() / 1e6, mpEnc, mpDec,
          packed.size() / 1e6, pkEnc, pkDec, textDec / std::max(pkDec, 0.01));
      Q_UNUSED(a);
      Q_UNUSED(b);
    }
  }
};

QTEST_GUILESS_MAIN(TstWorkerProtocol)
#include "tst_worker_protocol.moc"
