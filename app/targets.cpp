// SPDX-License-Identifier: MIT
// Targets: the saved list, and the commands that start a worker on each kind.
#include "targets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>

namespace kernellab::app {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("Targets", text); }

QString kindKey(Target::Kind k) {
  switch (k) {
    case Target::Kind::Ssh:
      return QStringLiteral("ssh");
    case Target::Kind::Command:
      return QStringLiteral("command");
    default:
      return QStringLiteral("local");
  }
}

Target::Kind kindFromKey(const QString& s) {
  if (s == QLatin1String("ssh")) return Target::Kind::Ssh;
  if (s == QLatin1String("command")) return Target::Kind::Command;
  return Target::Kind::Local;
}

Target localTarget() {
  Target t;
  t.name = kLocalTargetName;
  t.kind = Target::Kind::Local;
  return t;
}

// `env A=1 B=2 ` for a remote command line (sshd does not pass our environment).
QString envPrefix(const QMap<QString, QString>& env) {
  QString out;
  for (auto it = env.begin(); it != env.end(); ++it)
    out += QStringLiteral("%1=%2 ").arg(it.key(), shellQuote(it.value()));
  return out.isEmpty() ? QString() : QStringLiteral("env ") + out;
}

QString cliLine(const QString& cli, const QStringList& args) {
  QString line = shellQuote(cli);
  for (const QString& a : args) line += QLatin1Char(' ') + shellQuote(a);
  return line;
}

// The template with {cli} (and {gpu}) filled in; a template without {cli} gets it at the end.
QString fillTemplate(const QString& tmpl, const QString& cli, const QMap<QString, QString>& env) {
  QString line = tmpl.trimmed();
  if (!line.contains(QLatin1String("{cli}"))) line += QStringLiteral(" {cli}");
  line.replace(QLatin1String("{gpu}"),
               env.value(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("0")));
  line.replace(QLatin1String("{cli}"), cli);
  return line;
}

}  // namespace

bool Target::operator==(const Target& o) const {
  return name == o.name && kind == o.kind && host == o.host && port == o.port &&
         cliPath == o.cliPath && sshOptions == o.sshOptions && launch == o.launch &&
         sweepWorkers == o.sweepWorkers && shareSweeps == o.shareSweeps;
}

QString Target::kindText() const {
  switch (kind) {
    case Kind::Ssh:
      return tr("SSH");
    case Kind::Command:
      return tr("command");
    default:
      return tr("this machine");
  }
}

QString Target::label() const {
  return kind == Kind::Local ? name : QStringLiteral("%1 (%2)").arg(name, kindText());
}

QString Target::problem() const {
  if (name.trimmed().isEmpty()) return tr("the target has no name");
  if (kind == Kind::Ssh) {
    if (host.trimmed().isEmpty())
      return tr("an SSH target needs a host (user@host or a Host of ~/.ssh/config)");
    if (host.startsWith(QLatin1Char('-')) || host.contains(QLatin1Char(' ')))
      return tr("the host '%1' is not a host name").arg(host);
    if (port < 0 || port > 65535) return tr("port %1 is outside 1..65535").arg(port);
    if (!launch.trimmed().isEmpty() && !launch.contains(QLatin1String("{cli}")))
      return tr("the wrapper '%1' must say where the CLI goes: {cli}").arg(launch);
  }
  if (kind == Kind::Command && launch.trimmed().isEmpty())
    return tr("a command target needs a template, e.g. srun --gres=gpu:1 --time=10 {cli}");
  if (sweepWorkers < 0 || sweepWorkers > 64)
    return tr("sweep workers %1 is outside 0..64").arg(sweepWorkers);
  return {};
}

QString localCliPath() {
  if (qEnvironmentVariableIsSet("KERNELLAB_IN_PROCESS")) return {};
  const QString fromEnv = qEnvironmentVariable("KERNELLAB_CLI");
  if (!fromEnv.isEmpty()) return QFileInfo(fromEnv).isExecutable() ? fromEnv : QString();
  const QString beside =
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("kernellab-cli"));
  if (QFileInfo(beside).isExecutable()) return beside;
#ifdef KERNELLAB_BUILD_CLI
  if (QFileInfo(QStringLiteral(KERNELLAB_BUILD_CLI)).isExecutable())
    return QStringLiteral(KERNELLAB_BUILD_CLI);
