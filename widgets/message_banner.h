// SPDX-License-Identifier: MIT
// A one-line message strip above the views (instead of modal dialogs): bad input, files that do
// not open, runs that fail. It stays until closed or replaced.
#pragma once

#include <QFrame>

class QLabel;

namespace kernellab::widgets {

class MessageBanner : public QFrame {
  Q_OBJECT
 public:
  enum class Level { Info, Warning, Error };
  explicit MessageBanner(QWidget* parent = nullptr);

  void showMessage(const QString& text, Level level);
  void clear();
  QString text() const;
  Level level() const { return level_; }

 private:
  QLabel* text_ = nullptr;
  Level level_ = Level::Info;
};

}  // namespace kernellab::widgets
