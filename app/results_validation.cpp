// SPDX-License-Identifier: MIT
// Reading and checking results files for the window.
#include "results_validation.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "kernellab/errors.h"
#include "kernellab/family.h"
#include "kernellab/json_io.h"
#include "kernellab/results_validation.h"
#include "kernellab/xz_text.h"

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#endif

namespace kernellab::app {
namespace {

using L = ResultsLimits;

QString tr(const char* text) { return QCoreApplication::translate("ResultsValidation", text); }
QString q(const std::string& s) {
  // Names from a file are echoed shortened: a 5 MB field must not become a 5 MB message.
  constexpr int kMaxEcho = 80;
  QString t = QString::fromStdString(s.size() > 4 * kMaxEcho ? s.substr(0, 4 * kMaxEcho) : s);
  return t.size() > kMaxEcho ? t.left(kMaxEcho) + QStringLiteral("...") : t;
}

// The first problem found; every check below returns early through it.
struct Checker {
  QString problem;
  QString where;  // "run 2, variant 'best'"

  bool failed() const { return !problem.isEmpty(); }
  bool fail(const QString& what) {
    if (problem.isEmpty()) problem = where.isEmpty() ? what : where + QStringLiteral(": ") + what;
    return false;
  }
  // `name` = value within [lo, hi].
  bool range(const QString& name, int64_t value, int64_t lo, int64_t hi) {
    if (value >= lo && value <= hi) return true;
    return fail(tr("%1 = %2 is outside %3..%4").arg(name).arg(value).arg(lo).arg(hi));
  }
  bool atMost(const QString& name, int64_t value, int64_t hi) {
    if (value <= hi) return true;
    return fail(tr("%1 = %2 is above the limit of %3").arg(name).arg(value).arg(hi));
  }
  bool size(const QString& name, size_t actual, int64_t expected, const QString& because) {
    if (static_cast<int64_t>(actual) == expected) return true;
    return fail(
        tr("%1 has %2 entries, expected %3 (%4)").arg(name).arg(actual).arg(expected).arg(because));
  }
};

int64_t product(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  if (a > std::numeric_limits<int64_t>::max() / b) return std::numeric_limits<int64_t>::max();
  return a * b;
}

void checkDevice(Checker& c, const DeviceInfo& d) {
  c.range(QStringLiteral("device sm_count"), d.smCount, 0, L::kMaxSms) &&
      c.range(QStringLiteral("device cc_major"), d.ccMajor, 0, 100) &&
      c.range(QStringLiteral("device cc_minor"), d.ccMinor, 0, 100) &&
      c.range(QStringLiteral("device max_threads_per_block"), d.maxThreadsPerBlock, 0,
              L::kMaxThreadsPerBlock) &&
      c.range(QStringLiteral("device max_threads_per_sm"), d.maxThreadsPerSM, 0,
              L::kMaxThreadsPerBlock) &&
      c.range(QStringLiteral("device max_blocks_per_sm"), d.maxBlocksPerSM, 0, 4096) &&
      c.range(QStringLiteral("device regs_per_sm"), d.regsPerSM, 0, L::kMaxRegisters) &&
      c.range(QStringLiteral("device regs_per_block"), d.regsPerBlock, 0, L::kMaxRegisters) &&
      c.range(QStringLiteral("device shared_per_block"),
              static_cast<int64_t>(std::min<uint64_t>(d.sharedPerBlock, INT64_MAX)), 0,
              L::kMaxSharedBytes) &&
      c.range(QStringLiteral("device shared_per_block_optin"),
              static_cast<int64_t>(std::min<uint64_t>(d.sharedPerBlockOptin, INT64_MAX)), 0,
              L::kMaxSharedBytes) &&
      c.range(QStringLiteral("device shared_per_sm"),
              static_cast<int64_t>(std::min<uint64_t>(d.sharedPerSM, INT64_MAX)), 0,
              L::kMaxSharedBytes) &&
      c.range(QStringLiteral("device reserved_shared_per_block"), d.reservedSharedPerBlock, -1,
              L::kMaxSharedBytes) &&
      c.range(QStringLiteral("device warp_size"), d.warpSize, 0, 1024);
}

// The request's sizes are bounded from above only: a sweep point the CLI skipped keeps the
// request it refused (N = 0, K > N ...), and the views refuse those with the family's message.
void checkRequest(Checker& c, const RunRequest& r) {
  c.atMost(QStringLiteral("launch threads_per_block"), r.launch.threadsPerBlock,
           L::kMaxThreadsPerBlock);
}

void checkVariant(Checker& c, const VariantResult& v) {
  for (const KernelResult& k : v.kernels) {
    if (!c.range(QStringLiteral("kernel grid_x"), k.gridX, 0, INT32_MAX) ||
        !c.range(QStringLiteral("kernel grid_y"), k.gridY, 0, INT32_MAX) ||
        !c.range(QStringLiteral("kernel launches"), k.launches, 0, INT32_MAX))
      return;
    if (k.resources && !c.range(QStringLiteral("kernel threads_per_block"),
                                k.resources->threadsPerBlock, 0, L::kMaxThreadsPerBlock))
      return;
  }
  for (size_t i = 0; i < v.schedule.size(); ++i) {
    const BlockRecord& b = v.schedule[i];
    if (b.smId < 0 || b.smId >= L::kMaxSmId)
      return void(c.fail(
          tr("block record %L1: SM %2 is outside 0..%3").arg(i).arg(b.smId).arg(L::kMaxSmId - 1)));
    if (b.blockId < 0 || b.tileX < 0 || b.tileY < 0)
      return void(c.fail(tr("block record %L1: negative block or tile index").arg(i)));
    if (b.endNs < b.startNs)
      return void(c.fail(tr("block record %L1 ends before it starts").arg(i)));
  }
}

#ifdef Q_OS_UNIX
QString kindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return tr("a FIFO (named pipe)");
  if (S_ISDIR(mode)) return tr("a directory");
  if (S_ISCHR(mode)) return tr("a character device");
  if (S_ISBLK(mode)) return tr("a block device");
  if (S_ISSOCK(mode)) return tr("a socket");
  return tr("not a regular file");
}

// MemAvailable from /proc/meminfo, 0 when unknown.
int64_t availableMemory() {
  QFile f(QStringLiteral("/proc/meminfo"));
  if (!f.open(QIODevice::ReadOnly)) return 0;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("MemAvailable:"))
      return line.mid(13).trimmed().split(' ').value(0).toLongLong() * 1024;
  return 0;
}
#endif

