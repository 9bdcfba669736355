// SPDX-License-Identifier: MIT
// The message strip.
#include "message_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace kernellab::widgets {

MessageBanner::MessageBanner(QWidget* parent) : QFrame(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(10, 4, 4, 4);
  text_ = new QLabel(this);
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("\u00d7"));
  close->setAutoRaise(true);
  close->setToolTip(tr("Dismiss"));
  row->addWidget(text_, 1);
  row->addWidget(close);
  connect(close, &QToolButton::clicked, this, &MessageBanner::clear);
  hide();
}

void MessageBanner::showMessage(const QString& text, Level level) {
  level_ = level;
  text_->setText(text);
  const char* style = level == Level::Error   ? "background:#fdecea; border:1px solid #f5c2bd; color:#611a15;"
                      : level == Level::Warning ? "background:#fff4e5; border:1px solid #ffd8a8; color:#663c00;"
                                                : "background:#e8f4fd; border:1px solid #b6dcfb; color:#0d3c61;";
  setStyleSheet(QStringLiteral("QFrame { %1 border-radius: 3px; }").arg(QLatin1String(style)));
  show();
}

void MessageBanner::clear() {
  text_->clear();
  hide();
}

QString MessageBanner::text() const { return text_->text(); }

}  // namespace kernellab::widgets
