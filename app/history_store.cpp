// SPDX-License-Identifier: MIT
// Run history on disk.
#include "history_store.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>

#include "kernellab/errors.h"
#include "kernellab/json_io.h"
#include "run_text.h"

namespace kernellab::app {
namespace {

constexpr int kCachedFiles = 8;
const QString kIndexName = QStringLiteral("index.json");

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
  e.file = QDir(dir).filePath(o.value(QStringLiteral("file")).toString());
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
  const QString part = path + QStringLiteral(".part");
  try {
    // Written under another name first: a crash mid-write never leaves a half file in the list.
    writeResultsFile(part.toStdString(), file, 1);
  } catch (const std::exception& e) {
    QFile::remove(part);
    if (error) *error = QString::fromStdString(e.what());
    return {};
  }
  if (!QFile::rename(part, path)) {
    QFile::remove(part);
    if (error) *error = QObject::tr("cannot write '%1'").arg(path);
    return {};
  }
  return path;
}

void HistoryStore::load() {
  entries_.clear();
  cache_.clear();
  cacheOrder_.clear();
  nextNumber_ = 1;
  bool dirty = false;
  QFile index(QDir(dir_).filePath(kIndexName));
  if (index.open(QIODevice::ReadOnly)) {
    const QJsonObject root = QJsonDocument::fromJson(index.readAll()).object();
    nextNumber_ = std::max(1, root.value(QStringLiteral("next_number")).toInt(1));
    for (const QJsonValue& v : root.value(QStringLiteral("entries")).toArray()) {
      HistoryEntry e = fromJson(v.toObject(), dir_);
      if (e.id.isEmpty() || !QFileInfo::exists(e.file)) {
        dirty = true;
        continue;
      }
      nextNumber_ = std::max(nextNumber_, e.number + 1);
      entries_ << e;
    }
  }
  // Files the index does not know (an index lost or written by an older version): add them.
  const QStringList files = QDir(dir_).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
  for (const QString& name : files) {
    if (name == kIndexName) continue;
    const QString path = QDir(dir_).filePath(name);
    if (findByFile(path)) continue;
    try {
      auto file = std::make_shared<const ResultsFile>(readResultsFile(path.toStdString()));
      HistoryEntry e = describe(path, *file, tr("found in the history folder"));
      e.number = nextNumber_++;
      entries_ << e;
      dirty = true;
    } catch (const std::exception&) {
      // Not a results file this build reads: leave it alone.
    }
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const HistoryEntry& a, const HistoryEntry& b) { return a.number < b.number; });
  if (dirty) saveIndex();
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
  if (const HistoryEntry* known = findByFile(path)) return *known;
  HistoryEntry e = describe(path, *file, origin);
  e.number = nextNumber_++;
  entries_ << e;
  remember(e.id, std::move(file));
  saveIndex();
  emit changed();
  return e;
}

bool HistoryStore::import(ResultsPtr file, const QString& origin, HistoryEntry* entry, QString* error) {
  const QString hash = QString::fromLatin1(
      QCryptographicHash::hash(QByteArray::fromStdString(nlohmann::json(*file).dump()), QCryptographicHash::Sha1).toHex());
  for (const HistoryEntry& known : entries_)
    if (known.contentHash == hash) {
      if (entry) *entry = known;
      return true;
    }
  const QString path = writeRunFile(dir_, *file, error);
  if (path.isEmpty()) return false;
  if (findByFile(path)) return false;
  HistoryEntry e = describe(path, *file, origin);
  e.number = nextNumber_++;
  e.contentHash = hash;
  entries_ << e;
  remember(e.id, std::move(file));
  saveIndex();
  emit changed();
  if (entry) *entry = e;
  return true;
}

bool HistoryStore::remove(const QString& id) {
  for (int i = 0; i < entries_.size(); ++i) {
    if (entries_[i].id != id) continue;
    QFile::remove(entries_[i].file);
    entries_.removeAt(i);
    cache_.remove(id);
    cacheOrder_.removeAll(id);
    saveIndex();
    emit changed();
    return true;
  }
  return false;
}

void HistoryStore::remember(const QString& id, ResultsPtr file) {
  cache_[id] = std::move(file);
  cacheOrder_.removeAll(id);
  cacheOrder_ << id;
  while (cacheOrder_.size() > kCachedFiles) cache_.remove(cacheOrder_.takeFirst());
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
  try {
    auto file = std::make_shared<const ResultsFile>(readResultsFile(e->file.toStdString()));
    remember(id, file);
    return file;
  } catch (const std::exception& ex) {
    if (error) *error = QString::fromStdString(ex.what());
    return nullptr;
  }
}

QStringList HistoryStore::runLabels(const HistoryEntry& entry, const ResultsFile& file) {
  const QString base = QStringLiteral("#%1").arg(entry.number);
  QStringList labels;
  size_t product = file.sweep.empty() ? 0 : 1;
  for (const SweepAxis& a : file.sweep) product *= std::max<size_t>(1, a.values.size());
  for (size_t i = 0; i < file.runs.size(); ++i) {
    if (file.runs.size() == 1 && file.sweep.empty()) {
      labels << base;
      continue;
    }
    if (product != file.runs.size()) {
      labels << QStringLiteral("%1.%2").arg(base).arg(i + 1);
      continue;
    }
    // Sweep order: the product of the axes' values, first axis outermost.
    QStringList parts;
    size_t rest = i;
    for (auto a = file.sweep.rbegin(); a != file.sweep.rend(); ++a) {
      const size_t n = std::max<size_t>(1, a->values.size());
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
  for (const HistoryEntry& e : entries_) {
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

void HistoryStore::saveIndex() const {
  QDir().mkpath(dir_);
  QJsonArray list;
  for (const auto& e : entries_) list.append(toJson(e));
  const QJsonObject root{{QStringLiteral("kind"), QStringLiteral("kernellab-history")},
                         {QStringLiteral("version"), 1},
                         {QStringLiteral("next_number"), nextNumber_},
                         {QStringLiteral("entries"), list}};
  QSaveFile f(QDir(dir_).filePath(kIndexName));
  if (!f.open(QIODevice::WriteOnly)) return;
  f.write(QJsonDocument(root).toJson(QJsonDocument::Indented));
  f.commit();
}

}  // namespace kernellab::app
