// SPDX-License-Identifier: MIT
// A worker process: start, frames in, jobs out, an end that says what happened.
#include "worker_process.h"

#include <signal.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/results_validation.h"
#include "results_validation.h"

namespace kernellab::app {

namespace {

using nlohmann::json;

QString tr(const char* text) { return QCoreApplication::translate("WorkerProcess", text); }

QString str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                          : QString();
}

BackendStatus statusFromJson(const json& j) {
  BackendStatus s;
  if (!j.is_object()) return s;
  s.cudaBuilt = j.value("cuda_built", false);
  s.cudaUsable = j.value("cuda_usable", false);
  s.cudaReason = j.value("cuda_reason", std::string());
  if (const auto it = j.find("cuda_devices"); it != j.end() && it->is_array())
    for (const auto& d : *it) s.cudaDevices.push_back(d.get<DeviceInfo>());
  if (const auto it = j.find("cpu"); it != j.end() && it->is_object())
    s.cpu = it->get<DeviceInfo>();
  return s;
}

double nowMs() { return static_cast<double>(QDateTime::currentMSecsSinceEpoch()); }

QString signalName(int sig) {
  switch (sig) {
    case SIGKILL:
      return QStringLiteral("SIGKILL");
    case SIGABRT:
      return QStringLiteral("SIGABRT");
    case SIGSEGV:
      return QStringLiteral("SIGSEGV");
    case SIGTERM:
      return QStringLiteral("SIGTERM");
    case SIGBUS:
      return QStringLiteral("SIGBUS");
    case SIGPIPE:
      return QStringLiteral("SIGPIPE");
    default:
      return QStringLiteral("signal %1").arg(sig);
  }
}

}  // namespace

QString incompatibility(const WorkerHello& h, const QString& where) {
  if (h.protocol != worker::kProtocol)
    return tr("The worker on %1 (%2) speaks worker protocol %3; this window (%4) speaks protocol "
              "%5. "
              "Build kernellab-cli there from the same KernelLab version as this window.")
        .arg(where, h.tool.isEmpty() ? tr("unknown version") : h.tool)
        .arg(h.protocol)
        .arg(QString::fromStdString(toolVersion()))
        .arg(worker::kProtocol);
  if (h.schemaVersion > kSchemaVersion || h.schemaVersion < 1)
    return tr("The worker on %1 (%2) writes results schema %3; this window (%4) reads schema "
              "1..%5. "
              "Build kernellab-cli there from the same KernelLab version as this window.")
        .arg(where, h.tool)
        .arg(h.schemaVersion)
        .arg(QString::fromStdString(toolVersion()))
        .arg(kSchemaVersion);
  return {};
}

// Decodes frames on its own thread, in the order they arrived, and hands events back.
class FrameDecoder : public QObject {
  Q_OBJECT
 public:
  void decode(const QByteArray& body, char encoding) {
    WorkerEvent e;
    try {
      worker::Frame f;
      f.encoding = static_cast<worker::Encoding>(encoding);
      f.body = body.toStdString();
      const json j = worker::decodeFrame(f);
      e = toEvent(j);
    } catch (const std::exception& ex) {
      e.kind = WorkerEvent::Kind::Bye;
      e.message = tr("the worker sent a frame this window cannot read: %1")
                      .arg(QString::fromUtf8(ex.what()));
    }
    emit decoded(e);
  }
  // Queued after the last frame: the process ended once everything it said was decoded.
  void end(int exitCode, int exitStatus) { emit ended(exitCode, exitStatus); }

 signals:
  void decoded(const kernellab::app::WorkerEvent& e);
  void ended(int exitCode, int exitStatus);

