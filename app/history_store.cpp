// SPDX-License-Identifier: MIT
// Run history on disk.
#include "history_store.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QRandomGenerator>
#include <QSet>
#include <QStandardPaths>
#include <algorithm>

#include "atomic_file.h"
#include "history_arrays.h"
#include "kernellab/errors.h"
#include "kernellab/json_io.h"
#include "results_validation.h"
#include "run_text.h"

namespace kernellab::app {
namespace {

constexpr int kCachedFiles = 8;
const QString kIndexName = QStringLiteral("index.json");
const QString kLockName = QStringLiteral("index.lock");
const QString kQuarantine = QStringLiteral("quarantine");
const QString kArraysSuffix = QStringLiteral(".arrays");
constexpr int kLockWaitMs = 10000;
constexpr int kOrphanArraysAgeS = 600;
constexpr int kMaxNumber = 1000000000;
constexpr int64_t kMaxIndexBytes = 64 << 20;

// The side file of a run file: run-x.json -> run-x.arrays.
QString sideFileOf(const QString& jsonPath) {
  const QFileInfo info(jsonPath);
  return info.dir().filePath(info.completeBaseName() + kArraysSuffix);
}

QJsonObject toJson(const HistoryEntry& e) {
  return QJsonObject{{QStringLiteral("id"), e.id},
                     {QStringLiteral("file"), QFileInfo(e.file).fileName()},
                     {QStringLiteral("number"), e.number},
                     {QStringLiteral("created"), e.created.toString(Qt::ISODate)},
                     {QStringLiteral("origin"), e.origin},
                     {QStringLiteral("family"), e.family},
                     {QStringLiteral("summary"), e.summary},
                     {QStringLiteral("device"), e.device},
                     {QStringLiteral("runs"), e.runs},
                     {QStringLiteral("ok"), e.ok},
                     {QStringLiteral("content_hash"), e.contentHash}};
}

HistoryEntry fromJson(const QJsonObject& o, const QString& dir) {
  HistoryEntry e;
  e.id = o.value(QStringLiteral("id")).toString();
  // The name only: an index never makes the window read outside its folder.
  const QString name = QFileInfo(o.value(QStringLiteral("file")).toString()).fileName();
  e.file = name.isEmpty() ? QString() : QDir(dir).filePath(name);
  e.number = o.value(QStringLiteral("number")).toInt();
  e.created = QDateTime::fromString(o.value(QStringLiteral("created")).toString(), Qt::ISODate);
  e.origin = o.value(QStringLiteral("origin")).toString();
  e.family = o.value(QStringLiteral("family")).toString();
  e.summary = o.value(QStringLiteral("summary")).toString();
  e.device = o.value(QStringLiteral("device")).toString();
  e.runs = o.value(QStringLiteral("runs")).toInt(1);
  e.ok = o.value(QStringLiteral("ok")).toBool(true);
  e.contentHash = o.value(QStringLiteral("content_hash")).toString();
  return e;
}

// A file of the history folder: read as data (a regular file, no blocking, bounded), its side
// file's arrays put back, then validated like any opened results file. `readFailed` tells a file
// that could not be read (left alone) from one whose contents fail (set aside).
ResultsRead readHistoryFile(const QString& path, bool* readFailed) {
  QByteArray text;
  ResultsRead out;
  *readFailed = !readDataFile(path, &text, &out.error);
  if (*readFailed) return out;
  // Only a top-level key counts (the text may quote the name elsewhere, in a message). The
  // side file is always the one beside the JSON, never a path the file names.
  bool side = false;
  if (text.contains(kSideFileKey)) {
    const nlohmann::json j =
        nlohmann::json::parse(text.constData(), text.constData() + text.size(), nullptr, false);
    side = j.is_object() && j.contains(kSideFileKey);
  }
  const QString sidePath = sideFileOf(path);
  return parseResultsForWindow(text, path, [&](ResultsFile& file) -> QString {
    if (!side) return {};
    QByteArray blob;
    QString why;
    if (!readDataFile(sidePath, &blob, &why)) return QObject::tr("its arrays file: %1").arg(why);
    if (!restoreLargeArrays(file, blob, &why)) return QObject::tr("%1: %2").arg(sidePath, why);
    return {};
  });
}

}  // namespace

HistoryStore::HistoryStore(const QString& directory, QObject* parent)
    : QObject(parent), dir_(directory) {}

QString HistoryStore::defaultDirectory() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("history"));
}

