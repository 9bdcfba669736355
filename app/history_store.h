// SPDX-License-Identifier: MIT
// Run history: every run (and every results file opened) kept as a results JSON file in the
// application data folder, with a small index so the list loads without parsing every file.
#pragma once

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include "app_types.h"

namespace kernellab::app {

struct HistoryEntry {
  QString id;          // the file's base name, unique
  QString file;        // absolute path of the results JSON
  int number = 0;      // #n shown to the user, increasing
  QDateTime created;
  QString origin;      // "run here" or "opened /path/to/file.json"
  QString family;      // "transpose", "kmeans", ...
  QString summary;     // "transpose 2048x2048 · TPB 256 · tile 32 (sweep tpb: 5 runs)"
  QString device;      // "NVIDIA H200", "CPU (...)"
  int runs = 1;
  bool ok = true;
  QString contentHash;  // SHA-1 of an opened file's results: opening it again reuses the entry
};

class HistoryStore : public QObject {
  Q_OBJECT
 public:
  explicit HistoryStore(const QString& directory, QObject* parent = nullptr);

  // <AppDataLocation>/history
  static QString defaultDirectory();
  // Writes a results file into `directory` under a new unique name; safe from any thread.
  // Returns the path, or an empty string and the reason.
  static QString writeRunFile(const QString& directory, const kernellab::ResultsFile& file,
                              QString* error);

  // Reads the index; files missing from it are added, entries whose file is gone dropped.
  void load();
  const QVector<HistoryEntry>& entries() const { return entries_; }
  const HistoryEntry* find(const QString& id) const;
  const HistoryEntry* findByFile(const QString& path) const;
  QString directory() const { return dir_; }

  // Registers a file already written into the directory (a run of this window).
  HistoryEntry adopt(const QString& path, ResultsPtr file, const QString& origin);
  // Copies an opened results file into the history and registers it; the same results opened
  // again give the entry they already have.
  bool import(ResultsPtr file, const QString& origin, HistoryEntry* entry, QString* error);
  bool remove(const QString& id);

  // The results of an entry (cached; read from disk when needed).
  ResultsPtr results(const QString& id, QString* error);

  // Labels of the runs of an entry: "#12", or "#12 tpb=64" for each point of a sweep.
  static QStringList runLabels(const HistoryEntry& entry, const kernellab::ResultsFile& file);
  // The runs of the given entries, flattened in entry order; `primaryId`'s first run is primary.
  RunSelection selection(const QStringList& ids, const QString& primaryId, QString* error);

 signals:
  void changed();

 private:
  HistoryEntry describe(const QString& path, const kernellab::ResultsFile& file,
                        const QString& origin) const;
  void saveIndex() const;
  void remember(const QString& id, ResultsPtr file);

  QString dir_;
  QVector<HistoryEntry> entries_;
  QHash<QString, ResultsPtr> cache_;
  QStringList cacheOrder_;   // most recent last; a few entries stay in memory
  int nextNumber_ = 1;
};

}  // namespace kernellab::app
