// SPDX-License-Identifier: MIT
// kernellab-cli worker on its own: the hello, jobs on stdin (one worker, several jobs), bad input
// that leaves the worker ready, the lifeline, the protocol and fault test hooks, a request file.
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/transpose.h"
#include "kernellab/worker_protocol.h"
#include "loopback_sshd.h"
#include "test_support.h"
#include "worker_stream.h"

using namespace kernellab;
using nlohmann::json;

namespace {

json transposeJob(int64_t id, int size, int reps = 2) {
  RunRequest r;
  r.family = transpose::kFamily;
  r.variants = {"naive", "padded"};
  r.section<TransposeProblem>().width = size;
  r.section<TransposeProblem>().height = size;
  r.repetitions = reps;
  r.warmup = 0;
  r.backend = BackendChoice::Cpu;
  return {{"protocol", worker::kProtocol}, {"job", id}, {"command", "run"}, {"request", r}};
}

// A worker with stdin open; read() collects its stream.
struct Worker {
  QProcess p;
  QByteArray out;
  explicit Worker(const QStringList& env = {}, const QStringList& extra = {}) {
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(KERNELLAB_CLI_PATH), QStringList{QStringLiteral("worker")} + extra);
  }
  ~Worker() {
    p.closeWriteChannel();
    if (!p.waitForFinished(10000)) p.kill();
    p.waitForFinished(5000);
  }
  void send(const json& job) {
    const std::string line = job.dump() + "\n";
    p.write(line.data(), static_cast<qint64>(line.size()));
  }
  // Reads until `done` holds for the stream, or the timeout.
  kltest::Stream until(const std::function<bool(const kltest::Stream&)>& done,
                       int timeoutMs = 120000) {
    QElapsedTimer t;
    t.start();
    kltest::Stream s;
    while (t.elapsed() < timeoutMs) {
      p.waitForReadyRead(100);
      out += p.readAllStandardOutput();
      s = kltest::decodeStream(out);
      if (done(s) || p.state() == QProcess::NotRunning) break;
    }
    out += p.readAllStandardOutput();
    return kltest::decodeStream(out);
  }
};

}  // namespace

class TstCliWorker : public QObject {
  Q_OBJECT

 private slots:
  void helloNamesVersionsAndDevices() {
    const kltest::CliRun r = kltest::runCli({QStringLiteral("worker"), QStringLiteral("--hello")});
    QCOMPARE(r.exitCode, 0);
    const kltest::Stream s = kltest::decodeStream(r.out.toUtf8());
    QCOMPARE(s.events.size(), 1);
    const json& h = s.events.front();
    QCOMPARE(h["event"].get<std::string>(), std::string("hello"));
    QCOMPARE(h["protocol"].get<int>(), worker::kProtocol);
    QCOMPARE(h["schema_version"].get<int>(), kSchemaVersion);
    QCOMPARE(h["tool"].get<std::string>(), toolVersion());
    QVERIFY(h["pid"].get<int64_t>() > 0);
    QVERIFY(h["backend"].contains("cuda_usable"));
    QVERIFY(h["backend"]["cpu"]["sm_count"].get<int>() > 0);
    QCOMPARE(s.encodings.front(), 'J');  // the hello is always readable text
  }

  void devicesJsonOnStdoutMatchesTheHello() {
    const kltest::CliRun d = kltest::runCli({QStringLiteral("devices"), QStringLiteral("--json"), QStringLiteral("-")});
    QCOMPARE(d.exitCode, 0);
    const json devices = json::parse(d.out.toStdString());
    const kltest::CliRun h = kltest::runCli({QStringLiteral("worker"), QStringLiteral("--hello")});
    QCOMPARE(kltest::decodeStream(h.out.toUtf8()).events.front()["backend"], devices);
  }

  void oneWorkerRunsSeveralJobs() {
    Worker w;
    w.send(transposeJob(1, 128));
    auto s = w.until([](const kltest::Stream& s) { return s.count("ready") >= 1; });
    const json result = s.first("result");
    QVERIFY2(!result.is_null(), s.error.c_str());
    const ResultsFile f = result["results"].get<ResultsFile>();
    QCOMPARE(f.runs.size(), size_t(1));
    QVERIFY(f.runs[0].ok);
    QCOMPARE(f.runs[0].variants.size(), size_t(2));
    QVERIFY(f.runs[0].variants[1].verification.passed);
    // Bad input: an error naming the value, and the worker takes the next job.
    json bad = transposeJob(2, 128);
    bad["request"]["launch"]["tile"] = 24;
    w.send(bad);
    w.send(transposeJob(3, 64));
    s = w.until([](const kltest::Stream& s) { return s.count("ready") >= 3; });
    json error;
    for (const auto& e : s.events)
      if (e["event"] == "error") error = e;
    QCOMPARE(error["job"].get<int>(), 2);
    QVERIFY(error["input_error"].get<bool>());
    QVERIFY(
        QString::fromStdString(error["message"].get<std::string>()).contains(QStringLiteral("24")));
    QCOMPARE(s.count("result"), 2);
    w.p.closeWriteChannel();
    QVERIFY(w.p.waitForFinished(30000));
    QCOMPARE(w.p.exitCode(), 0);
  }