QString HistoryStore::writeRunFile(const QString& directory, const ResultsFile& file, QString* error) {
  if (!QDir().mkpath(directory)) {
    if (error) *error = QObject::tr("cannot create the history folder '%1'").arg(directory);
    return {};
  }
  const QString name = QStringLiteral("run-%1-%2.json")
                           .arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")))
                           .arg(QRandomGenerator::global()->generate() & 0xffffff, 6, 16, QLatin1Char('0'));
  const QString path = QDir(directory).filePath(name);
  QByteArray json, arrays;
  try {
    // Large arrays go to the packed side file; the JSON keeps the rest and names it.
    ResultsFile compact = file;
    arrays = takeLargeArrays(compact);
    nlohmann::json j = compact;
    if (!arrays.isEmpty())
      j[kSideFileKey] = sideFileOf(path).section(QLatin1Char('/'), -1).toStdString();
    json = QByteArray::fromStdString(j.dump(1) + "\n");
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return {};
  }
  // The side file first: a run file on disk always has its arrays.
  if (!arrays.isEmpty() && !writeFileAtomically(sideFileOf(path), arrays, error)) return {};
  if (!writeFileAtomically(path, json, error)) {
    QFile::remove(sideFileOf(path));
    return {};
  }
  return path;
}

void HistoryStore::load() {
  cache_.clear();
  cacheOrder_.clear();
  QStringList notes;
  // Temporary files of writes that were killed (this window's or another's that is gone).
  const QStringList parts = removeOrphanedParts(dir_);
  if (!parts.isEmpty())
    notes << tr("Removed %n unfinished file(s) of interrupted writes from the history folder.",
                nullptr, static_cast<int>(parts.size()));
  updateIndex([&](Index& index) {
    // Files the index does not know (an index lost, or written by an older version): add them.
    const QStringList files =
        QDir(dir_).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString& name : files) {
      if (name == kIndexName) continue;
      const QString path = QDir(dir_).filePath(name);
      const QString canonical = QFileInfo(path).absoluteFilePath();
      if (std::any_of(index.entries.begin(), index.entries.end(), [&](const HistoryEntry& e) {
            return QFileInfo(e.file).absoluteFilePath() == canonical;
          }))
        continue;
      bool readFailed = false;
      const ResultsRead read = readHistoryFile(path, &readFailed);
      if (read.file) {
        HistoryEntry e = describe(path, *read.file, tr("found in the history folder"));
        e.number = index.nextNumber++;
        index.entries << e;
      } else if (!readFailed && !read.newerSchema) {
        notes << quarantine(path, read.error);
      }
      // Unreadable here, or a newer KernelLab's file: left alone.
    }
  });
  // Side files whose run file never appeared (a write killed between the two renames).
  const QDateTime now = QDateTime::currentDateTimeUtc();
  for (const QFileInfo& info :
       QDir(dir_).entryInfoList({QStringLiteral("*") + kArraysSuffix}, QDir::Files)) {
    const QString json = info.dir().filePath(info.completeBaseName() + QStringLiteral(".json"));
    if (!QFileInfo::exists(json) && info.lastModified().toUTC().secsTo(now) >= kOrphanArraysAgeS)
      QFile::remove(info.absoluteFilePath());
  }
  emit changed();
  for (const QString& n : notes)
    if (!n.isEmpty()) emit problem(n);
}

void HistoryStore::refresh() {
  const Index index = readIndex(readIndexBytes());
  auto ids = [](const QVector<HistoryEntry>& list) {
    QStringList out;
    for (const HistoryEntry& e : list) out << e.id + QLatin1Char('#') + QString::number(e.number);
    return out;
  };
  if (ids(index.entries) == ids(entries_)) return;
  entries_ = index.entries;
  emit changed();
}

const HistoryEntry* HistoryStore::find(const QString& id) const {
  for (const auto& e : entries_)
    if (e.id == id) return &e;
  return nullptr;
}

