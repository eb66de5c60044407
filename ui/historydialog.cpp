#include "historydialog.h"

#include "callcolumns.h"
#include "callexportdialog.h"
#include "callexportjob.h"
#include "callinspector.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "datedtimeproxy.h"
#include "historymodel.h"
#include "modelroles.h"
#include "operatorinterface.h"
#include "statusfilterbox.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <utility>

HistoryDialog::HistoryDialog(OperatorInterface* backend, QWidget* parent)
    : QDialog(parent)
    , m_backend(backend)
    , m_model(new HistoryModel(this))
    , m_searchEdit(new QLineEdit)
    , m_statusFilter(new StatusFilterBox)
    , m_searchButton(new QPushButton(tr("Search")))
    , m_newestButton(new QPushButton(tr("Newest")))
    , m_olderButton(new QPushButton(tr("Older")))
    , m_exportButton(new QPushButton(tr("Export…")))
    , m_summary(new QLabel)
    , m_table(new QTableView)
    , m_inspector(new CallInspector)
{
    setWindowTitle(tr("History"));
    setSizeGripEnabled(true);

    m_searchEdit->setObjectName(QStringLiteral("historySearch"));
    m_searchEdit->setPlaceholderText(tr("Search: tool, client, route, status, session, error, arguments…"));
    m_searchEdit->setClearButtonEnabled(true);
    m_searchEdit->setToolTip(tr("Finds calls that contain every word (case-insensitive); tool:NAME and "
                                "client:NAME ask for that tool or client exactly (quote a name with spaces: "
                                "client:\"Claude Desktop\")"));
    m_statusFilter->setObjectName(QStringLiteral("historyStatusFilter"));
    m_searchButton->setObjectName(QStringLiteral("historySearchButton"));
    m_searchButton->setDefault(true);
    m_newestButton->setObjectName(QStringLiteral("historyNewestButton"));
    m_newestButton->setToolTip(tr("Back to the newest matching calls"));
    m_olderButton->setObjectName(QStringLiteral("historyOlderButton"));
    m_olderButton->setToolTip(tr("The next %1 older matching calls").arg(PageSize));
    m_summary->setObjectName(QStringLiteral("historySummary"));
    m_exportButton->setObjectName(QStringLiteral("historyExportButton"));
    m_exportButton->setToolTip(tr("Save every call this search matches, whole, as NDJSON or as HAR"));
    connect(m_exportButton, &QPushButton::clicked, this, [this] {
        const QString path = CallExportDialog::askFileName(this, tr("Export the search"), QStringLiteral("history"));
        if (!path.isEmpty())
            exportResults(path);
    });
    m_inspector->setServer(m_backend->serverUrl(), m_backend->requiresToken());

    connect(m_searchEdit, &QLineEdit::returnPressed, this, &HistoryDialog::search);
    connect(m_searchButton, &QPushButton::clicked, this, &HistoryDialog::search);
    connect(m_newestButton, &QPushButton::clicked, this, &HistoryDialog::search);
    connect(m_olderButton, &QPushButton::clicked, this, &HistoryDialog::showOlder);
    connect(m_statusFilter, &StatusFilterBox::statusesChanged, this, &HistoryDialog::search);
    connect(m_backend, &OperatorInterface::historyLoaded, this, &HistoryDialog::onHistoryLoaded);

    m_table->setObjectName(QStringLiteral("historyTable"));
    // History spans days, so its time column carries the date too.
    auto* dated = new DatedTimeProxy(this);
    dated->setSourceModel(m_model);
    m_table->setModel(dated);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setShowGrid(false);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    QHeaderView* columns = m_table->horizontalHeader();
    columns->setHighlightSections(false);
    columns->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    // The log's columns, in the log's order; history spans days, so its time carries the date.
    CallLogView::setInitialColumns(m_table, QLatin1String("0000-00-00 00:00:00.000"));
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &HistoryDialog::onCurrentRowChanged);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_table->addActions(m_inspector->copyActions());

    auto* searchRow = new QHBoxLayout;
    searchRow->addWidget(m_searchEdit, 1);
    searchRow->addWidget(m_statusFilter);
    searchRow->addWidget(m_searchButton);

    auto* pagingRow = new QHBoxLayout;
    pagingRow->addWidget(m_summary, 1);
    pagingRow->addWidget(m_newestButton);
    pagingRow->addWidget(m_olderButton);
    pagingRow->addWidget(m_exportButton);

    auto* listPane = new QWidget;
    auto* listLayout = new QVBoxLayout(listPane);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->addWidget(m_table, 1);
    listLayout->addLayout(pagingRow);

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->setChildrenCollapsible(false);
    splitter->setHandleWidth(10);
    splitter->addWidget(listPane);
    splitter->addWidget(m_inspector);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(searchRow);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);

    resize(1200, 700);
    search();
}

