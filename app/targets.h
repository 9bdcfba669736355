// SPDX-License-Identifier: MIT
// Where runs run: this machine, an SSH host, or a command template for a scheduler. A target
// turns "start a kernellab-cli worker" into a program and its arguments; SSH targets share one
// connection per window session (OpenSSH's ControlMaster in a private socket folder).
#pragma once

#include <QMap>
#include <QProcessEnvironment>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QVector>
#include <memory>

class QSettings;

namespace kernellab::app {

struct Target {
  enum class Kind { Local, Ssh, Command };
  QString name;  // unique; "This machine" for the local one
  Kind kind = Kind::Local;
  QString host;        // ssh: user@host, or a Host of ~/.ssh/config
  int port = 0;        // ssh: 0 = ssh's own (the config's, or 22)
  QString cliPath;     // ssh: kernellab-cli on the host; command: {cli} (empty: this window's CLI)
  QString sshOptions;  // ssh: more client options, e.g. "-J bastion" or "-F ~/.ssh/lab_config"
  QString launch;      // command: the template, "srun --gres=gpu:1 --time=10 {cli}";
                       // ssh: an optional wrapper run on the host, "srun --gres=gpu:1 {cli}"
  int sweepWorkers = 0;      // workers for a sweep's points: 0 = one per GPU (one without GPUs)
  bool shareSweeps = false;  // also takes the points of sweeps started on another target

  bool operator==(const Target& o) const;
  bool isLocal() const { return kind == Kind::Local; }
  QString kindText() const;  // "this machine", "SSH", "command"
  QString label() const;     // "gpu-box (SSH)"
  // Why the target cannot be used as it is (empty when it can): a missing host or {cli}, ...
  QString problem() const;
};

inline const QString kLocalTargetName = QStringLiteral("This machine");

// The kernellab-cli that belongs to this window: $KERNELLAB_CLI, next to the window's binary,
// or the build tree's; empty when none is found (the window then runs in-process).
QString localCliPath();

// Shell quoting for a remote command line ('...'; a leading ~/ stays outside the quotes so the
// remote shell expands it).
QString shellQuote(const QString& text);

// The saved targets (QSettings "targets"); the local one is always first and cannot be removed.
class TargetList {
 public:
  TargetList();
  void load(QSettings& s);
  void save(QSettings& s) const;
  const QVector<Target>& all() const { return targets_; }
  const Target* find(const QString& name) const;
  // Adds or replaces the target of that name (the local one keeps its kind).
  void put(const Target& t);
  bool remove(const QString& name);
  QString current() const { return current_; }
  bool setCurrent(const QString& name);
  const Target& currentTarget() const;

 private:
  QVector<Target> targets_;
  QString current_ = kLocalTargetName;
};

// A program to start, with its arguments and environment.
struct WorkerCommand {
  QString program;
  QStringList arguments;
  QProcessEnvironment environment;
  QString error;  // why no command could be built (no local CLI, a template without {cli}...)
  QString display() const;  // for messages: "ssh -p 2222 gpu-box -- ..."
};

// The SSH connections of one window session: a private 0700 socket folder for ControlPath, one
// master per host (ControlPersist keeps it between runs), all closed when this goes away.
class SshSession {
 public:
  SshSession();
  ~SshSession();
  SshSession(const SshSession&) = delete;
  SshSession& operator=(const SshSession&) = delete;

  // The ssh client's arguments up to and including the host (BatchMode: a password prompt would
  // hang; keys, agent and ~/.ssh/config apply).
  QStringList baseArguments(const Target& t);
  QString socketDirectory() const;

 private:
  std::unique_ptr<QTemporaryDir> dir_;
  QMap<QString, QStringList> used_;  // host key -> base arguments, for "ssh -O exit"
};

// `kernellab-cli <cliArgs>` on the target, with `env` set for it (CUDA_VISIBLE_DEVICES).
WorkerCommand commandFor(const Target& t, const QStringList& cliArgs,
                         const QMap<QString, QString>& env, SshSession* ssh);

// A shell command on an SSH target (over the shared connection): `kill`, `test -s`, `cat >`.
WorkerCommand sshShell(const Target& t, const QString& command, SshSession* ssh);

}  // namespace kernellab::app