const HistoryEntry* HistoryStore::findByFile(const QString& path) const {
  const QString canonical = QFileInfo(path).absoluteFilePath();
  for (const auto& e : entries_)
    if (QFileInfo(e.file).absoluteFilePath() == canonical) return &e;
  return nullptr;
}

HistoryEntry HistoryStore::describe(const QString& path, const ResultsFile& file,
                                    const QString& origin) const {
  HistoryEntry e;
  e.file = QFileInfo(path).absoluteFilePath();
  e.id = QFileInfo(path).completeBaseName();
  e.origin = origin;
  e.runs = static_cast<int>(file.runs.size());
  e.ok = std::all_of(file.runs.begin(), file.runs.end(), [](const RunResult& r) { return r.ok; });
  if (!file.runs.empty()) {
    const RunResult& first = file.runs.front();
    e.created = QDateTime::fromString(fromStd(first.createdAt), Qt::ISODate);
    e.family = QString::fromLatin1(toString(first.request.family));
    e.summary = requestSummary(first.request);
    e.device = deviceShort(first);
  }
  if (!e.created.isValid()) e.created = QFileInfo(path).lastModified();
  for (const SweepAxis& a : file.sweep)
    e.summary += tr(" · sweep %1 = %2").arg(fromStd(a.name), fromStd(a.values.empty() ? std::string() : a.values.front()) +
                                                                 (a.values.size() > 1 ? QStringLiteral("..") + fromStd(a.values.back()) : QString()));
  return e;
}

HistoryEntry HistoryStore::adopt(const QString& path, ResultsPtr file, const QString& origin) {
  HistoryEntry out;
  const QString canonical = QFileInfo(path).absoluteFilePath();
  updateIndex([&](Index& index) {
    for (const HistoryEntry& e : index.entries)
      if (QFileInfo(e.file).absoluteFilePath() == canonical) {
        out = e;  // another window listed it already ("found in the history folder")
        return;
      }
    out = describe(path, *file, origin);
    out.number = index.nextNumber++;
    index.entries << out;
  });
  remember(out.id, std::move(file));
  emit changed();
  return out;
}

bool HistoryStore::import(ResultsPtr file, const QByteArray& sha1, const QString& origin,
                          HistoryEntry* entry, QString* error) {
  const QString hash = QString::fromLatin1(sha1);
  auto known = [&](const QVector<HistoryEntry>& list) -> const HistoryEntry* {
    for (const HistoryEntry& e : list)
      if (!hash.isEmpty() && e.contentHash == hash) return &e;
    return nullptr;
  };
  const Index now = readIndex(readIndexBytes());
  if (const HistoryEntry* e = known(now.entries)) {
    if (entry) *entry = *e;
    entries_ = now.entries;  // it may be another window's entry
    emit changed();
    return true;
  }
  const QString path = writeRunFile(dir_, *file, error);
  if (path.isEmpty()) return false;
  HistoryEntry out;
  bool duplicate = false;
  updateIndex([&](Index& index) {
    if (const HistoryEntry* e = known(index.entries)) {  // another window opened it meanwhile
      out = *e;
      duplicate = true;
      return;
    }
    out = describe(path, *file, origin);
    out.number = index.nextNumber++;
    out.contentHash = hash;
    index.entries << out;
  });
  if (duplicate) {
    QFile::remove(path);
    QFile::remove(sideFileOf(path));
  } else {
    remember(out.id, std::move(file));
  }
  emit changed();
  if (entry) *entry = out;
  return true;
}

bool HistoryStore::remove(const QString& id) {
  QString file;
  updateIndex([&](Index& index) {
    for (int i = 0; i < index.entries.size(); ++i)
      if (index.entries[i].id == id) {
        file = index.entries[i].file;
        index.entries.removeAt(i);
        return;
      }
  });
  cache_.remove(id);
  cacheOrder_.removeAll(id);
  if (file.isEmpty()) return false;
  QFile::remove(file);
  QFile::remove(sideFileOf(file));
  emit changed();
  return true;
}