// Parsing holds the text, nlohmann's tree (several times the text for long number arrays) and
// the result: a file may take a tenth of the memory that is free.
constexpr int64_t kParseFactor = 10;
constexpr int64_t kMaxResultsBytes = int64_t(4) << 30;

}  // namespace

QString validateResults(const ResultsFile& file) {
  Checker c;
  if (file.runs.empty()) return tr("the file holds no runs");
  if (!c.range(QStringLiteral("runs"), static_cast<int64_t>(file.runs.size()), 1, L::kMaxRuns))
    return c.problem;
  // A sweep's runs are the product of its axes' values (a point that could not run is kept as
  // a run that says so): the labels "#12 tpb=64" index the axes by run.
  int64_t points = 1;
  for (size_t a = 0; a < file.sweep.size(); ++a) {
    const SweepAxis& axis = file.sweep[a];
    if (axis.name.empty()) return tr("sweep axis %1 has no name").arg(a + 1);
    if (axis.values.empty()) return tr("sweep axis '%1' has no values").arg(q(axis.name));
    points = product(points, static_cast<int64_t>(axis.values.size()));
  }
  if (!file.sweep.empty() && points != static_cast<int64_t>(file.runs.size()))
    return tr("the sweep's axes make %L1 runs, but the file holds %L2")
        .arg(points)
        .arg(file.runs.size());
  for (size_t i = 0; i < file.runs.size() && !c.failed(); ++i) {
    const RunResult& run = file.runs[i];
    c.where = tr("run %1").arg(i + 1);
    checkRequest(c, run.request);
    if (!c.failed()) checkDevice(c, run.device);
    for (size_t v = 0; v < run.variants.size() && !c.failed(); ++v) {
      c.where = tr("run %1, variant '%2'").arg(i + 1).arg(q(run.variants[v].variant));
      checkVariant(c, run.variants[v]);
    }
  }
  if (c.failed()) return c.problem;
  // Every family's own sections, as gpu/ checks them (each family's descriptor: the request's
  // sizes the views rely on, every label, center, neighbour and chosen point of its outputs).
  try {
    validateResultsFile(file);
  } catch (const InputError& e) {
    return QString::fromStdString(e.what()).left(400);
  }
  return {};
}