 private:
  static WorkerEvent toEvent(const json& j) {
    WorkerEvent e;
    const std::string name = j.value("event", std::string());
    e.job = j.value("job", qint64(0));
    if (name == "hello") {
      e.kind = WorkerEvent::Kind::Hello;
      WorkerHello& h = e.hello;
      h.protocol = j.value("protocol", 0);
      h.schemaVersion = j.value("schema_version", 0);
      h.tool = str(j, "tool");
      h.host = str(j, "host");
      h.pid = j.value("pid", qint64(0));
      h.pgid = j.value("pgid", qint64(0));
      h.summary = str(j, "summary");
      h.visibleDevices = str(j, "cuda_visible_devices");
      if (h.protocol == worker::kProtocol) h.status = statusFromJson(j.value("backend", json()));
    } else if (name == "progress") {
      e.kind = WorkerEvent::Kind::Progress;
      e.stage = str(j, "stage");
      e.fraction = j.value("fraction", 0.0);
    } else if (name == "iteration") {
      e.kind = WorkerEvent::Kind::Iteration;
      e.iteration.variant = str(j, "variant");
      e.iteration.record = j.at("record").get<IterationRecord>();
      if (const auto it = j.find("current"); it != j.end() && it->is_object())
        e.iteration.current = std::make_shared<const ClusteringOutput>(it->get<ClusteringOutput>());
    } else if (name == "result") {
      e.kind = WorkerEvent::Kind::Result;
      e.sentAtMs = j.value("sent_at_ms", 0.0);
      auto file = std::make_shared<ResultsFile>(j.at("results").get<ResultsFile>());
      // Data from another process, maybe another machine: checked like a file before use.
      validateResultsFile(*file);
      if (const QString why = validateResults(*file); !why.isEmpty())
        throw std::runtime_error(why.toStdString());
      e.results = std::move(file);
      e.receivedAtMs = nowMs();
    } else if (name == "error") {
      e.kind = WorkerEvent::Kind::Error;
      e.message = str(j, "message");
      e.inputError = j.value("input_error", false);
    } else if (name == "cancelled") {
      e.kind = WorkerEvent::Kind::Cancelled;
    } else if (name == "ready") {
      e.kind = WorkerEvent::Kind::Ready;
    } else if (name == "bye") {
      e.kind = WorkerEvent::Kind::Bye;
      e.message = str(j, "reason");
    } else {
      // A newer worker's event of the same protocol: ignore it (adding events keeps the version).
      e.kind = WorkerEvent::Kind::Ready;
      e.job = -1;
    }
    return e;
  }
};

WorkerProcess::WorkerProcess(const Target& target, int gpu, SshSession* ssh, QThread* decoderThread,
                             QObject* parent)
    : QObject(parent), target_(target), gpu_(gpu), ssh_(ssh) {
  decoder_ = new FrameDecoder;
  decoder_->moveToThread(decoderThread);
  connect(decoder_, &FrameDecoder::decoded, this, &WorkerProcess::onDecoded, Qt::QueuedConnection);
  connect(
      decoder_, &FrameDecoder::ended, this,
      [this](int code, int status) {
        processEnded(code, static_cast<QProcess::ExitStatus>(status));
      },
      Qt::QueuedConnection);
}

WorkerProcess::~WorkerProcess() {
  kill();
  decoder_->deleteLater();  // on its thread, after the frames queued to it
}

QString WorkerProcess::slotLabel() const {
  return gpu_ >= 0 ? tr("%1 GPU %2").arg(target_.name).arg(gpu_) : target_.name;
}

