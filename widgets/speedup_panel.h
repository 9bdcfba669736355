// SPDX-License-Identifier: MIT
// Speed-up S = T_old / T_new and gain % = (T_old - T_new) / T_old * 100 between any two timed
// entries (variants of any shown run, or published figures).
#pragma once

#include <QString>
#include <QVector>
#include <QWidget>

class QComboBox;
class QLabel;

namespace kernellab::widgets {

struct SpeedupEntry {
  QString label;          // "Padded · TPB 256 (#3)"
  double ms = 0;          // time per run of the variant
  bool published = false;
  QString group;          // entries of one group compare like with like (same family, problem,
                          // launch and device): the default pair is taken inside one group
  bool ceiling = false;   // a ceiling (the copy kernel), never the default "new" of a pair
};

struct SpeedupResult {
  bool valid = false;     // both times positive and finite
  double speedup = 0;     // T_old / T_new: > 1 means the new one is faster
  double gainPercent = 0; // (T_old - T_new) / T_old * 100: the share of the old time saved
};

SpeedupResult computeSpeedup(double oldMs, double newMs);
// "S = 1.15x, gain 12.7 %: Coalesced + shared is faster than Coalesced + global"
QString describeSpeedup(const SpeedupEntry& oldEntry, const SpeedupEntry& newEntry);

class SpeedupPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SpeedupPanel(QWidget* parent = nullptr);

  // Keeps the chosen pair when both labels are still there; otherwise, inside the group with the
  // most measured entries, old = slowest and new = fastest (ceilings left out).
  void setEntries(const QVector<SpeedupEntry>& entries);
  const QVector<SpeedupEntry>& entries() const { return entries_; }
  bool choose(const QString& oldLabel, const QString& newLabel);
  QString resultText() const;
  QString oldLabel() const;
  QString newLabel() const;

 signals:
  void changed(const QString& text);

 private:
  void update();
  bool restore(const QString& oldLabel, const QString& newLabel);

  QVector<SpeedupEntry> entries_;
  QComboBox* old_ = nullptr;
  QComboBox* new_ = nullptr;
  QLabel* result_ = nullptr;
  bool userChose_ = false;  // a pair picked by hand survives new runs
};

}  // namespace kernellab::widgets