  void kmeansIterationsCarryLiveLabels() {
    Worker w;
    RunRequest r;
    r.family = clustering::kKMeans;
    r.variants = {"shared-coalesced"};
    r.section<ClusteringProblem>().n = 5000;
    r.section<ClusteringProblem>().k = 6;
    r.section<ClusteringProblem>().d = 2;
    r.section<ClusteringProblem>().maxIterations = 8;
    r.repetitions = 1;
    r.warmup = 0;
    r.backend = BackendChoice::Cpu;
    w.send({{"protocol", worker::kProtocol},
            {"job", 1},
            {"command", "run"},
            {"request", r},
            {"live_labels_ms", 0.0}});
    const auto s = w.until([](const kltest::Stream& s) { return s.count("ready") >= 1; });
    QVERIFY(s.count("iteration") >= 2);
    QVERIFY(s.first("iteration")["record"].contains("score"));
    // live_labels_ms 0: records only. Then 1 ms: labels with (almost) every record, packed.
    QVERIFY(!s.first("iteration").contains("current"));
    Worker w2;
    w2.send({{"protocol", worker::kProtocol},
             {"job", 1},
             {"command", "run"},
             {"request", r},
             {"live_labels_ms", 1}});
    const auto s2 = w2.until([](const kltest::Stream& s) { return s.count("ready") >= 1; });
    bool labels = false;
    for (int i = 0; i < s2.events.size(); ++i)
      if (s2.events[i].contains("current")) {
        labels = true;
        QCOMPARE(s2.encodings[i], 'P');
        QCOMPARE(s2.events[i]["current"]["labels"].size(), size_t(5000));
      }
    QVERIFY(labels);
  }

  void theEndOfStdinEndsAWorkerAtOnce() {
    // Minutes of work on the CPU; --lifeline: the window (or the connection) going away ends it.
    Worker w({}, {QStringLiteral("--lifeline")});
    w.send(transposeJob(1, 2048, 100000));
    auto s = w.until([](const kltest::Stream& s) { return s.count("progress") >= 2; });
    QVERIFY(s.count("progress") >= 2);
    const qint64 pid = w.p.processId();
    QElapsedTimer t;
    t.start();
    w.p.closeWriteChannel();
    while (!kltest::processGone(pid) && t.elapsed() < 5000) QTest::qWait(10);
    qInfo("MEASURE lifeline: worker gone %lld ms after its stdin closed",
          static_cast<long long>(t.elapsed()));
    QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
  }

  void aJobOfAnotherProtocolIsRefused() {
    Worker w;
    json job = transposeJob(1, 64);
    job["protocol"] = 99;
    w.send(job);
    const auto s = w.until([](const kltest::Stream& s) { return s.count("error") >= 1; });
    const std::string m = s.first("error")["message"].get<std::string>();
    QVERIFY2(
        m.find("protocol 99") != std::string::npos && m.find("protocol 1") != std::string::npos,
        m.c_str());
    QVERIFY(w.p.waitForFinished(30000));
    QCOMPARE(w.p.exitCode(), 2);
  }

  void theProtocolHookChangesTheHello() {
    const kltest::CliRun r = kltest::runCli({QStringLiteral("worker"), QStringLiteral("--hello")},
                                            {QStringLiteral("KERNELLAB_WORKER_PROTOCOL=7")});
    QCOMPARE(kltest::decodeStream(r.out.toUtf8()).events.front()["protocol"].get<int>(), 7);
  }

