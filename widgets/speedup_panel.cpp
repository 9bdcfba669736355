// SPDX-License-Identifier: MIT
// Speed-up and gain between two chosen entries.
#include "speedup_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMap>
#include <QSignalBlocker>
#include <algorithm>
#include <cmath>

namespace kernellab::widgets {

SpeedupResult computeSpeedup(double oldMs, double newMs) {
  SpeedupResult r;
  if (!(oldMs > 0) || !(newMs > 0) || !std::isfinite(oldMs) || !std::isfinite(newMs)) return r;
  r.valid = true;
  r.speedup = oldMs / newMs;
  r.gainPercent = (oldMs - newMs) / oldMs * 100.0;
  return r;
}

QString describeSpeedup(const SpeedupEntry& o, const SpeedupEntry& n) {
  const SpeedupResult r = computeSpeedup(o.ms, n.ms);
  if (!r.valid) return QObject::tr("choose two entries with a time");
  const QString verdict = r.speedup >= 1.0 ? QObject::tr("faster") : QObject::tr("slower");
  return QObject::tr("S = %1x, gain %2 %: %3 is %4 than %5")
      .arg(QString::number(r.speedup, 'f', r.speedup < 10 ? 3 : 1))
      .arg(QString::number(r.gainPercent, 'f', 1))
      .arg(n.label, verdict, o.label);
}

SpeedupPanel::SpeedupPanel(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 2, 4, 2);
  old_ = new QComboBox(this);
  new_ = new QComboBox(this);
  old_->setToolTip(tr("T_old: the reference time"));
  new_->setToolTip(tr("T_new: the time compared with it"));
  for (QComboBox* c : {old_, new_}) {
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(18);
  }
  result_ = new QLabel(this);
  result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  result_->setToolTip(tr("S = T_old / T_new; gain = (T_old - T_new) / T_old x 100"));
  row->addWidget(new QLabel(tr("Speed-up of"), this));
  row->addWidget(new_, 1);
  row->addWidget(new QLabel(tr("over"), this));
  row->addWidget(old_, 1);
  row->addWidget(result_, 2);
  connect(old_, &QComboBox::currentIndexChanged, this, &SpeedupPanel::update);
  connect(new_, &QComboBox::currentIndexChanged, this, &SpeedupPanel::update);
  connect(old_, &QComboBox::activated, this, [this] { userChose_ = true; });
  connect(new_, &QComboBox::activated, this, [this] { userChose_ = true; });
  update();
}

void SpeedupPanel::setEntries(const QVector<SpeedupEntry>& entries) {
  const QString oldLabel = old_->currentText(), newLabel = new_->currentText();
  entries_ = entries;
  {
    const QSignalBlocker b1(old_), b2(new_);
    old_->clear();
    new_->clear();
    for (const auto& e : entries_) {
      const QString text = e.label;
      old_->addItem(text);
      new_->addItem(text);
    }
  }
  // Keep a pair the user picked; otherwise pick the default for the new entries.
  const bool kept = userChose_ && restore(oldLabel, newLabel);
  if (!kept) {
    // Default: like with like. Inside the group with the most measured entries (published ones
    // when none was measured), the slowest against the fastest; ceilings are not variants.
    const bool anyMeasured = std::any_of(entries_.begin(), entries_.end(),
                                         [](const SpeedupEntry& e) { return !e.published && e.ms > 0; });
    auto eligible = [&](const SpeedupEntry& e) { return !(anyMeasured && e.published) && e.ms > 0 && !e.ceiling; };
    QMap<QString, int> sizes;
    QStringList order;
    for (const auto& e : entries_)
      if (eligible(e)) {
        if (!sizes.contains(e.group)) order << e.group;
        ++sizes[e.group];
      }
    QString group = order.value(0);
    for (const QString& g : order)
      if (sizes[g] > sizes[group]) group = g;
    int slow = -1, fast = -1;
    for (int i = 0; i < entries_.size(); ++i) {
      if (!eligible(entries_[i]) || entries_[i].group != group) continue;
      if (slow < 0 || entries_[i].ms > entries_[slow].ms) slow = i;
      if (fast < 0 || entries_[i].ms < entries_[fast].ms) fast = i;
    }
    const QSignalBlocker b1(old_), b2(new_);
    old_->setCurrentIndex(slow);
    new_->setCurrentIndex(fast);
  }
  update();
}

bool SpeedupPanel::choose(const QString& oldLabel, const QString& newLabel) {
  if (!restore(oldLabel, newLabel)) return false;
  userChose_ = true;
  return true;
}

bool SpeedupPanel::restore(const QString& oldLabel, const QString& newLabel) {
  const int o = old_->findText(oldLabel), n = new_->findText(newLabel);
  if (o < 0 || n < 0) return false;
  const QSignalBlocker b1(old_), b2(new_);
  old_->setCurrentIndex(o);
  new_->setCurrentIndex(n);
  update();
  return true;
}

QString SpeedupPanel::resultText() const { return result_->text(); }
QString SpeedupPanel::oldLabel() const { return old_->currentText(); }
QString SpeedupPanel::newLabel() const { return new_->currentText(); }

void SpeedupPanel::update() {
  const int o = old_->currentIndex(), n = new_->currentIndex();
  QString text;
  if (o < 0 || n < 0 || o >= entries_.size() || n >= entries_.size()) {
    text = entries_.isEmpty() ? tr("no timed variants shown") : tr("choose two entries");
  } else {
    const SpeedupResult r = computeSpeedup(entries_[o].ms, entries_[n].ms);
    text = r.valid ? tr("S = %1x    gain %2 %")
                         .arg(QString::number(r.speedup, 'f', r.speedup < 10 ? 3 : 1))
                         .arg(QString::number(r.gainPercent, 'f', 1))
                   : tr("choose two entries with a time");
    result_->setToolTip(describeSpeedup(entries_[o], entries_[n]) +
                        tr("\nS = T_old / T_new; gain = (T_old - T_new) / T_old x 100"));
  }
  result_->setText(text);
  setEnabled(!entries_.isEmpty());
  emit changed(text);
}

}  // namespace kernellab::widgets