void HistoryDialog::search()
{
    m_selectCallId = 0;
    // The words and statuses as the log's filter takes them (CallSearch).
    const CallSearch typed = CallSearch::fromText(m_searchEdit->text());
    m_query.search.words = typed.words;
    m_query.search.tools = typed.tools;
    m_query.search.clients = typed.clients;
    m_query.search.statuses = m_statusFilter->statuses();
    m_page = 0;
    runQuery(0);
}

void HistoryDialog::showFromCall(qint64 callId)
{
    m_searchEdit->clear();
    m_statusFilter->setStatus(std::nullopt);
    m_query = HistoryQuery();
    m_page = 0;
    m_selectCallId = callId;
    runQuery(callId + 1);
}

void HistoryDialog::showOlder()
{
    if (!m_model->hasMore())
        return;
    ++m_page;
    runQuery(m_model->oldestId());
}

CallExportJob* HistoryDialog::exportResults(const QString& path)
{
    auto* job
        = new CallExportJob(m_backend, path, CallExportWriter::formatForFileName(path), m_backend->serverUrl(), this);
    CallExportDialog::watch(this, job);
    connect(job, &CallExportJob::finished, m_summary, [this](bool ok, const QString& message) {
        if (ok)
            m_summary->setText(message);
    });
    // The search as it was last run: its words and status, every page.
    job->startWithQuery(m_query);
    return job;
}

void HistoryDialog::runQuery(qint64 beforeId)
{
    m_query.beforeId = beforeId;
    m_query.limit = PageSize;
    m_query.bodyPreviewBytes = CallLogModel::PreviewBytes;
    m_pendingRequest = m_backend->queryHistory(m_query);
    updateSummary();
}

void HistoryDialog::onHistoryLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore)
{
    if (requestId != 0 && requestId == m_wholeCallRequest) {
        onWholeCallLoaded(calls);
        return;
    }
    // The main window's start-up load and superseded searches answer on the same signal.
    if (requestId != m_pendingRequest)
        return;
    m_pendingRequest = 0;
    m_model->setResults(calls, hasMore);
    if (m_model->rowCount() > 0)
        m_table->scrollToTop();
    if (const qint64 wanted = std::exchange(m_selectCallId, 0); wanted != 0) {
        for (int row = 0; row < m_model->rowCount(); ++row) {
            if (m_model->callAt(row).id == wanted) {
                m_table->setCurrentIndex(m_model->index(row, 0));
                break;
            }
        }
    }
    updateSummary();
}

void HistoryDialog::onCurrentRowChanged()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    const ToolCall& call = m_model->callAt(current.row());
    if (!call.hasBodyPreviews()) {
        m_wholeCallRequest = 0;
        m_wholeCallId = 0;
        m_inspector->setCall(call);
        return;
    }
    m_inspector->setCallPreview(call,
        CallInspector::previewNote(CallLogModel::PreviewBytes, call.wholeRequestBytes, call.wholeResponseBytes, true));
    HistoryQuery whole;
    whole.callId = call.id;
    whole.limit = 1;
    m_wholeCallId = call.id;
    m_wholeCallRequest = m_backend->queryHistory(whole);
}

void HistoryDialog::onWholeCallLoaded(const ToolCallList& calls)
{
    m_wholeCallRequest = 0;
    if (!m_inspector->hasCall() || m_inspector->call().id != m_wholeCallId)
        return; // the selection moved on
    if (calls.isEmpty() || calls.first().id != m_wholeCallId) {
        m_inspector->setPreviewNote(tr("History no longer holds this call (it keeps the newest calls only); "
                                       "this is the part the search found."));
        return;
    }
    m_inspector->setCall(calls.first());
}

void HistoryDialog::updateSummary()
{
    m_olderButton->setEnabled(m_pendingRequest == 0 && m_model->hasMore());
    m_newestButton->setEnabled(m_pendingRequest == 0);
    if (m_pendingRequest != 0) {
        m_summary->setText(tr("Searching…"));
        return;
    }
    const int count = m_model->rowCount();
    if (count == 0) {
        m_summary->setText(m_page == 0 ? tr("No stored calls match.") : tr("No older calls match."));
        return;
    }
    const int first = m_page * PageSize + 1;
    const QString range = count == 1 ? tr("Call %1").arg(first) : tr("Calls %1–%2").arg(first).arg(first + count - 1);
    m_summary->setText(range + (m_model->hasMore() ? tr(", newest first; older ones follow") : tr(", newest first")));
}
