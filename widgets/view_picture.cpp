// SPDX-License-Identifier: MIT
// Report pictures without controls.
#include "view_picture.h"

#include <QLayout>
#include <QWidget>

#include "point_cloud_view.h"

namespace kernellab::widgets {

QImage grabWithoutControls(QWidget* view, const QList<QLayout*>& controlRows, const QList<QWidget*>& alsoHidden,
                           const QList<QWidget*>& keep) {
  QList<QWidget*> hidden;
  auto hide = [&](QWidget* w) {
    if (!w || keep.contains(w) || w->isHidden()) return;
    w->hide();
    hidden << w;
  };
  for (QLayout* row : controlRows)
    for (int i = 0; row && i < row->count(); ++i) hide(row->itemAt(i)->widget());
  for (QWidget* w : alsoHidden) hide(w);
  if (view->layout()) view->layout()->activate();
  const QImage image = PointCloudView::grabWithClouds(view);
  for (QWidget* w : hidden) w->show();
  if (view->layout()) view->layout()->activate();
  return image;
}

}  // namespace kernellab::widgets
