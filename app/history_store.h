// SPDX-License-Identifier: MIT
// Run history: every run (and every results file opened) kept as a results JSON file in the
// application data folder (large arrays in a packed side file, history_arrays.h), with a small
// index so the list loads without parsing every file. Several windows may share the folder: the
// index is changed under a lock file, always on its current contents, so no window's run is lost
// and run numbers stay unique. Files are written atomically (atomic_file.h).
#pragma once

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>

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
  // Writes a results file into `directory` under a new unique name (its large arrays into the
  // side file beside it); safe from any thread. Returns the path, or an empty string and the
  // reason.
  static QString writeRunFile(const QString& directory, const kernellab::ResultsFile& file,
                              QString* error);

  // Reads the index; files missing from it are added, entries whose file is gone dropped, the
  // `.part` files of killed writers removed. A file that fails validation is set aside into
  // quarantine/ (problem() says which and why).
  void load();
  const QVector<HistoryEntry>& entries() const { return entries_; }
  // Takes the index as it is on disk now (another window's runs added, removed ones dropped),
  // without reading any run file; emits changed() when the list differs.
  void refresh();
  const HistoryEntry* find(const QString& id) const;
  const HistoryEntry* findByFile(const QString& path) const;
  QString directory() const { return dir_; }

  // Registers a file already written into the directory (a run of this window).
  HistoryEntry adopt(const QString& path, ResultsPtr file, const QString& origin);
  // Copies an opened results file (validated: results_validation.h) into the history and
  // registers it; the same file (`sha1` of its bytes) opened again gives the entry it already has.
  bool import(ResultsPtr file, const QByteArray& sha1, const QString& origin, HistoryEntry* entry,
              QString* error);
  bool remove(const QString& id);

  // The results of an entry (cached; read from disk when needed). A file that no longer passes
  // validation is set aside into quarantine/ and dropped from the index (problem() says so).
  ResultsPtr results(const QString& id, QString* error);
  // Where files that failed validation are moved.
  QString quarantineDirectory() const;

  // Labels of the runs of an entry: "#12", or "#12 tpb=64" for each point of a sweep.
  static QStringList runLabels(const HistoryEntry& entry, const kernellab::ResultsFile& file);
  // The runs of the given entries, flattened in entry order; `primaryId`'s first run is primary.
  RunSelection selection(const QStringList& ids, const QString& primaryId, QString* error);

 signals:
  void changed();
  // Something the user should know about the history folder (a file set aside, leftovers removed).
  void problem(const QString& message);

 private:
  struct Index {
    QVector<HistoryEntry> entries;
    int nextNumber = 1;
  };
  HistoryEntry describe(const QString& path, const kernellab::ResultsFile& file,
                        const QString& origin) const;
  // Applies `change` to the index as it is on disk now, under the folder's lock, writes it back
  // and takes it as this store's list. Returns false when the index could not be written.
  bool updateIndex(const std::function<void(Index&)>& change);
  QByteArray readIndexBytes() const;
  Index readIndex(const QByteArray& bytes) const;
  QByteArray indexBytes(const Index& index) const;
  // Moves a file that failed validation (and its side file) into quarantine/; returns the message.
  QString quarantine(const QString& path, const QString& why);
  void remember(const QString& id, ResultsPtr file);

  QString dir_;
  QVector<HistoryEntry> entries_;
  QHash<QString, ResultsPtr> cache_;
  QStringList cacheOrder_;  // most recent last; a few entries stay in memory
};

}  // namespace kernellab::app