ResultsRead parseResultsForWindow(const QByteArray& text, const QString& name,
                                  const std::function<QString(ResultsFile&)>& complete) {
  ResultsRead out;
  out.sha1 = QCryptographicHash::hash(text, QCryptographicHash::Sha1).toHex();
  try {
    // Once gpu/'s validating reader exists (issue 16), it replaces parseResultsFile and
    // validateResults here.
    auto file = std::make_shared<ResultsFile>(parseResultsFile(text.toStdString()));
    QString problem = complete ? complete(*file) : QString();
    if (problem.isEmpty()) problem = validateResults(*file);
    if (!problem.isEmpty()) {
      out.error = tr("%1: %2").arg(name, problem);
      return out;
    }
    out.file = std::move(file);
  } catch (const std::exception& e) {
    out.error = tr("%1: %2").arg(name, QString::fromStdString(e.what()).left(400));
    // A newer KernelLab's file is not broken: whoever shares the folder may still read it.
    const nlohmann::json j =
        nlohmann::json::parse(text.constData(), text.constData() + text.size(), nullptr, false);
    if (j.is_object() && j.contains("schema_version") && j["schema_version"].is_number_unsigned())
      out.newerSchema = j["schema_version"].get<uint64_t>() > static_cast<uint64_t>(kSchemaVersion);
  }
  return out;
}

bool readDataFile(const QString& path, QByteArray* text, QString* error, int64_t maxBytes) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
#ifdef Q_OS_UNIX
  const QByteArray native = QFile::encodeName(path);
  struct stat st {};
  if (::stat(native.constData(), &st) != 0)
    return fail(tr("cannot open '%1': %2").arg(path, QString::fromLocal8Bit(std::strerror(errno))));
  if (!S_ISREG(st.st_mode))
    return fail(tr("'%1' is %2, not a results file").arg(path, kindOf(st.st_mode)));
  // Non-blocking: if the name was swapped for a FIFO since the stat, open does not wait for a
  // writer, and the descriptor's own type is checked again.
  const int fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fail(tr("cannot open '%1': %2").arg(path, QString::fromLocal8Bit(std::strerror(errno))));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(tr("'%1' is %2, not a results file").arg(path, kindOf(st.st_mode)));
  }
  const int64_t bytes = st.st_size;
  int64_t available = 0;
  int64_t limit = maxBytes;
  if (limit <= 0) {
    available = availableMemory();
    limit = available > 0 ? std::min(kMaxResultsBytes, available / kParseFactor) : kMaxResultsBytes;
  }
  if (bytes > limit) {
    ::close(fd);
    if (available > 0)
      return fail(tr("'%1' is %2 MB; reading it needs about %3 times that in memory, and %4 MB are "
                     "available (limit %5 MB)")
                      .arg(path)
                      .arg(bytes / 1e6, 0, 'f', 0)
                      .arg(kParseFactor)
                      .arg(available / 1e6, 0, 'f', 0)
                      .arg(limit / 1e6, 0, 'f', 0));
    return fail(tr("'%1' is %2 MB, above the limit of %3 MB")
                    .arg(path)
                    .arg(bytes / 1e6, 0, 'f', 0)
                    .arg(limit / 1e6, 0, 'f', 0));
  }
  QFile f;
  if (!f.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
    ::close(fd);
    return fail(tr("cannot read '%1': %2").arg(path, f.errorString()));
  }
  text->clear();
  text->reserve(static_cast<qsizetype>(bytes));
  // At most the size stat saw, plus one byte to notice growth: a file that keeps growing cannot
  // make the window read forever.
  while (text->size() <= bytes) {
    const QByteArray chunk = f.read(std::min<int64_t>(bytes + 1 - text->size(), 1 << 24));
    if (chunk.isEmpty()) break;
    *text += chunk;
  }
  if (text->size() > bytes)
    return fail(tr("'%1' grew while it was read; open it once it is complete").arg(path));
  return true;