void WorkerProcess::start() {
  QMap<QString, QString> env;
  if (gpu_ >= 0) env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QString::number(gpu_));
  const WorkerCommand c =
      commandFor(target_, {QStringLiteral("worker"), QStringLiteral("--lifeline")}, env, ssh_);
  if (!c.error.isEmpty()) {
    // Reported once the caller has connected, like every other way a start can fail.
    QTimer::singleShot(0, this, [this, why = c.error] {
      fail(tr("Cannot start a worker on %1: %2").arg(target_.label(), why));
    });
    return;
  }
  command_ = c.display();
  process_ = new QProcess(this);
  process_->setProcessEnvironment(c.environment);
  // Its own session: one kill of the group ends the worker (or ssh, or srun) and its children,
  // and ssh has no terminal to ask for a password on.
  process_->setChildProcessModifier([] { ::setsid(); });
  connect(process_, &QProcess::readyReadStandardOutput, this, &WorkerProcess::readOutput);
  connect(process_, &QProcess::readyReadStandardError, this, [this] {
    stderrTail_ += process_->readAllStandardError();
    if (stderrTail_.size() > 8192) stderrTail_ = stderrTail_.right(8192);
  });
  connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    readOutput();
    stderrTail_ += process_->readAllStandardError();
    // Through the decoder, so every frame the worker sent is handled first.
    QMetaObject::invokeMethod(
        decoder_, [d = decoder_, code, status] { d->end(code, static_cast<int>(status)); },
        Qt::QueuedConnection);
  });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      fail(tr("Cannot start a worker on %1: %2 (%3)")
               .arg(target_.label(), process_->errorString(), command_));
  });
  process_->start(c.program, c.arguments);
  pid_ = process_->processId();
}

void WorkerProcess::readOutput() {
  if (!process_) return;
  const QByteArray bytes = process_->readAllStandardOutput();
  if (bytes.isEmpty()) return;
  reader_.feed(bytes.constData(), static_cast<size_t>(bytes.size()));
  while (auto f = reader_.next()) {
    QByteArray body(f->body.data(), static_cast<qsizetype>(f->body.size()));
    const char encoding = static_cast<char>(f->encoding);
    QMetaObject::invokeMethod(
        decoder_, [d = decoder_, body = std::move(body), encoding] { d->decode(body, encoding); },
        Qt::QueuedConnection);
  }
  if (!reader_.error().empty())
    fail(tr("The worker on %1 sent a broken stream: %2")
             .arg(target_.label(), QString::fromStdString(reader_.error())));
}

bool WorkerProcess::submit(qint64 job, const json& jobObject) {
  if (dead_ || !greeted_ || job_ != 0 || !process_) return false;
  json j = jobObject;
  j["job"] = job;
  const std::string line = worker::jobLine(j);
  job_ = job;
  process_->write(line.data(), static_cast<qint64>(line.size()));
  return true;
}

void WorkerProcess::onDecoded(const WorkerEvent& e) {
  if (dead_) return;
  switch (e.kind) {
    case WorkerEvent::Kind::Hello: {
      hello_ = e.hello;
      const QString why = incompatibility(hello_, target_.label());
      if (!why.isEmpty()) {
        fail(why);
        return;
      }
      greeted_ = true;
      emit helloReceived(hello_);
      return;
    }
    case WorkerEvent::Kind::Ready:
      if (e.job < 0) return;  // an event this window does not know
      job_ = 0;
      emit idle();
      return;
    case WorkerEvent::Kind::Bye:
      fail(tr("The worker on %1 ended: %2").arg(slotLabel(), e.message));
      return;
    default:
      if (e.job != job_ && e.job != 0) return;  // a job this worker was told to forget
      emit event(e);
      return;
  }
}