void HistoryStore::remember(const QString& id, ResultsPtr file) {
  cache_[id] = std::move(file);
  cacheOrder_.removeAll(id);
  cacheOrder_ << id;
  while (cacheOrder_.size() > kCachedFiles) cache_.remove(cacheOrder_.takeFirst());
}

QString HistoryStore::quarantineDirectory() const { return QDir(dir_).filePath(kQuarantine); }

QString HistoryStore::quarantine(const QString& path, const QString& why) {
  // Moved, not deleted: the user may want to look at it or send it with a bug report.
  const QString target = quarantineDirectory();
  QDir().mkpath(target);
  const QString base = QFileInfo(path).fileName();
  QString moved = QDir(target).filePath(base);
  for (int i = 2; QFileInfo::exists(moved); ++i)
    moved = QDir(target).filePath(QStringLiteral("%1.%2").arg(base).arg(i));
  const bool ok = QFile::rename(path, moved);
  if (QFileInfo::exists(sideFileOf(path))) QFile::rename(sideFileOf(path), moved + kArraysSuffix);
  const QString text =
      ok ? tr("A run file of the history failed validation and was set aside into %1: %2")
               .arg(moved, why)
         : tr("A run file of the history failed validation and could not be moved aside (%1): %2")
               .arg(path, why);
  qWarning("kernellab: %s", qPrintable(text));
  return text;
}

ResultsPtr HistoryStore::results(const QString& id, QString* error) {
  if (auto it = cache_.find(id); it != cache_.end()) {
    remember(id, it.value());
    return cache_.value(id);
  }
  const HistoryEntry* e = find(id);
  if (!e) {
    if (error) *error = tr("run %1 is not in the history").arg(id);
    return nullptr;
  }
  bool readFailed = false;
  const QString path = e->file;
  const int number = e->number;
  const ResultsRead read = readHistoryFile(path, &readFailed);
  if (read.file) {
    remember(id, read.file);
    return read.file;
  }
  if (error) *error = read.error;
  if (readFailed || read.newerSchema) return nullptr;
  // A file that fails validation never reaches a view, now or at the next start.
  const QString note = quarantine(path, read.error);
  updateIndex([&](Index& index) {
    index.entries.erase(std::remove_if(index.entries.begin(), index.entries.end(),
                                       [&](const HistoryEntry& x) { return x.id == id; }),
                        index.entries.end());
  });
  if (error) *error = tr("run #%1 was set aside: %2").arg(number).arg(read.error);
  emit changed();
  emit problem(note);
  return nullptr;
}

QStringList HistoryStore::runLabels(const HistoryEntry& entry, const ResultsFile& file) {
  const QString base = QStringLiteral("#%1").arg(entry.number);
  QStringList labels;
  // The axes name each run only when their product is exactly the runs; an axis without values
  // names nothing (validation refuses such files; this never indexes into one either).
  size_t product = file.sweep.empty() ? 0 : 1;
  for (const SweepAxis& a : file.sweep) product = a.values.empty() ? 0 : product * a.values.size();
  for (size_t i = 0; i < file.runs.size(); ++i) {
    if (file.runs.size() == 1 && file.sweep.empty()) {
      labels << base;
      continue;
    }
    if (product == 0 || product != file.runs.size()) {
      labels << QStringLiteral("%1.%2").arg(base).arg(i + 1);
      continue;
    }
    // Sweep order: the product of the axes' values, first axis outermost.
    QStringList parts;
    size_t rest = i;
    for (auto a = file.sweep.rbegin(); a != file.sweep.rend(); ++a) {
      const size_t n = a->values.size();
      parts.prepend(QStringLiteral("%1=%2").arg(fromStd(a->name), fromStd(a->values[rest % n])));
      rest /= n;
    }
    labels << base + QLatin1Char(' ') + parts.join(QLatin1Char(' '));
  }
  return labels;
}

