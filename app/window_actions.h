// SPDX-License-Identifier: MIT
// Menus, toolbar and keyboard shortcuts of the window.
#pragma once

#include <QList>

class QAction;
class QDockWidget;

namespace kernellab::app {

class MainWindow;

struct WindowActions {
  QAction* open = nullptr;
  QAction* openRequest = nullptr;
  QAction* saveRequest = nullptr;
  QAction* exportChart = nullptr;
  QAction* exportReport = nullptr;
  QAction* quit = nullptr;
  QAction* run = nullptr;
  QAction* cancel = nullptr;
  QAction* live = nullptr;
  QAction* targets = nullptr;
  QAction* resetLayout = nullptr;
};

// Builds the menus and the toolbar of `window` and connects them to its slots.
WindowActions* createWindowActions(MainWindow* window, const QList<QDockWidget*>& docks);

}  // namespace kernellab::app
