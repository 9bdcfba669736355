// SPDX-License-Identifier: MIT
// AccessView: selectors, the request table, the diagram and the totals.
#include "access_view.h"

#include <QComboBox>
#include <QEventLoop>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "access_diagram.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"
#include "view_picture.h"

namespace kernellab::widgets {

namespace {

const QColor kWarnBackground(255, 225, 220);

QString addressText(const access::Request& q) {
  if (q.lanes.empty()) return QStringLiteral("-");
  QString s = QStringLiteral("%1[%2]").arg(QString::fromStdString(q.bufferName)).arg(q.lanes.front().element);
  if (q.lanes.size() < 2) return s;
  const int64_t stride = int64_t(q.lanes[1].address) - int64_t(q.lanes[0].address);
  for (size_t i = 1; i < q.lanes.size(); ++i)
    if (int64_t(q.lanes[i].address) - int64_t(q.lanes[i - 1].address) != stride)
      return s + QObject::tr(", irregular");
  return s + QObject::tr(", stride %1 B").arg(stride);
}

QString totalsText(const access::Totals& t) {
  QString s = QObject::tr("%1 global requests: %2 sectors for %3 ideal (%4 % efficiency), %5 lines for %6")
                  .arg(t.globalRequests).arg(t.sectors).arg(t.idealSectors)
                  .arg(100.0 * t.efficiency, 0, 'f', 1).arg(t.lines).arg(t.idealLines);
  if (t.sharedRequests > 0)
    s += QObject::tr("; %1 shared requests: %2 wavefronts for %3 ideal (%4)")
             .arg(t.sharedRequests).arg(t.wavefronts).arg(t.idealWavefronts)
             .arg(t.maxConflict <= 1 ? QObject::tr("conflict-free")
                                     : QObject::tr("worst %1-way conflict").arg(t.maxConflict));
  return s;
}

}  // namespace

AccessView::AccessView(QWidget* parent) : QWidget(parent) {
  auto* root = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Family:"), this));
  family_ = new QComboBox(this);
  for (const FamilyDescriptor* f : families())  // the families with an access tracer
    if (f->traceBlock)
      family_->addItem(QString::fromLatin1(f->family.id()), QString::fromLatin1(f->family.id()));
  controls->addWidget(family_);
  controls->addWidget(new QLabel(tr("Variant:"), this));
  variant_ = new QComboBox(this);
  controls->addWidget(variant_);
  kernelLabel_ = new QLabel(tr("Kernel:"), this);
  controls->addWidget(kernelLabel_);
  kernel_ = new QComboBox(this);
  controls->addWidget(kernel_);
  controls->addWidget(new QLabel(tr("Block x:"), this));
  blockX_ = new QSpinBox(this);
  controls->addWidget(blockX_);
  controls->addWidget(new QLabel(tr("y:"), this));
  blockY_ = new QSpinBox(this);
  controls->addWidget(blockY_);
  controls->addWidget(new QLabel(tr("Warp:"), this));
  warp_ = new QSpinBox(this);
  controls->addWidget(warp_);
  controls->addWidget(new QLabel(tr("Shared memory:"), this));
  banks_ = new QComboBox(this);
  banks_->addItem(tr("32 banks per warp (cc 2.0 and later)"), 9);
  banks_->addItem(tr("16 banks per half-warp (cc 1.x)"), 1);
  controls->addWidget(banks_);
  controls->addStretch(1);
  root->addLayout(controls);
  controlsRow_ = controls;

  description_ = new QLabel(this);
  description_->setWordWrap(true);
  root->addWidget(description_);
  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
  error_->hide();
  root->addWidget(error_);

  table_ = new QTableWidget(this);
  table_->setColumnCount(9);
  table_->setHorizontalHeaderLabels({tr("#"), tr("Phase"), tr("Access"), tr("Lanes"),
                                     tr("Addresses (lane 0)"), tr("Sectors (ideal)"),
                                     tr("Lines (ideal)"), tr("Efficiency"), tr("Shared banks")});
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setDefaultSectionSize(24);
  root->addWidget(table_, 2);

  diagram_ = new AccessDiagram(this);
  diagram_->setMinimumHeight(260);
  root->addWidget(diagram_, 3);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  root->addWidget(summary_);

  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &AccessView::jobDone);
  busyNote_.setSingleShot(true);
  busyNote_.setInterval(250);
  connect(&busyNote_, &QTimer::timeout, this, [this] {
    description_->setText(tr("<i>Computing the access model of block (%1, %2), warp %3: a large "
                             "problem makes its data first...</i>")
                              .arg(blockX_->value()).arg(blockY_->value()).arg(warp_->value()));
  });

