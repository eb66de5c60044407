#include "callimportwindow.h"

#include "callinspector.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "replaybar.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QScreen>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <limits>

CallImportWindow::CallImportWindow(const QString& path, const ToolCallList& calls, const QString& summary,
    const QUrl& serverUrl, bool tokenRequired, QWidget* parent)
    : QMainWindow(parent)
    // Room for every call read (the reader's limits bound them), however large.
    , m_model(new CallLogModel(int(qMax<qsizetype>(1, calls.size())), this))
    , m_callLog(new CallLogView(m_model))
    , m_inspector(new CallInspector)
    , m_summary(new QLabel)
{
    setAttribute(Qt::WA_DeleteOnClose);
    setObjectName(QStringLiteral("callImportWindow"));
    setWindowTitle(tr("%1 — read-only").arg(QFileInfo(path).fileName()));
    m_callLog->setLive(false);
    m_model->setByteBudget(std::numeric_limits<qint64>::max() / 2);
    for (const ToolCall& call : calls)
        m_calls.insert(call.id, call);

    m_summary->setObjectName(QStringLiteral("importSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setText(
        tr("Read-only: %1 from %2. Nothing here is sent to a server.").arg(summary, QDir::toNativeSeparators(path)));

    m_callLog->setObjectName(QStringLiteral("importCallLog"));
    m_inspector->setObjectName(QStringLiteral("importInspector"));
    m_inspector->setServer(serverUrl, tokenRequired);
    // Read-only: nothing from a file is sent again (only copied).
    m_inspector->replayBar()->hide();
    QTableView* table = m_callLog->tableView();
    table->addActions(m_inspector->copyActions()); // on the row's context menu
    connect(m_callLog, &CallLogView::currentCallChanged, this, &CallImportWindow::onCurrentCallChanged);

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->setChildrenCollapsible(false);
    splitter->setHandleWidth(10);
    splitter->addWidget(m_callLog);
    splitter->addWidget(m_inspector);
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);
    setCentralWidget(central);
    // Its size fits the screen it opens on (a 1366x768 laptop has no room for 1280x760 and a frame).
    QSize size(1280, 760);
    if (const QScreen* screen = parent ? parent->screen() : this->screen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.9);
    resize(size);
    splitter->setSizes({size.width() * 55 / 100, size.width() * 45 / 100});

    // Closed as other document windows are: Ctrl+W, and Escape (nothing in it to lose).
    auto* closeAction = new QAction(tr("Close"), this);
    closeAction->setObjectName(QStringLiteral("closeImportAction"));
    closeAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence(Qt::Key_Escape)});
    connect(closeAction, &QAction::triggered, this, &QWidget::close);
    addAction(closeAction);

    m_model->applyUpdates(calls);
}

void CallImportWindow::onCurrentCallChanged(const ToolCall& call)
{
    // The row holds a preview; the file's whole call is here.
    m_inspector->setCall(m_calls.value(call.id, call));
}