#endif
  return {};
}

QString shellQuote(const QString& text) {
  if (text.startsWith(QLatin1String("~/"))) return QStringLiteral("~/") + shellQuote(text.mid(2));
  if (!text.isEmpty() &&
      text.indexOf(QRegularExpression(QStringLiteral("[^A-Za-z0-9_./=:,+-]"))) < 0)
    return text;
  QString q = text;
  q.replace(QLatin1Char('\''), QLatin1String("'\\''"));
  return QLatin1Char('\'') + q + QLatin1Char('\'');
}

TargetList::TargetList() { targets_.push_back(localTarget()); }

void TargetList::load(QSettings& s) {
  targets_ = {localTarget()};
  const int n = s.beginReadArray(QStringLiteral("targets/list"));
  for (int i = 0; i < n; ++i) {
    s.setArrayIndex(i);
    Target t;
    t.name = s.value(QStringLiteral("name")).toString();
    t.kind = kindFromKey(s.value(QStringLiteral("kind")).toString());
    t.host = s.value(QStringLiteral("host")).toString();
    t.port = s.value(QStringLiteral("port"), 0).toInt();
    t.cliPath = s.value(QStringLiteral("cli")).toString();
    t.sshOptions = s.value(QStringLiteral("sshOptions")).toString();
    t.launch = s.value(QStringLiteral("launch")).toString();
    t.sweepWorkers = s.value(QStringLiteral("sweepWorkers"), 0).toInt();
    t.shareSweeps = s.value(QStringLiteral("shareSweeps"), false).toBool();
    if (t.name == kLocalTargetName) {
      targets_[0].sweepWorkers = t.sweepWorkers;
      targets_[0].shareSweeps = t.shareSweeps;
    } else if (!t.name.isEmpty() && t.kind != Target::Kind::Local && !find(t.name)) {
      targets_.push_back(t);
    }
  }
  s.endArray();
  if (!setCurrent(s.value(QStringLiteral("targets/current"), kLocalTargetName).toString()))
    current_ = kLocalTargetName;
}

void TargetList::save(QSettings& s) const {
  s.beginWriteArray(QStringLiteral("targets/list"), static_cast<int>(targets_.size()));
  for (int i = 0; i < targets_.size(); ++i) {
    const Target& t = targets_[i];
    s.setArrayIndex(i);
    s.setValue(QStringLiteral("name"), t.name);
    s.setValue(QStringLiteral("kind"), kindKey(t.kind));
    s.setValue(QStringLiteral("host"), t.host);
    s.setValue(QStringLiteral("port"), t.port);
    s.setValue(QStringLiteral("cli"), t.cliPath);
    s.setValue(QStringLiteral("sshOptions"), t.sshOptions);
    s.setValue(QStringLiteral("launch"), t.launch);
    s.setValue(QStringLiteral("sweepWorkers"), t.sweepWorkers);
    s.setValue(QStringLiteral("shareSweeps"), t.shareSweeps);
  }
  s.endArray();
  s.setValue(QStringLiteral("targets/current"), current_);
}

const Target* TargetList::find(const QString& name) const {
  for (const Target& t : targets_)
    if (t.name == name) return &t;
  return nullptr;
}

void TargetList::put(const Target& t) {
  for (Target& have : targets_)
    if (have.name == t.name) {
      const Target::Kind kind = have.kind;
      have = t;
      if (kind == Target::Kind::Local) have.kind = kind;
      return;
    }
  targets_.push_back(t);
}

bool TargetList::remove(const QString& name) {
  if (name == kLocalTargetName) return false;
  for (int i = 0; i < targets_.size(); ++i)
    if (targets_[i].name == name) {
      targets_.removeAt(i);
      if (current_ == name) current_ = kLocalTargetName;
      return true;
    }
  return false;
}

bool TargetList::setCurrent(const QString& name) {
  if (!find(name)) return false;
  current_ = name;
  return true;
}

const Target& TargetList::currentTarget() const {
  const Target* t = find(current_);
  return t ? *t : targets_.front();
}

QString WorkerCommand::display() const {
  QStringList parts{program};
  for (const QString& a : arguments) parts << shellQuote(a);
  return parts.join(QLatin1Char(' '));
}