  auto changed = [this] {
    recompute();
    emit selectionChanged(variant(), block(), warp());
  };
  connect(family_, &QComboBox::currentIndexChanged, this, [this] {
    setFamily(familyFromString(family_->currentData().toString().toStdString()).value_or(Family()));
  });
  connect(variant_, &QComboBox::currentIndexChanged, this, changed);
  connect(kernel_, &QComboBox::currentIndexChanged, this, [this] {
    recompute();
    emit kernelChanged(kernel());
  });
  connect(blockX_, &QSpinBox::valueChanged, this, changed);
  connect(blockY_, &QSpinBox::valueChanged, this, changed);
  connect(warp_, &QSpinBox::valueChanged, this, changed);
  connect(banks_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) {
    if (row >= 0 && row < int(report_.requests.size())) {
      const auto& q = report_.requests[size_t(row)];
      diagram_->setRequest(q, report_.memory, report_.buffers[size_t(q.buffer)].elementBytes);
    } else {
      diagram_->clear();
    }
  });
}

void AccessView::setRequest(const RunRequest& request) {
  request_ = request;
  haveRequest_ = true;
  fillChoosers();
  recompute();
}

void AccessView::setFamily(Family family) {
  if (haveRequest_ && family == request_.family) return;
  request_.family = family;
  haveRequest_ = true;
  {
    // Another family has another grid: start from its first block and warp.
    const QSignalBlocker b1(blockX_), b2(blockY_), b3(warp_);
    blockX_->setValue(0);
    blockY_->setValue(0);
    warp_->setValue(0);
  }
  fillChoosers();
  recompute();
  emit familyChanged(QString::fromLatin1(toString(family)));
}

void AccessView::setKernel(const QString& kernel) {
  const int i = kernel_->findData(kernel);
  if (i >= 0 && i != kernel_->currentIndex()) kernel_->setCurrentIndex(i);  // recomputes
}

// The family's traced variants (the GPU-only clustering engines have no tracer) and kernels.
void AccessView::fillChoosers() {
  const QString keepVariant = variant(), keepKernel = kernel();
  const QSignalBlocker b1(family_), b2(variant_), b3(kernel_);
  family_->setCurrentIndex(family_->findData(QString::fromLatin1(request_.family.id())));
  variant_->clear();
  for (const auto& v : describeVariants(request_.family))
    if (access::canTrace(request_.family, v.id))
      variant_->addItem(QString::fromStdString(v.title), QString::fromStdString(v.id));
  const int v = variant_->findData(keepVariant);
  variant_->setCurrentIndex(v >= 0 ? v : 0);
  kernel_->clear();
  for (const auto& k : access::tracedKernels(request_.family)) {
    kernel_->addItem(QString::fromStdString(k.id), QString::fromStdString(k.id));
    kernel_->setItemData(kernel_->count() - 1,
                         QString::fromStdString(k.name + ": " + k.what), Qt::ToolTipRole);
  }
  const int k = kernel_->findData(keepKernel);
  kernel_->setCurrentIndex(k >= 0 ? k : 0);
  kernel_->setVisible(kernel_->count() > 0);
  kernelLabel_->setVisible(kernel_->count() > 0);
}

void AccessView::setSelection(const QString& variant, QPoint block, int warp) {
  {
    const QSignalBlocker b1(variant_), b2(blockX_), b3(blockY_), b4(warp_);
    const int i = variant_->findData(variant);
    if (i >= 0) variant_->setCurrentIndex(i);
    blockX_->setMaximum(std::max(blockX_->maximum(), block.x()));
    blockY_->setMaximum(std::max(blockY_->maximum(), block.y()));
    warp_->setMaximum(std::max(warp_->maximum(), warp));
    blockX_->setValue(block.x());
    blockY_->setValue(block.y());
    warp_->setValue(warp);
  }
  recompute();
}

void AccessView::setComputeCapability(int major) {
  banks_->setCurrentIndex(major == 1 ? 1 : 0);
}

QString AccessView::variant() const { return variant_->currentData().toString(); }
QString AccessView::kernel() const { return kernel_->currentData().toString(); }
QPoint AccessView::block() const { return {blockX_->value(), blockY_->value()}; }
int AccessView::warp() const { return warp_->value(); }
QString AccessView::summaryText() const { return summary_->text(); }
QString AccessView::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void AccessView::selectRequest(int row) { table_->setCurrentCell(row, 0); }

void AccessView::recompute() {
  if (!haveRequest_ || variant().isEmpty()) return;
  access::AccessQuery q;
  q.request = request_;
  q.variant = variant().toStdString();
  q.kernel = kernel().toStdString();
  q.block = {blockX_->value(), blockY_->value()};
  q.warp = warp_->value();
  q.ccMajor = banks_->currentData().toInt();
  if (running_) {
    pending_ = q;  // only the newest selection matters once the running one is done
    return;
  }
  startJob(q);
}

void AccessView::startJob(const access::AccessQuery& q) {
  running_ = true;
  busyNote_.start();
  watcher_.setFuture(QtConcurrent::run([q] {
    Outcome o;
    try {
      o.report = access::analyze(q);
    } catch (const std::exception& e) {
      o.error = QString::fromStdString(e.what());
    }
    return o;
  }));
}

