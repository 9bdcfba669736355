// SPDX-License-Identifier: MIT
// The hint strip of a view page.
#include "page_hint.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace kernellab::app {

PageHint::PageHint(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("pageHint"));
  setStyleSheet(QStringLiteral("QFrame#pageHint { background:#eef4fb; border:1px solid #b6cfe8; border-radius:3px; }"
                               " QFrame#pageHint QLabel { color:#1d3b5a; }"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(10, 6, 10, 6);
  text_ = new QLabel(this);
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(text_);
  buttonRow_ = new QHBoxLayout;
  buttonRow_->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(buttonRow_);
  hide();
}

void PageHint::showHint(const QString& text, const QVector<Action>& actions) {
  text_->setText(text);
  for (QPushButton* b : buttons_) {
    b->hide();
    b->deleteLater();  // a button may be the one whose click led here
  }
  buttons_.clear();
  while (QLayoutItem* item = buttonRow_->takeAt(0)) delete item;
  for (const Action& a : actions) {
    auto* b = new QPushButton(a.text, this);
    b->setToolTip(a.toolTip);
    connect(b, &QPushButton::clicked, this, [run = a.run] {
      if (run) run();
    });
    buttonRow_->addWidget(b);
    buttons_ << b;
  }
  buttonRow_->addStretch(1);
  show();
}

void PageHint::clearHint() {
  text_->clear();
  hide();
}

QString PageHint::text() const { return text_->text(); }

QWidget* makePageRoot(QWidget* content, QWidget* parent) {
  content->setParent(parent);
  content->setMinimumSize(1, 1);  // kept by the layout (QLayout::SetDefaultConstraint)
  return content;
}

}  // namespace kernellab::app
