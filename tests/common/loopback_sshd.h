// SPDX-License-Identifier: MIT
// A real OpenSSH server for the worker tests: started by the test on 127.0.0.1 at a free port,
// with a host key, a user key, authorized_keys and a client config generated into a temporary
// folder; the machine's own SSH configuration is never read or changed. It runs as the current
// user with its own config file (-f, -D, -e, StrictModes no); as root (CI) it logs in root with
// the key only (PermitRootLogin prohibit-password) and needs /run/sshd, the privilege-separation
// folder the ssh service itself creates, which it makes when missing.
#pragma once

#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QThread>
#include <memory>

namespace kltest {

inline QString sshdPath() {
  for (const char* p : {"/usr/sbin/sshd", "/usr/local/sbin/sshd"})
    if (QFileInfo(QString::fromLatin1(p)).isExecutable()) return QString::fromLatin1(p);
  return {};
}

// A port nobody listens on now (bound and released; sshd takes it a moment later).
inline int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

// Whether a process has ended (gone, or a zombie nobody reaped yet).
inline bool processGone(qint64 pid) {
  QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
  if (!stat.open(QIODevice::ReadOnly)) return true;
  const QByteArray s = stat.readAll();
  const int close = s.lastIndexOf(')');
  return close < 0 || s.mid(close + 2, 1) == "Z";
}

// Children of `pid` (from /proc/*/stat's parent field).
inline QList<qint64> childProcesses(qint64 pid) {
  QList<qint64> out;
  for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
    bool ok = false;
    const qint64 p = entry.toLongLong(&ok);
    if (!ok) continue;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(p));
    if (!stat.open(QIODevice::ReadOnly)) continue;
    const QByteArray s = stat.readAll();
    const int close = s.lastIndexOf(')');
    const QList<QByteArray> f = s.mid(close + 2).split(' ');
    if (f.size() > 1 && f[1].toLongLong() == pid) out << p;
  }
  return out;
}

inline QString processName(qint64 pid) {
  QFile f(QStringLiteral("/proc/%1/comm").arg(pid));
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).trimmed() : QString();
}

class LoopbackSshd {
 public:
  ~LoopbackSshd() { stop(); }

  static bool installed() { return !sshdPath().isEmpty(); }
  // Starts the server; false with the reason (no sshd installed, keys not made, ...).
  bool start(QString* why) {
    const QString sshd = sshdPath();
    if (sshd.isEmpty()) {
      *why = QStringLiteral("no sshd (Debian openssh-server; scripts/install-deps.sh installs it)");
      return false;
    }
    dir_ = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("kl-sshd-XXXXXX")));
    if (!dir_->isValid()) {
      *why = QStringLiteral("cannot make a temporary folder");
      return false;
    }
    for (const char* key : {"host_key", "user_key"}) {
      QProcess k;
      k.start(QStringLiteral("ssh-keygen"),
              {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
               QStringLiteral("-N"), QString(), QStringLiteral("-f"), path(key)});
      if (!k.waitForFinished(30000) || k.exitCode() != 0) {
        *why = QStringLiteral("ssh-keygen failed: ") + QString::fromUtf8(k.readAllStandardError());
        return false;
      }
    }
    QFile::copy(path("user_key.pub"), path("authorized_keys"));
    QFile::setPermissions(path("authorized_keys"), QFile::ReadOwner | QFile::WriteOwner);
    if (::geteuid() == 0) QDir().mkpath(QStringLiteral("/run/sshd"));  // privilege separation
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = freeLoopbackPort();
      write("sshd_config",
            QStringLiteral("Port %1\nListenAddress 127.0.0.1\nHostKey %2\nPidFile %3\n"
                           "AuthorizedKeysFile %4\nStrictModes no\nPubkeyAuthentication yes\n"
                           "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                           "PermitRootLogin prohibit-password\nUsePAM no\nMaxSessions 64\n"
                           "MaxStartups 64\nLogLevel INFO\n")
                .arg(port_)
                .arg(path("host_key"), path("sshd.pid"), path("authorized_keys")));
      server_ = std::make_unique<QProcess>();
      server_->setProcessChannelMode(QProcess::MergedChannels);
      server_->start(sshd, {QStringLiteral("-f"), path("sshd_config"), QStringLiteral("-D"),
                            QStringLiteral("-e")});
      server_->waitForStarted(10000);
      QElapsedTimer t;
      t.start();
      while (t.elapsed() < 10000 && server_->state() == QProcess::Running &&
             !log_.contains("Server listening")) {
        server_->waitForReadyRead(200);
        log_ += server_->readAll();
      }
      log_ += server_->readAll();
      if (log_.contains("Server listening")) break;
      *why = QStringLiteral("sshd did not start (state %4, exit %1, %3): %2")
                 .arg(server_->exitCode())
                 .arg(QString::fromUtf8(log_), server_->errorString())
                 .arg(int(server_->state()));

      server_->kill();
      server_->waitForFinished(3000);
      log_.clear();
    }
    if (!log_.contains("Server listening")) return false;
    write("ssh_config",
          QStringLiteral("Host %1\n  HostName 127.0.0.1\n  Port %2\n  User %3\n  IdentityFile %4\n"
                         "  IdentitiesOnly yes\n  UserKnownHostsFile %5\n"
                         "  StrictHostKeyChecking accept-new\n  LogLevel ERROR\n")
              .arg(alias())
              .arg(port_)
              .arg(userName(), path("user_key"), path("known_hosts")));
    return true;
  }

  // Kills the server and every sshd process it started (the sessions): a lost connection.
  void killAll() {
    if (!server_) return;
    QList<qint64> todo{server_->processId()}, sshds;
    while (!todo.isEmpty()) {
      const qint64 p = todo.takeFirst();
      if (p <= 0) continue;
      if (processName(p).startsWith(QLatin1String("sshd"))) sshds << p;
      todo += childProcesses(p);
    }
    for (qint64 p : sshds) ::kill(static_cast<pid_t>(p), SIGKILL);
    server_->waitForFinished(3000);
  }

  void stop() {
    killAll();
    server_.reset();
  }

  static QString userName() {
    const passwd* pw = ::getpwuid(::geteuid());
    return pw ? QString::fromLocal8Bit(pw->pw_name) : QStringLiteral("root");
  }
  QString alias() const { return QStringLiteral("kltest"); }
  QString clientConfig() const { return path("ssh_config"); }
  // The client options a target needs: "-F <config>".
  QString sshOptions() const { return QStringLiteral("-F ") + clientConfig(); }
  QString folder() const { return dir_ ? dir_->path() : QString(); }
  int port() const { return port_; }
  QString log() {
    if (server_) log_ += server_->readAll();
    return QString::fromUtf8(log_);
  }

 private:
  QString path(const char* name) const {
    return QDir(dir_->path()).filePath(QString::fromLatin1(name));
  }
  void write(const char* name, const QString& text) {
    QFile f(path(name));
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) f.write(text.toUtf8());
  }

  std::unique_ptr<QTemporaryDir> dir_;
  std::unique_ptr<QProcess> server_;
  QByteArray log_;
  int port_ = 0;
};

}  // namespace kltest