void AccessView::jobDone() {
  if (pending_) {
    // The selection changed while this one was computed: its result is stale.
    const access::AccessQuery next = *pending_;
    pending_.reset();
    startJob(next);
    return;
  }
  busyNote_.stop();
  running_ = false;
  const Outcome o = watcher_.result();
  if (!o.error.isEmpty()) {
    // Keep the last good report on screen; say what is wrong with this selection.
    selectWaste_ = false;
    error_->setText(o.error);
    error_->show();
    describeReport();  // the busy note may stand there
  } else {
    error_->hide();
    report_ = o.report;
    applyReport();
  }
  emit reportReady();
}

bool AccessView::waitForReport(int timeoutMs) {
  if (!running_) return true;
  QEventLoop loop;
  connect(this, &AccessView::reportReady, &loop, &QEventLoop::quit);
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
  return !running_;
}

void AccessView::describeReport() {
  if (report_.kernel.empty()) {
    description_->clear();  // nothing computed yet (the first selection failed)
    return;
  }
  description_->setText(tr("<b>%1</b> (%2): %3. Warp %4 of %5.")
                            .arg(QString::fromStdString(report_.variant),
                                 QString::fromStdString(report_.kernel),
                                 QString::fromStdString(report_.description).toHtmlEscaped())
                            .arg(report_.warp).arg(report_.warpsPerBlock));
}

void AccessView::applyReport() {
  {
    const QSignalBlocker b1(blockX_), b2(blockY_), b3(warp_);
    blockX_->setRange(0, report_.gridDim.x - 1);
    blockY_->setRange(0, report_.gridDim.y - 1);
    warp_->setRange(0, report_.warpsPerBlock - 1);
  }
  describeReport();
  fillTable();
  summary_->setText(tr("This warp: %1.\nWhole block: %2.")
                        .arg(totalsText(report_.warpTotals), totalsText(report_.blockTotals)));
  if (selectWaste_) {
    selectWaste_ = false;
    for (size_t i = 0; i < report_.requests.size(); ++i)
      if (report_.requests[i].sectors > report_.requests[i].idealSectors || report_.requests[i].conflictDegree > 1) {
        selectRequest(static_cast<int>(i));
        break;
      }
  }
}

void AccessView::fillTable() {
  const int keepRow = std::max(0, table_->currentRow());
  const QSignalBlocker block(table_);
  table_->clearContents();
  table_->setRowCount(int(report_.requests.size()));
  for (int i = 0; i < int(report_.requests.size()); ++i) {
    const auto& q = report_.requests[size_t(i)];
    const bool global = q.space == access::Space::Global;
    QStringList cells = {QString::number(i), QString::number(q.phase),
                         QStringLiteral("%1 %2").arg(access::toString(q.kind), access::toString(q.space)),
                         QString::number(q.lanes.size()), addressText(q)};
    bool bad = false;
    if (global) {
      cells << QStringLiteral("%1 (%2)").arg(q.sectors).arg(q.idealSectors)
            << QStringLiteral("%1 (%2)").arg(q.lines).arg(q.idealLines)
            << QStringLiteral("%1 %").arg(100.0 * q.efficiency, 0, 'f', 1) << QString();
      bad = q.sectors > q.idealSectors;
    } else {
      int used = 0;
      for (int w : q.bankWords) used += w > 0;
      cells << QString() << QString() << QString()
            << (q.conflictDegree <= 1 ? (used == 1 ? tr("1 bank, conflict-free")
                                                   : tr("%1 banks, conflict-free").arg(used))
                                      : tr("%1 bank(s), %2-way conflict").arg(used).arg(q.conflictDegree));
      bad = q.conflictDegree > 1;
    }
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == 0 || c == 1 || c == 3) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (bad) item->setBackground(kWarnBackground);
      table_->setItem(i, c, item);
    }
  }
  const int row = std::min(keepRow, table_->rowCount() - 1);
  table_->setCurrentCell(row, 0);
  if (row >= 0) {
    const auto& q = report_.requests[size_t(row)];
    diagram_->setRequest(q, report_.memory, report_.buffers[size_t(q.buffer)].elementBytes);
  } else {
    diagram_->clear();
  }
}

QImage AccessView::reportPicture() {
  waitForReport();
  // The request table's rows whole, not what its scroll area shows: the view grows for the grab
  // (up to 24 rows, a page's worth; the summary below counts them all).
  const int rows = std::min(table_->rowCount(), 24);
  const int rowsHeight = (rows > 0 ? table_->verticalHeader()->sectionPosition(rows - 1) + table_->rowHeight(rows - 1) : 0) +
                         table_->horizontalHeader()->height() + 2 * table_->frameWidth();
  const int extra = std::max(0, rowsHeight - table_->height());
  const QSize was = size();
  const int minimum = table_->minimumHeight();
  if (extra > 0) {
    table_->setMinimumHeight(rowsHeight);
    resize(was.width(), was.height() + extra);
  }
  const QImage image = grabWithoutControls(this, {controlsRow_});
  if (extra > 0) {
    table_->setMinimumHeight(minimum);
    resize(was);
  }
  return image;
}

}  // namespace kernellab::widgets
