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
class QScrollArea;

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

// A page's root: a frameless scroll area around its content, so a tall view scrolls instead of
// raising the window's minimum size (every tab counts towards it).
QScrollArea* makePageScrollArea(QWidget* content, QWidget* parent);

}  // namespace kernellab::app