#else
  QFile f(path);
  if (!QFileInfo(path).isFile() || !f.open(QIODevice::ReadOnly))
    return fail(tr("cannot open '%1' as a file").arg(path));
  if (maxBytes > 0 && f.size() > maxBytes)
    return fail(tr("'%1' is larger than %2 bytes").arg(path).arg(maxBytes));
  *text = f.readAll();
  return true;
#endif
}

ResultsRead readResultsForWindow(const QString& path) {
  QByteArray text;
  ResultsRead out;
  if (!readDataFile(path, &text, &out.error)) return out;
  // docs/data keeps the large results xz-compressed: they open as the JSON they hold, under the
  // same size and memory limits as a plain file.
  if (looksLikeXz(std::string(text.constData(), size_t(std::min<qsizetype>(text.size(), 6))))) {
    try {
      const std::string unpacked =
          decompressXz(std::string(text.constData(), size_t(text.size())), path.toStdString(),
                       double(kParseFactor), uint64_t(kMaxResultsBytes));
      text = QByteArray(unpacked.data(), qsizetype(unpacked.size()));
    } catch (const InputError& e) {
      out.error = QString::fromStdString(e.what());
      return out;
    }
  }
  return parseResultsForWindow(text, path);
}

QString namedFileRefusal(const std::string& path, const std::string& panelPath) {
  if (path.empty()) return {};
  const QString p = QString::fromStdString(path);
  if (path != panelPath)
    return tr("it names the file '%1', which the window reads only when the experiment panel names "
              "the same file (a results file is data, never a command)")
        .arg(q(path));
  const QFileInfo info(p);
  if (!info.exists()) return tr("'%1' does not exist here").arg(p);
#ifdef Q_OS_UNIX
  struct stat st {};
  if (::stat(QFile::encodeName(p).constData(), &st) != 0) return tr("cannot read '%1'").arg(p);
  if (!S_ISREG(st.st_mode)) return tr("'%1' is %2, not a points file").arg(p, kindOf(st.st_mode));
#else
  if (!info.isFile()) return tr("'%1' is not a regular file").arg(p);
#endif
  return {};
}

QString namedFilesRefusal(const RunRequest& shown, const RunRequest& panel) {
  // The files the family's request reads (its descriptor's files), each against the panel's.
  const FamilyDescriptor* family = findFamily(shown.family);
  if (!family || !family->files) return {};
  RunRequest shownCopy = shown, panelCopy = panel;
  const std::vector<std::string*> named = family->files(shownCopy);
  const std::vector<std::string*> panelNamed = family->files(panelCopy);
  for (size_t i = 0; i < named.size(); ++i) {
    if (!named[i]) continue;
    // The panel's value of the same field.
    const std::string panelPath =
        i < panelNamed.size() && panelNamed[i] ? *panelNamed[i] : std::string();
    if (const QString refusal = namedFileRefusal(*named[i], panelPath); !refusal.isEmpty())
      return refusal;
  }
  return {};
}

}  // namespace kernellab::app