  void anEmulatedGpuFaultAbortsTheWorker() {
    if (kltest::cudaUnavailableReason().isEmpty())
      QSKIP("a GPU works here: the hook traps on the device instead");
    Worker w({QStringLiteral("KERNELLAB_GPU_FAULT=padded")});
    w.send(transposeJob(1, 128));
    w.until([](const kltest::Stream&) { return false; }, 60000);
    QCOMPARE(w.p.state(), QProcess::NotRunning);
    QCOMPARE(w.p.exitStatus(), QProcess::CrashExit);
    const QString err = QString::fromUtf8(w.p.readAllStandardError());
    QVERIFY2(err.contains(QStringLiteral("emulated GPU fault in variant 'padded'")),
             qPrintable(err));
    // The first variant ran; the faulting one never reported a result.
    QCOMPARE(kltest::decodeStream(w.out).count("result"), 0);
  }

  void aRequestFileRunsOnceWithoutStdin() {
    QTemporaryDir dir;
    RunRequest r;
    r.family = transpose::kFamily;
    r.variants = {"tiled"};
    r.section<TransposeProblem>().width = 96;
    r.section<TransposeProblem>().height = 64;
    r.repetitions = 2;
    r.backend = BackendChoice::Cpu;
    writeRequestFile(dir.filePath(QStringLiteral("r.json")).toStdString(), r);
    QProcess p;  // binary frames: read as bytes, not text
    p.start(QStringLiteral(KERNELLAB_CLI_PATH),
            {QStringLiteral("worker"), QStringLiteral("--request"),
             dir.filePath(QStringLiteral("r.json")), QStringLiteral("--sweep"),
             QStringLiteral("tpb=256,512")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    const kltest::Stream s = kltest::decodeStream(p.readAllStandardOutput());
    const ResultsFile f = s.first("result")["results"].get<ResultsFile>();
    QCOMPARE(f.runs.size(), size_t(2));
    QCOMPARE(f.runs[1].request.launch.threadsPerBlock, 512);
    QCOMPARE(f.sweep.front().name, std::string("tpb"));
  }

  // GUI-less on a GPU server: the stream piped to a file, read back with --decode, holds the
  // same results as `run` in-process (labels, centers, iterations: the CPU backend is exact).
  void aStreamDecodedEqualsTheInProcessRun() {
    QTemporaryDir dir;
    RunRequest r;
    r.family = clustering::kKMeans;
    r.variants = {"shared-coalesced", "global-interleaved"};
    r.section<ClusteringProblem>().n = 8000;
    r.section<ClusteringProblem>().k = 5;
    r.section<ClusteringProblem>().d = 3;
    r.repetitions = 1;
    r.warmup = 0;
    r.backend = BackendChoice::Cpu;
    const QString req = dir.filePath(QStringLiteral("km.json"));
    writeRequestFile(req.toStdString(), r);
    QProcess w;
    w.setStandardOutputFile(dir.filePath(QStringLiteral("km.klw")));
    w.start(QStringLiteral(KERNELLAB_CLI_PATH),
            {QStringLiteral("worker"), QStringLiteral("--request"), req});
    QVERIFY(w.waitForFinished(120000));
    QCOMPARE(w.exitCode(), 0);
    const kltest::CliRun decoded =
        kltest::runCli({QStringLiteral("worker"), QStringLiteral("--decode"),
                        dir.filePath(QStringLiteral("km.klw")), QStringLiteral("--json"),
                        dir.filePath(QStringLiteral("worker.json"))});
    QCOMPARE(decoded.exitCode, 0);
    QVERIFY(decoded.out.contains(QStringLiteral("\"event\":\"hello\"")));
    QVERIFY(decoded.out.contains(QStringLiteral("converged after")));  // the result's table
    const kltest::CliRun direct =
        kltest::runCli({QStringLiteral("run"), QStringLiteral("--request"), req,
                        QStringLiteral("--json"), dir.filePath(QStringLiteral("direct.json"))});
    QCOMPARE(direct.exitCode, 0);
    const ResultsFile a =
        readResultsFile(dir.filePath(QStringLiteral("worker.json")).toStdString());
    const ResultsFile b =
        readResultsFile(dir.filePath(QStringLiteral("direct.json")).toStdString());
    QCOMPARE(a.runs.front().variants.size(), size_t(2));
    for (size_t v = 0; v < 2; ++v) {
      const auto& x = *a.runs.front().variants[v].detail<ClusteringOutput>();
      const auto& y = *b.runs.front().variants[v].detail<ClusteringOutput>();
      QCOMPARE(x.labels, y.labels);
      QCOMPARE(x.centers, y.centers);
      QCOMPARE(x.iterations, y.iterations);
      QCOMPARE(x.inertia, y.inertia);
    }
  }
};

QTEST_GUILESS_MAIN(TstCliWorker)
#include "tst_cli_worker.moc"