RunSelection HistoryStore::selection(const QStringList& ids, const QString& primaryId, QString* error) {
  RunSelection sel;
  QStringList problems;
  // A copy: reading an entry may set a bad file aside and change the list.
  const QVector<HistoryEntry> entries = entries_;
  for (const HistoryEntry& e : entries) {
    if (!ids.contains(e.id)) continue;
    QString why;
    ResultsPtr file = results(e.id, &why);
    if (!file) {
      problems << tr("#%1: %2").arg(e.number).arg(why);
      continue;
    }
    const QStringList labels = runLabels(e, *file);
    if (e.id == primaryId || (sel.primary < 0 && primaryId.isEmpty())) sel.primary = static_cast<int>(sel.runs.size());
    for (int i = 0; i < static_cast<int>(file->runs.size()); ++i)
      sel.runs << RunRef{file, i, e.id, labels.value(i)};
  }
  if (sel.primary < 0 && !sel.runs.isEmpty()) sel.primary = static_cast<int>(sel.runs.size()) - 1;
  if (sel.primary >= sel.runs.size()) sel.primary = sel.runs.isEmpty() ? -1 : 0;
  if (error) *error = problems.join(QStringLiteral("; "));
  return sel;
}

QByteArray HistoryStore::readIndexBytes() const {
  QByteArray bytes;
  readDataFile(QDir(dir_).filePath(kIndexName), &bytes, nullptr, kMaxIndexBytes);
  return bytes;
}

HistoryStore::Index HistoryStore::readIndex(const QByteArray& bytes) const {
  Index index;
  const QJsonObject root = QJsonDocument::fromJson(bytes).object();
  index.nextNumber = std::clamp(root.value(QStringLiteral("next_number")).toInt(1), 1, kMaxNumber);
  QSet<QString> ids;
  QSet<int> numbers;
  QVector<HistoryEntry> renumber;
  for (const QJsonValue& v : root.value(QStringLiteral("entries")).toArray()) {
    HistoryEntry e = fromJson(v.toObject(), dir_);
    // Entries whose file is gone are dropped; the file name never leaves the folder.
    if (e.id.isEmpty() || e.file.isEmpty() || ids.contains(e.id) || !QFileInfo(e.file).isFile())
      continue;
    ids.insert(e.id);
    if (e.number < 1 || e.number >= kMaxNumber || numbers.contains(e.number)) {
      renumber << e;  // an index written by two older windows at once: numbers made unique again
      continue;
    }
    numbers.insert(e.number);
    index.nextNumber = std::max(index.nextNumber, e.number + 1);
    index.entries << e;
  }
  for (HistoryEntry& e : renumber) {
    e.number = index.nextNumber++;
    index.entries << e;
  }
  return index;
}

QByteArray HistoryStore::indexBytes(const Index& index) const {
  QJsonArray list;
  for (const auto& e : index.entries) list.append(toJson(e));
  const QJsonObject root{{QStringLiteral("kind"), QStringLiteral("kernellab-history")},
                         {QStringLiteral("version"), 1},
                         {QStringLiteral("next_number"), index.nextNumber},
                         {QStringLiteral("entries"), list}};
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

bool HistoryStore::updateIndex(const std::function<void(Index&)>& change) {
  QDir().mkpath(dir_);
  // Another window may change the index at the same time: read, change and write it under the
  // folder's lock. A lock left by a crashed window is stale (its process is gone) and taken over.
  QLockFile lock(QDir(dir_).filePath(kLockName));
  lock.setStaleLockTime(30000);
  const bool locked = lock.tryLock(kLockWaitMs);
  if (!locked)
    qWarning("kernellab: the history index %s is locked by another window; changing it anyway",
             qPrintable(QDir(dir_).filePath(kIndexName)));
  const QByteArray before = readIndexBytes();
  Index index = readIndex(before);
  change(index);
  std::sort(index.entries.begin(), index.entries.end(),
            [](const HistoryEntry& a, const HistoryEntry& b) { return a.number < b.number; });
  for (const HistoryEntry& e : index.entries)
    index.nextNumber = std::max(index.nextNumber, e.number + 1);
  entries_ = index.entries;
  const QByteArray after = indexBytes(index);
  if (after == before || (before.isEmpty() && index.entries.isEmpty())) return true;
  QString why;
  if (!writeFileAtomically(QDir(dir_).filePath(kIndexName), after, &why)) {
    qWarning("kernellab: cannot write the history index: %s", qPrintable(why));
    return false;
  }
  return true;
}

}  // namespace kernellab::app