SshSession::SshSession() {
  // Short and private: a socket path has about 100 bytes, and nobody else may use our masters.
  dir_ = std::make_unique<QTemporaryDir>(
      QDir(QDir::tempPath()).filePath(QStringLiteral("kl-ssh-XXXXXX")));
}

SshSession::~SshSession() {
  // Close the masters now rather than ControlPersist's timeout later.
  for (const QStringList& base : used_) {
    QStringList args = base;
    args.insert(args.size() - 1, QStringLiteral("-O"));
    args.insert(args.size() - 1, QStringLiteral("exit"));
    QProcess p;
    p.setStandardOutputFile(QProcess::nullDevice());
    p.setStandardErrorFile(QProcess::nullDevice());
    p.start(QStringLiteral("ssh"), args);
    if (!p.waitForFinished(3000)) p.kill();
    p.waitForFinished(1000);
  }
}

QString SshSession::socketDirectory() const {
  return dir_ && dir_->isValid() ? dir_->path() : QString();
}

QStringList SshSession::baseArguments(const Target& t) {
  QStringList a{QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
                QStringLiteral("-o"), QStringLiteral("ConnectTimeout=15"),
                QStringLiteral("-o"), QStringLiteral("ServerAliveInterval=5"),
                QStringLiteral("-o"), QStringLiteral("ServerAliveCountMax=3")};
  if (!socketDirectory().isEmpty())
    a << QStringLiteral("-o") << QStringLiteral("ControlMaster=auto") << QStringLiteral("-o")
      << QStringLiteral("ControlPath=%1/%C").arg(socketDirectory()) << QStringLiteral("-o")
      << QStringLiteral("ControlPersist=300");
  if (t.port > 0) a << QStringLiteral("-p") << QString::number(t.port);
  a += QProcess::splitCommand(t.sshOptions);
  a << t.host;
  used_.insert(a.join(QLatin1Char('\x1f')), a);
  return a;
}

WorkerCommand commandFor(const Target& t, const QStringList& cliArgs,
                         const QMap<QString, QString>& env, SshSession* ssh) {
  WorkerCommand c;
  c.environment = QProcessEnvironment::systemEnvironment();
  if (const QString why = t.problem(); !why.isEmpty()) {
    c.error = why;
    return c;
  }
  if (t.kind == Target::Kind::Ssh) {
    const QString cli =
        t.cliPath.trimmed().isEmpty() ? QStringLiteral("kernellab-cli") : t.cliPath.trimmed();
    const QString line = envPrefix(env) + cliLine(cli, cliArgs);
    // Through sh whatever the login shell is (bash, zsh, fish): a worker ended by a signal then
    // says which on stderr and in the exit code (ssh alone answers 255, like a lost connection).
    const QString script =
        (t.launch.trimmed().isEmpty() ? line : fillTemplate(t.launch, line, env)) +
        QStringLiteral("; s=$?; if [ $s -gt 128 ]; then echo \"kernellab-cli worker ended by signal "
                       "$((s-128)) on $(hostname)\" >&2; fi; exit $s");
    const QString remote = QStringLiteral("sh -c ") + shellQuote(script);
    c.program = QStringLiteral("ssh");
    c.arguments = ssh->baseArguments(t);
    c.arguments << remote;
    return c;
  }
  const QString cli = t.cliPath.trimmed().isEmpty() ? localCliPath() : t.cliPath.trimmed();
  if (cli.isEmpty()) {
    c.error = tr("no kernellab-cli was found next to the window (build it, or set KERNELLAB_CLI)");
    return c;
  }
  for (auto it = env.begin(); it != env.end(); ++it) c.environment.insert(it.key(), it.value());
  if (t.kind == Target::Kind::Command) {
    c.program = QStringLiteral("/bin/sh");
    c.arguments = {QStringLiteral("-c"), fillTemplate(t.launch, cliLine(cli, cliArgs), env)};
    return c;
  }
  c.program = cli;
  c.arguments = cliArgs;
  return c;
}

WorkerCommand sshShell(const Target& t, const QString& command, SshSession* ssh) {
  WorkerCommand c;
  c.environment = QProcessEnvironment::systemEnvironment();
  c.program = QStringLiteral("ssh");
  c.arguments = ssh->baseArguments(t);
  c.arguments << command;
  return c;
}

}  // namespace kernellab::app
