// SPDX-License-Identifier: MIT
// The strip at the top of a view page whose selected run does not fit it: what to select or do,
// with buttons that do it (a preset in the experiment panel, a results file to open).
#pragma once

#include <QFrame>
#include <QList>
#include <QVector>
#include <functional>

class QHBoxLayout;
class QLabel;
class QPushButton;

namespace kernellab::app {

class PageHint : public QFrame {
  Q_OBJECT
 public:
  struct Action {
    QString text;
    QString toolTip;
    std::function<void()> run;
  };

  explicit PageHint(QWidget* parent = nullptr);

  void showHint(const QString& text, const QVector<Action>& actions = {});
  void clearHint();  // hides the strip
  QString text() const;
  QList<QPushButton*> buttons() const { return buttons_; }

 private:
  QLabel* text_ = nullptr;
  QHBoxLayout* buttonRow_ = nullptr;
  QList<QPushButton*> buttons_;
};

// A page's root: `content`, parented, with a token minimum size. Every tab's minimum raises the
// window's; a page squeezes below its layout's minimum instead. (A scroll area does not serve:
// with word-wrapped labels it lays the page out at its preferred height, and the schedule
// model's scrubber ended below the fold of a 1500 x 950 window.)
QWidget* makePageRoot(QWidget* content, QWidget* parent);

}  // namespace kernellab::app
