// SPDX-License-Identifier: MIT
// Pictures of views for reports: what the view shows, without the controls a reader cannot use
// on paper (combo boxes, buttons, sliders and their labels).
#pragma once

#include <QImage>
#include <QList>

class QLayout;
class QWidget;

namespace kernellab::widgets {

// Hides every widget of `controlRows` (except those in `keep`) and `alsoHidden`, lays `view` out
// without them, grabs it (OpenGL point clouds drawn in), and shows them again.
QImage grabWithoutControls(QWidget* view, const QList<QLayout*>& controlRows,
                           const QList<QWidget*>& alsoHidden = {}, const QList<QWidget*>& keep = {});

}  // namespace kernellab::widgets