QString WorkerProcess::endMessage(int exitCode, QProcess::ExitStatus status) const {
  const QString said = QString::fromUtf8(stderrTail_).trimmed();
  const QString noise = QString::fromUtf8(QByteArray::fromStdString(reader_.noise())).trimmed();
  QString detail = said;
  if (!noise.isEmpty()) detail += (detail.isEmpty() ? QString() : QStringLiteral("\n")) + noise;
  if (detail.size() > 1500) detail = QStringLiteral("...") + detail.right(1500);
  const QString tail = detail.isEmpty() ? QString() : tr(" It said: %1").arg(detail);
  const bool ssh = target_.kind == Target::Kind::Ssh;
  if (status == QProcess::CrashExit) {
    // QProcess reports a signal as a crash; the code is the signal only on Unix via waitpid,
    // which QProcess keeps to itself: name the usual one.
    return tr("The worker process on %1 was killed while %2 (a signal: killed from outside, a "
              "crash, or the out-of-memory killer).%3")
        .arg(slotLabel(), job_ ? tr("running") : tr("waiting"), tail);
  }
  if (!greeted_) {
    if (ssh && exitCode == 255)
      return tr("Cannot reach %1 over SSH (ssh exit 255).%2").arg(target_.label(), tail);
    if (exitCode == 127)
      return tr("No kernellab-cli at '%1' on %2 (the shell could not find it).%3")
          .arg(target_.cliPath.isEmpty() ? QStringLiteral("kernellab-cli") : target_.cliPath,
               target_.label(), tail);
    if (said.contains(QLatin1String("worker")) && exitCode == 2)
      return tr("The kernellab-cli on %1 has no worker mode: it is older than this window (%2). "
                "Build it there from the same KernelLab version.%3")
          .arg(target_.label(), QString::fromStdString(toolVersion()), tail);
    return tr("The worker on %1 ended before it said hello (exit code %2).%3")
        .arg(target_.label())
        .arg(exitCode)
        .arg(tail);
  }
  if (ssh && exitCode == 255)
    return tr("The connection to %1 was lost %2 (ssh exit 255).%3")
        .arg(target_.label(), job_ ? tr("during the run") : tr("while the worker waited"), tail);
  if (exitCode >= 128 && exitCode < 160)
    return tr("The worker on %1 was killed by %2 %3 (killed from outside, a crash, or the "
              "out-of-memory killer).%4")
        .arg(slotLabel(), signalName(exitCode - 128),
             job_ ? tr("during the run") : tr("while it waited"), tail);
  return tr("The worker on %1 ended %2 (exit code %3).%4")
      .arg(slotLabel(), job_ ? tr("during the run") : tr("while it waited"))
      .arg(exitCode)
      .arg(tail);
}

void WorkerProcess::processEnded(int exitCode, QProcess::ExitStatus status) {
  if (dead_) return;
  fail(endMessage(exitCode, status));
}

void WorkerProcess::fail(const QString& message) {
  if (dead_) return;
  kill();  // whatever is left of it
  emit died(message);
}

void WorkerProcess::kill() {
  if (dead_) return;
  dead_ = true;
  killed_ = true;
  if (!process_) return;
  if (target_.kind == Target::Kind::Ssh && hello_.pid > 0) {
    // The remote worker, by its process group, over the shared connection; detached, so the
    // window never waits on the network. Its stdin closing (below) ends it too (--lifeline).
    const qint64 group = hello_.pgid > 0 ? hello_.pgid : hello_.pid;
    const WorkerCommand c = sshShell(
        target_,
        QStringLiteral("kill -KILL -- -%1 %2 2>/dev/null; true").arg(group).arg(hello_.pid), ssh_);
    QProcess killer;
    killer.setProgram(c.program);
    killer.setArguments(c.arguments);
    killer.setStandardOutputFile(QProcess::nullDevice());
    killer.setStandardErrorFile(QProcess::nullDevice());
    killer.startDetached();
  }
  const qint64 pid = process_->state() == QProcess::NotRunning ? 0 : process_->processId();
  process_->disconnect(this);
  if (pid > 0) {
    if (target_.kind == Target::Kind::Command) {
      // A scheduler's client (srun) cancels its job on TERM; KILL follows if it does not end.
      ::kill(static_cast<pid_t>(-pid), SIGTERM);
      QTimer::singleShot(500, [pid] { ::kill(static_cast<pid_t>(-pid), SIGKILL); });
    } else {
      ::kill(static_cast<pid_t>(-pid), SIGKILL);
    }
  }
  process_->closeWriteChannel();
  // QProcess reaps it; deleted once it has finished so no zombie is left behind.
  QProcess* p = process_;
  process_ = nullptr;
  p->setParent(nullptr);
  QObject::connect(p, &QProcess::finished, p, &QObject::deleteLater);
  if (p->state() == QProcess::NotRunning) p->deleteLater();
}

}  // namespace kernellab::app

#include "worker_process.moc"
