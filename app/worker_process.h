// SPDX-License-Identifier: MIT
// One `kernellab-cli worker` process on a target: started with QProcess in its own session (so
// Cancel ends it and anything it started at once), fed job lines, and read as a frame stream
// that a decoder thread turns into events (a million labels never block the window).
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <nlohmann/json.hpp>

#include "app_types.h"
#include "kernellab/result.h"
#include "kernellab/worker_protocol.h"
#include "targets.h"

class QThread;

namespace kernellab::app {

// What a worker says about itself in its first frame.
struct WorkerHello {
  int protocol = 0;
  int schemaVersion = 0;
  QString tool;  // "kernellab 0.1.0"
  QString host;
  qint64 pid = 0;
  qint64 pgid = 0;
  kernellab::BackendStatus status;
  QString summary;         // "CUDA: NVIDIA H200, cc 9.0, 132 SMs" or "CPU: <CUDA's reason>"
  QString visibleDevices;  // its CUDA_VISIBLE_DEVICES, when set
};

// Why this window cannot use a worker that said `hello` (both versions named); empty when it can.
QString incompatibility(const WorkerHello& hello, const QString& where);

// One decoded frame.
struct WorkerEvent {
  enum class Kind { Hello, Progress, Iteration, Result, Error, Cancelled, Ready, Bye, Ended };
  Kind kind = Kind::Progress;
  qint64 job = 0;
  WorkerHello hello;
  QString stage;
  double fraction = 0;
  LiveIteration iteration;  // generation 0: the owner sets it
  ResultsPtr results;
  double sentAtMs = 0;      // the worker's clock when it sent the result (epoch ms)
  double receivedAtMs = 0;  // this machine's clock when the result was decoded and checked
  QString message;          // error, bye, a bad frame
  bool inputError = false;
};

class FrameDecoder;

class WorkerProcess : public QObject {
  Q_OBJECT
 public:
  // `gpu` >= 0 sets CUDA_VISIBLE_DEVICES for the worker. Frames are decoded on `decoderThread`.
  WorkerProcess(const Target& target, int gpu, SshSession* ssh, QThread* decoderThread,
                QObject* parent = nullptr);
  ~WorkerProcess() override;

  // Starts the process; helloReceived or died follows.
  void start();
  // Writes one job; false when the worker cannot take it now.
  bool submit(qint64 job, const nlohmann::json& jobObject);
  // Ends the worker now: its process group on this machine (TERM then KILL for a scheduler's
  // client), and on an SSH target the remote worker by its pid over the shared connection (the
  // remote worker also ends itself when its stdin closes). Nothing is emitted afterwards.
  void kill();

  const Target& target() const { return target_; }
  int gpu() const { return gpu_; }
  QString slotLabel() const;  // "gpu-box", "gpu-box GPU 1"
  bool greeted() const { return greeted_; }
  bool busy() const { return job_ != 0; }
  bool alive() const { return !dead_; }
  qint64 job() const { return job_; }
  const WorkerHello& hello() const { return hello_; }
  qint64 localPid() const { return pid_; }
  QString commandLine() const { return command_; }

 signals:
  void helloReceived(const kernellab::app::WorkerHello& hello);
  // Progress, iterations, the result, an error or a cancel of the job in progress.
  void event(const kernellab::app::WorkerEvent& e);
  // The job ended (result, error or cancel) and the worker can take another.
  void idle();
  // The worker cannot go on: it never started, spoke another protocol, died or lost its
  // connection. `message` says which, with what the process said on stderr.
  void died(const QString& message);

 private:
  void readOutput();
  void processEnded(int exitCode, QProcess::ExitStatus status);
  void onDecoded(const kernellab::app::WorkerEvent& e);
  QString endMessage(int exitCode, QProcess::ExitStatus status) const;
  void fail(const QString& message);

  Target target_;
  int gpu_ = -1;
  SshSession* ssh_ = nullptr;
  QProcess* process_ = nullptr;
  FrameDecoder* decoder_ = nullptr;
  kernellab::worker::FrameReader reader_;
  WorkerHello hello_;
  QString command_;
  QByteArray stderrTail_;
  qint64 pid_ = 0;
  qint64 job_ = 0;
  bool greeted_ = false;
  bool dead_ = false;
  bool killed_ = false;
};

}  // namespace kernellab::app

Q_DECLARE_METATYPE(kernellab::app::WorkerHello)
Q_DECLARE_METATYPE(kernellab::app::WorkerEvent)
