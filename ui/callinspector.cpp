#include "callinspector.h"

#include "boundedjson.h"
#include "callcolumns.h"
#include "callenvelope.h"
#include "callsteps.h"
#include "curlcommand.h"
#include "decisiontext.h"
#include "fixedfont.h"
#include "jsonhighlighter.h"
#include "replaybar.h"
#include "statuscolours.h"

#include <QAction>
#include <QClipboard>
#include <QDateTime>
#include <QEvent>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QGuiApplication>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPromise>
#include <QPushButton>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextCursor>
#include <QThreadPool>
#include <QTimeZone>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <nlohmann/json.hpp>

namespace {

QLabel* selectableLabel(const QString& objectName)
{
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    label->setTextFormat(Qt::PlainText);
    // Level with its caption when a neighbour in the row wraps to more lines.
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

QLabel* captionLabel(const QString& text)
{
    auto* label = new QLabel(text);
    label->setForegroundRole(QPalette::PlaceholderText);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// One formatting thread for every inspector: selecting call after call queues (and cancels) work
// there instead of taking every core from the server.
QThreadPool* formattingPool()
{
    static QThreadPool* pool = [] {
        auto* created = new QThreadPool;
        created->setMaxThreadCount(1);
        created->setObjectName(QStringLiteral("inspector formatting"));
        return created;
    }();
    return pool;
}

} // namespace

CallInspector::CallInspector(QWidget* parent)
    : QWidget(parent)
{
    m_stack = new QStackedWidget;

    auto* placeholder = new QLabel(tr("Select a call to inspect its arguments, response and timing."));
    placeholder->setObjectName(QStringLiteral("inspectorPlaceholder"));
    placeholder->setAlignment(Qt::AlignCenter);
    placeholder->setWordWrap(true);
    placeholder->setForegroundRole(QPalette::PlaceholderText);
    m_stack->addWidget(placeholder);

    auto* details = new QWidget;
    auto* detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);

    m_toolLabel = selectableLabel(QStringLiteral("toolLabel"));
    QFont toolFont = m_toolLabel->font();
    toolFont.setPointSizeF(toolFont.pointSizeF() * 1.3);
    toolFont.setBold(true);
    m_toolLabel->setFont(toolFont);
    m_statusLabel = new QLabel;
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(m_toolLabel);
    titleRow->addSpacing(8);
    titleRow->addWidget(m_statusLabel);
    titleRow->addStretch(1);
    detailsLayout->addLayout(titleRow);
    // What the status means, in a sentence: "timed out" or "denied" alone does not say by whom.
    m_statusMeaningLabel = new QLabel;
    m_statusMeaningLabel->setObjectName(QStringLiteral("statusMeaningLabel"));
    m_statusMeaningLabel->setWordWrap(true);
    m_statusMeaningLabel->setForegroundRole(QPalette::PlaceholderText);
    detailsLayout->addWidget(m_statusMeaningLabel);

    // Two label/value pairs per row keeps the header short, leaving the height to the JSON.
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    m_routeLabel = selectableLabel(QStringLiteral("routeLabel"));
    m_clientLabel = selectableLabel(QStringLiteral("clientLabel"));
    m_sessionLabel = selectableLabel(QStringLiteral("sessionLabel"));
    // A session id is one long word (43 characters from some SDKs): shown as far as there is room,
    // whole in its tooltip, rather than widening the inspector and squeezing the log at every click.
    m_sessionLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_startedLabel = selectableLabel(QStringLiteral("startedLabel"));
    m_durationLabel = selectableLabel(QStringLiteral("durationLabel"));
    // "waited 10.53 s, ran 30.0 ms" (a call that waited for a person) wraps rather than widening the
    // inspector past its area.
    m_durationLabel->setWordWrap(true);
    grid->addWidget(captionLabel(tr("Client")), 0, 0);
    grid->addWidget(m_clientLabel, 0, 1);
    grid->addWidget(captionLabel(tr("Route")), 0, 2);
    grid->addWidget(m_routeLabel, 0, 3);
    grid->addWidget(captionLabel(tr("Started")), 1, 0);
    grid->addWidget(m_startedLabel, 1, 1);
    grid->addWidget(captionLabel(tr("Duration")), 1, 2);
    grid->addWidget(m_durationLabel, 1, 3);
    m_sessionCaption = captionLabel(tr("Session"));
    grid->addWidget(m_sessionCaption, 2, 0);
    grid->addWidget(m_sessionLabel, 2, 1, 1, 3);
    // A 2026-07-28 call has no session: the revision it named takes the session's line, and the trace
    // it named (W3C traceparent) has a line of its own.
    m_protocolCaption = captionLabel(tr("Protocol"));
    m_protocolLabel = selectableLabel(QStringLiteral("protocolLabel"));
    m_protocolLabel->setWordWrap(true);
    grid->addWidget(m_protocolCaption, 3, 0);
    grid->addWidget(m_protocolLabel, 3, 1, 1, 3);
    m_traceCaption = captionLabel(tr("Trace"));
    m_traceLabel = selectableLabel(QStringLiteral("traceLabel"));
    m_traceLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    grid->addWidget(m_traceCaption, 4, 0);
    grid->addWidget(m_traceLabel, 4, 1, 1, 3);
    // The task that carries the call (the Tasks extension): its id and how it stands.
    m_taskCaption = captionLabel(tr("Task"));
    m_taskLabel = selectableLabel(QStringLiteral("taskLabel"));
    m_taskLabel->setWordWrap(true);
    grid->addWidget(m_taskCaption, 5, 0);
    grid->addWidget(m_taskLabel, 5, 1, 1, 3);
    // Its input_required rounds: what it asked the client's user, and which call a retry answers
    // (a link that selects that call).
    m_inputCaption = captionLabel(tr("Input"));
    m_inputLabel = new QLabel;
    m_inputLabel->setObjectName(QStringLiteral("inputLabel"));
    m_inputLabel->setTextFormat(Qt::RichText);
    m_inputLabel->setWordWrap(true);
    m_inputLabel->setTextInteractionFlags(
        Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_inputLabel, &QLabel::linkActivated, this, [this](const QString& link) {
        bool ok = false;
        const qint64 id = link.section(QLatin1Char(':'), 1).toLongLong(&ok);
        if (ok && id > 0)
            Q_EMIT showCallRequested(id);
    });
    // Neither widens the inspector: a task id is one long word, and so can a client's input key be.
    for (QLabel* label : {m_taskLabel, m_inputLabel}) {
        QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        policy.setHeightForWidth(true);
        label->setSizePolicy(policy);
    }
    grid->addWidget(m_inputCaption, 6, 0);
    grid->addWidget(m_inputLabel, 6, 1, 1, 3);
    m_errorCaption = captionLabel(tr("Error"));
    m_errorLabel = selectableLabel(QStringLiteral("errorLabel"));
    m_errorLabel->setWordWrap(true);
    grid->addWidget(m_errorCaption, 7, 0);
    grid->addWidget(m_errorLabel, 7, 1, 1, 3);
    // Who decided about the call (a question's answer, or the grant that let it run unasked).
    m_decisionCaption = captionLabel(tr("Decision"));
    m_decisionLabel = selectableLabel(QStringLiteral("decisionLabel"));
    m_decisionLabel->setWordWrap(true);
    grid->addWidget(m_decisionCaption, 8, 0);
    grid->addWidget(m_decisionLabel, 8, 1, 1, 3);
    grid->setColumnMinimumWidth(1, 120);
    grid->setColumnStretch(3, 1);
    detailsLayout->addLayout(grid);
    detailsLayout->addSpacing(4);

    m_previewNote = new QLabel;
    m_previewNote->setObjectName(QStringLiteral("previewNote"));
    m_previewNote->setWordWrap(true);
    m_previewNote->setTextFormat(Qt::RichText);
    m_previewNote->setStyleSheet(
        QStringLiteral("QLabel { background: rgba(179, 107, 0, 40); border: 1px solid #b36b00; "
                       "border-radius: 4px; padding: 3px 6px; }"));
    m_previewNote->hide();
    connect(m_previewNote, &QLabel::linkActivated, this, [this] {
        if (m_hasCall)
            Q_EMIT fullCallRequested(m_call.id);
    });
    detailsLayout->addWidget(m_previewNote);
    // Send the call again, as it was or edited; a replay links to its original.
    m_replayBar = new ReplayBar;
    m_replayBar->setObjectName(QStringLiteral("replayBar"));
    detailsLayout->addWidget(m_replayBar);

    // The developer's copy actions as buttons, reachable with Tab; the same actions serve the menus.
    createCopyActions();
    auto* copyRow = new QHBoxLayout;
    copyRow->setObjectName(QStringLiteral("copyRow"));
    m_copyButton = new QPushButton(tr("Copy"));
    m_copyButton->setObjectName(QStringLiteral("copyButton"));
    m_copyButton->setToolTip(tr("Copy the arguments, the response or the request as JSON"));
    auto* copyMenu = new QMenu(m_copyButton);
    copyMenu->setObjectName(QStringLiteral("copyMenu"));
    copyMenu->addActions({m_copyArgumentsAction, m_copyResponseAction, m_copyRequestAction});
    m_copyButton->setMenu(copyMenu);
    m_curlButton = new QPushButton(tr("Copy as curl"));
    m_curlButton->setObjectName(QStringLiteral("copyCurlButton"));
    m_curlButton->setToolTip(m_copyCurlAction->toolTip());
    connect(m_curlButton, &QPushButton::clicked, m_copyCurlAction, &QAction::trigger);
    m_copiedLabel = new QLabel;
    m_copiedLabel->setObjectName(QStringLiteral("copiedLabel"));
    m_copiedLabel->setForegroundRole(QPalette::PlaceholderText);
    m_copiedTimer = new QTimer(this);
    m_copiedTimer->setSingleShot(true);
    m_copiedTimer->setInterval(4000);
    connect(m_copiedTimer, &QTimer::timeout, m_copiedLabel, &QLabel::clear);
    copyRow->addWidget(m_copyButton);
    copyRow->addWidget(m_curlButton);
    copyRow->addWidget(m_copiedLabel, 1);
    detailsLayout->addLayout(copyRow);

    m_pageTimer = new QTimer(this);
    m_pageTimer->setInterval(0);
    connect(m_pageTimer, &QTimer::timeout, this, [this] { addPage(); });

    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("inspectorTabs"));
    m_tabs->setDocumentMode(true);
    // Arguments first: what the client asked for is what an operator reads most.
    m_arguments = createPane(QStringLiteral("argumentsText"));
    m_response = createPane(QStringLiteral("responseText"));
    m_request = createPane(QStringLiteral("requestText"));
    m_tabs->addTab(m_arguments.edit, tr("Arguments"));
    m_tabs->addTab(m_response.edit, tr("Response"));
    m_tabs->addTab(m_request.edit, tr("Request"));
    // What the tool attached (a command tool's envelope, stdout, stderr, exit status); only calls
    // that have details show the tab.
    m_details = createPane(QStringLiteral("detailsText"));
    m_tabs->addTab(m_details.edit, tr("Details"));
    m_tabs->setTabVisible(m_tabs->indexOf(m_details.edit), false);
    // What the server told the client while the call ran; only calls that have a timeline show the tab.
    m_timeline = createPane(QStringLiteral("timelineText"));
    m_timeline.highlighter->setHighlightLimit(0); // lines of text, not JSON
    m_tabs->addTab(m_timeline.edit, tr("Timeline"));
    m_tabs->setTabVisible(m_tabs->indexOf(m_timeline.edit), false);
    detailsLayout->addWidget(m_tabs, 1);
    m_stack->addWidget(details);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    updateHighlighterColours();
}

CallInspector::~CallInspector()
{
    // The work holds only its own copy of the bytes: cancelling is enough, nothing to wait for.
    for (Pane* pane : {&m_arguments, &m_response, &m_request, &m_details, &m_timeline})
        pane->formatting.cancel();
}

CallInspector::Pane CallInspector::createPane(const QString& objectName)
{
    Pane pane;
    pane.edit = new QPlainTextEdit;
    pane.edit->setObjectName(objectName);
    pane.edit->setReadOnly(true);
    pane.edit->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    pane.edit->setFont(fixedFont());
    pane.edit->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    pane.edit->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    // Read-only text added page by page: an undo history would hold a second copy.
    pane.edit->setUndoRedoEnabled(false);
    pane.highlighter = new JsonHighlighter(pane.edit->document());
    pane.highlighter->setHighlightLimit(MaxHighlightedChars);
    return pane;
}

QString CallInspector::previewNote(qint64 shownBytes, qint64 requestBytes, qint64 responseBytes, bool loading)
{
    const auto size
        = [](qint64 bytes) { return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); };
    const QString shown = tr("Showing the first %1 of the request (%2) and of the response (%3).")
                              .arg(size(shownBytes), size(requestBytes), size(responseBytes));
    return loading ? shown + QLatin1Char(' ') + tr("Loading the whole call from history…") : shown;
}

QString CallInspector::keptInPartNote(const ToolCall& call)
{
    const auto size
        = [](qint64 bytes) { return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); };
    return tr("History keeps only the start of this call: %1 of its request (%2) and %3 of its response (%4); "
              "long texts in its details are cut too.")
        .arg(size(call.request.size()), size(call.wholeRequestBytes), size(call.response.size()),
            size(call.wholeResponseBytes));
}

QString CallInspector::prettyJson(const QByteArray& bytes)
{
    // ordered_json keeps the members in the order the client or tool wrote them.
    const auto parsed = BoundedJson::parseOrdered(bytes, BoundedJson::Limits::record());
    if (!parsed.ok)
        return QString::fromUtf8(bytes);
    return QString::fromStdString(parsed.value.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

QString CallInspector::detailsText(const QByteArray& bytes)
{
    const auto parsed = BoundedJson::parseOrdered(bytes, BoundedJson::Limits::record()).value;
    if (!parsed.is_object())
        return prettyJson(bytes);
    QString text;
    for (auto it = parsed.begin(); it != parsed.end(); ++it) {
        if (!text.isEmpty())
            text += QLatin1String("\n\n");
        text += QStringLiteral("── %1 ──\n").arg(QString::fromStdString(it.key()));
        if (it->is_string())
            text += QString::fromStdString(it->get_ref<const std::string&>());
        else
            text += QString::fromStdString(it->dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    }
    return text;
}

QString CallInspector::formatText(const QByteArray& bytes, Format format)
{
    switch (format) {
    case Format::Json:
        return prettyJson(bytes);
    case Format::Details:
        return detailsText(bytes);
    case Format::Timeline:
        return timelineText(bytes);
    case Format::Arguments:
        return QString::fromUtf8(ToolCall::argumentsFromRequest(bytes));
    case Format::Raw:
        break;
    }
    return QString::fromUtf8(bytes);
}

QString CallInspector::fitForDisplay(QString text)
{
    qsizetype omitted = 0;
    if (text.size() > MaxShownChars) {
        omitted = text.size() - MaxShownChars;
        text.truncate(MaxShownChars);
    }
    // One block per line: a block of megabytes (a long string value) takes seconds to lay out, so
    // long lines become several blocks. With the view's wrapping this looks the same.
    bool longLine = false;
    for (qsizetype start = 0, end = 0; start < text.size(); start = end + 1) {
        end = text.indexOf(QLatin1Char('\n'), start);
        if (end < 0)
            end = text.size();
        if (end - start > MaxLineChars) {
            longLine = true;
            break;
        }
    }
    if (longLine) {
        QString broken;
        broken.reserve(text.size() + text.size() / MaxLineChars + 1);
        qsizetype lineLength = 0;
        for (const QChar c : std::as_const(text)) {
            if (c == QLatin1Char('\n')) {
                lineLength = 0;
            } else if (lineLength == MaxLineChars) {
                broken += QLatin1Char('\n');
                lineLength = 0;
            }
            if (c != QLatin1Char('\n'))
                ++lineLength;
            broken += c;
        }
        text = std::move(broken);
    }
    if (omitted > 0)
        text += QLatin1String("\n\n")
            + tr("[%1 more characters not shown here; History keeps the whole call]").arg(QLocale().toString(omitted));
    return text;
}

void CallInspector::setCall(const ToolCall& call)
{
    showCall(call, false);
    setPreviewNote(call.hasBodyPreviews() ? keptInPartNote(call) : QString());
}

void CallInspector::setCallPreview(const ToolCall& preview, const QString& note)
{
    showCall(preview, true);
    setPreviewNote(note);
}

void CallInspector::setPreviewNote(const QString& note)
{
    m_previewNote->setText(note);
    m_previewNote->setVisible(!note.isEmpty());
}

bool CallInspector::isRendering() const
{
    for (const Pane* pane : {&m_arguments, &m_response, &m_request, &m_details, &m_timeline}) {
        if (pane->awaitingResult || pane->formatting.isRunning() || !pane->pending.isEmpty())
            return true;
    }
    return false;
}

void CallInspector::setPlaceholderAtTop(bool atTop)
{
    auto* placeholder = findChild<QLabel*>(QStringLiteral("inspectorPlaceholder"));
    placeholder->setAlignment(atTop ? Qt::AlignHCenter | Qt::AlignTop : Qt::AlignCenter);
    placeholder->setContentsMargins(0, atTop ? fontMetrics().height() : 0, 0, 0);
}

void CallInspector::showCall(const ToolCall& call, bool preview)
{
    m_call = call;
    m_hasCall = true;
    m_preview = preview;
    m_keptInPart = !preview && call.hasBodyPreviews();
    m_stack->setCurrentIndex(1);
    updateHeader();
    m_replayBar->setCall(call, preview);

    // A preview's request may be cut: its arguments are then shown as the text that follows
    // "arguments" in what is kept.
    const bool requestWhole
        = !(preview || m_keptInPart) || BoundedJson::refusal(call.request, BoundedJson::Limits::record()).empty();
    if (requestWhole) {
        showInPane(m_arguments, call.request, Format::Arguments, tr("No arguments."));
    } else {
        const QByteArray key = QByteArrayLiteral("\"arguments\":");
        const qsizetype at = call.request.indexOf(key);
        showInPane(m_arguments, at < 0 ? QByteArray() : call.request.mid(at + key.size()), Format::Raw,
            tr("The arguments are beyond the preview."));
    }
    QString noResponse;
    switch (call.status) {
    case CallStatus::Running:
        noResponse = tr("Still running: the response appears here when the call finishes.");
        break;
    case CallStatus::Paused:
        noResponse = tr("Paused: waiting for a person to answer in the console.");
        break;
    case CallStatus::Parked:
        noResponse = tr("Parked: no response was sent; the question stays open and its answer goes to the next "
                        "identical call.");
        break;
    default:
        noResponse = tr("No response was sent.");
        break;
    }
    showInPane(m_response, call.response, Format::Json, noResponse);
    showInPane(m_request, call.request, Format::Json, tr("No request recorded."));
    m_tabs->setTabVisible(m_tabs->indexOf(m_details.edit), !call.details.isEmpty());
    showInPane(m_details, call.details, Format::Details, tr("No details."));
    m_tabs->setTabVisible(m_tabs->indexOf(m_timeline.edit), !call.timeline.isEmpty());
    showInPane(m_timeline, CallSteps::withEnding(call), Format::Timeline, tr("No notifications."));
    updateCopyActions();
    if (!isRendering())
        Q_EMIT renderingFinished();
}

void CallInspector::clear()
{
    m_call = ToolCall();
    m_hasCall = false;
    m_preview = false;
    m_keptInPart = false;
    m_stack->setCurrentIndex(0);
    setPreviewNote(QString());
    m_replayBar->clear();
    updateCopyActions();
    for (Pane* pane : {&m_arguments, &m_response, &m_request, &m_details, &m_timeline}) {
        pane->formatting.cancel();
        pane->formatting = QFuture<QString>();
        pane->awaitingResult = false;
        pane->generation = ++m_nextGeneration;
        pane->pending.clear();
        pane->edit->clear();
        pane->shown.clear();
    }
    m_pageTimer->stop();
}

void CallInspector::showInPane(Pane& pane, const QByteArray& bytes, Format format, const QString& emptyText)
{
    if (bytes == pane.shown && format == pane.shownFormat
        && (!pane.edit->document()->isEmpty() || pane.awaitingResult || pane.formatting.isRunning()
            || !pane.pending.isEmpty()))
        return; // same call refreshed with an unchanged body: keep where the person scrolled to
    pane.shown = bytes;
    pane.shownFormat = format;
    // Whatever the pane was still doing is for a call no longer shown.
    pane.formatting.cancel();
    pane.formatting = QFuture<QString>();
    pane.awaitingResult = false;
    pane.generation = ++m_nextGeneration;
    pane.pending.clear();
    pane.pendingOffset = 0;
    pane.edit->setPlaceholderText(emptyText);
    if (bytes.size() <= SyncFormatBytes) {
        startText(pane, fitForDisplay(formatText(bytes, format)));
        return;
    }
    pane.edit->clear();
    pane.edit->setPlaceholderText(
        tr("Formatting %1…").arg(QLocale().formattedDataSize(bytes.size(), 1, QLocale::DataSizeTraditionalFormat)));
    pane.awaitingResult = true;
    pane.formatting = QtConcurrent::run(formattingPool(), [bytes, format](QPromise<QString>& promise) {
        if (promise.isCanceled())
            return;
        QString text = formatText(bytes, format);
        if (promise.isCanceled())
            return;
        promise.addResult(fitForDisplay(std::move(text)));
    });
    auto* watcher = new QFutureWatcher<QString>(this);
    Pane* target = &pane;
    const quint64 generation = pane.generation;
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, target, generation, emptyText] {
        watcher->deleteLater();
        if (target->generation != generation)
            return; // superseded: a newer text is on its way or shown
        target->awaitingResult = false;
        if (watcher->future().resultCount() == 0) {
            if (!isRendering())
                Q_EMIT renderingFinished();
            return;
        }
        target->edit->setPlaceholderText(emptyText);
        startText(*target, watcher->future().result());
        if (!isRendering())
            Q_EMIT renderingFinished();
    });
    watcher->setFuture(pane.formatting);
}

void CallInspector::startText(Pane& pane, QString text)
{
    if (text.size() <= PageChars) {
        pane.edit->setPlainText(text);
        return;
    }
    pane.edit->clear();
    pane.pending = std::move(text);
    pane.pendingOffset = 0;
    // The top of the text at once; the rest a page per event-loop iteration.
    addPage(&pane);
    m_pageTimer->start();
}

void CallInspector::addPage(Pane* first)
{
    // The pane the person looks at first, then the others in tab order.
    Pane* pane = first;
    if (!pane || pane->pending.isEmpty()) {
        pane = nullptr;
        QWidget* current = m_tabs->currentWidget();
        for (Pane* candidate : {&m_arguments, &m_response, &m_request, &m_details, &m_timeline}) {
            if (candidate->pending.isEmpty())
                continue;
            if (!pane || candidate->edit == current)
                pane = candidate;
        }
    }
    if (!pane) {
        m_pageTimer->stop();
        return;
    }
    const QString& text = pane->pending;
    qsizetype end = qMin(text.size(), pane->pendingOffset + PageChars);
    if (end < text.size()) {
        // Whole lines where possible, so no block is laid out twice.
        const qsizetype newline = text.lastIndexOf(QLatin1Char('\n'), end - 1);
        if (newline >= pane->pendingOffset)
            end = newline + 1;
    }
    QTextCursor cursor(pane->edit->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(text.mid(pane->pendingOffset, end - pane->pendingOffset));
    pane->pendingOffset = end;
    if (end >= text.size()) {
        pane->pending.clear();
        pane->pendingOffset = 0;
        if (!isRendering()) {
            m_pageTimer->stop();
            Q_EMIT renderingFinished();
        }
    }
}

void CallInspector::updateHeader()
{
    m_toolLabel->setText(m_call.tool.isEmpty() ? tr("(no tool name)") : m_call.tool);

    // The look of the call log's rows, from this widget's own palette: a tinted badge outlined in the
    // status's hue, with the status in words (the colour is never the only sign) and what it means
    // in its tooltip.
    const StatusColours colours(palette());
    const QColor colour = colours.text(m_call.status);
    m_statusLabel->setText(callStatusLabel(m_call.status));
    m_statusLabel->setToolTip(
        callStatusName(m_call.status) + QStringLiteral(": ") + callStatusDescription(m_call.status));
    m_statusLabel->setStyleSheet(
        QStringLiteral("QLabel { color: %1; background: %2; border: 1px solid %3; "
                       "border-radius: 4px; padding: 1px 6px; font-weight: bold; }")
            .arg(colour.name(), colours.tint(m_call.status).name(), colours.accent(m_call.status).name()));
    m_statusMeaningLabel->setText(callStatusDescription(m_call.status));

    m_routeLabel->setText(m_call.route.toString());
    m_clientLabel->setText(
        CallColumns::clientLabel(m_call).isEmpty() ? tr("(unnamed client)") : CallColumns::clientLabel(m_call));
    // A 2026-07-28 request has no session (only one of its own, for its answer): the revision it
    // named stands in the session's place, and the trace it named (W3C traceparent) below it.
    const CallEnvelope envelope = CallEnvelope::of(m_call.request);
    m_sessionCaption->setVisible(!envelope.isStateless());
    m_sessionLabel->setVisible(!envelope.isStateless());
    m_protocolCaption->setVisible(envelope.isStateless());
    m_protocolLabel->setVisible(envelope.isStateless());
    m_sessionLabel->setText(m_call.sessionId);
    m_sessionLabel->setToolTip(m_call.sessionId);
    m_protocolLabel->setText(
        envelope.isStateless() ? tr("MCP %1 · stateless (no session)").arg(envelope.version) : QString());
    m_protocolLabel->setToolTip(envelope.isStateless()
            ? tr("The revision the request named (io.modelcontextprotocol/protocolVersion). It has no sessions: each "
                 "request stands alone; this one's own was %1")
                  .arg(m_call.sessionId)
            : QString());
    const QString traceId = envelope.traceId();
    m_traceCaption->setVisible(!traceId.isEmpty());
    m_traceLabel->setVisible(!traceId.isEmpty());
    m_traceLabel->setText(traceId);
    m_traceLabel->setToolTip(traceId.isEmpty()
            ? QString()
            : tr("W3C trace context from the request's _meta\ntraceparent %1%2")
                  .arg(envelope.traceparent,
                      envelope.tracestate.isEmpty() ? QString() : tr("\ntracestate %1").arg(envelope.tracestate)));
    updateSteps();
    // Today's calls by the time alone: the date would take the room the duration needs beside it.
    const QDateTime started = QDateTime::fromMSecsSinceEpoch(m_call.startedAtMs);
    m_startedLabel->setText(
        started.toString(started.date() == QDate::currentDate() ? QStringLiteral("HH:mm:ss.zzz")
                                                                : QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")));
    m_startedLabel->setToolTip(
        tr("Local time; UTC %1")
            .arg(QDateTime::fromMSecsSinceEpoch(m_call.startedAtMs, QTimeZone::utc()).toString(Qt::ISODateWithMs)));
    m_durationLabel->setText(m_call.status == CallStatus::Paused ? tr("waiting for a person…")
            : m_call.durationUs < 0                              ? tr("running…")
                                                                 : CallColumns::formatTiming(m_call));
    m_durationLabel->setToolTip(m_call.durationUs >= 0 && m_call.waitedUs > 0
            ? tr("%1 in all: %2 waiting for a person at the console, %3 running")
                  .arg(CallColumns::formatDuration(m_call.durationUs), CallColumns::formatDuration(m_call.waitedUs),
                      CallColumns::formatDuration(m_call.ranUs()))
            : QString());

    const QString decision = DecisionText::describe(m_call.decision);
    m_decisionCaption->setVisible(!decision.isEmpty());
    m_decisionLabel->setVisible(!decision.isEmpty());
    m_decisionLabel->setText(decision);
    m_decisionLabel->setToolTip(QString::fromUtf8(m_call.decision));

    const bool hasError = !m_call.error.isEmpty();
    m_errorCaption->setVisible(hasError);
    m_errorLabel->setVisible(hasError);
    // The label lays out everything it is given: a long error shows its start, the tooltip more.
    m_errorLabel->setText(
        m_call.error.size() > MaxErrorChars ? m_call.error.left(MaxErrorChars) + QChar(0x2026) : m_call.error);
    m_errorLabel->setToolTip(m_call.error.size() > MaxErrorChars ? m_call.error.left(8 * MaxErrorChars) : QString());
    // In the status's colour where that reads on the window's background; else in the plain text colour.
    const bool readable
        = StatusColours::contrast(colour, palette().color(QPalette::Window)) >= StatusColours::MinimumContrast;
    m_errorLabel->setStyleSheet(
        hasError && readable ? QStringLiteral("QLabel { color: %1; }").arg(colour.name()) : QString());
}

void CallInspector::updateSteps()
{
    // From the timeline with the task's ending: a finished call's task ended with it.
    const CallSteps steps = CallSteps::of(CallSteps::withEnding(m_call));
    const bool hasTask = steps.task.has_value();
    m_taskCaption->setVisible(hasTask);
    m_taskLabel->setVisible(hasTask);
    if (hasTask) {
        const CallSteps::Task& task = *steps.task;
        // How it stands, then the id (one long word) on a line of its own; what it said in the tooltip
        // and, step by step, on the Timeline tab.
        QString text = task.status.isEmpty() ? tr("(no status)")
                                             : QString(task.status).replace(QLatin1Char('_'), QLatin1Char(' '));
        if (task.lastEvent == QLatin1String("stopped"))
            text = tr("%1 when its call stopped").arg(text);
        if (task.polls > 0)
            text += QStringLiteral(" · ")
                + (task.polls == 1 ? tr("polled once") : tr("polled %1 times").arg(task.polls));
        text += QLatin1Char('\n') + (task.id.isEmpty() ? tr("(no id)") : task.id);
        m_taskLabel->setText(text);
        m_taskLabel->setToolTip((task.statusMessage.isEmpty() ? QString() : task.statusMessage + QStringLiteral("\n\n"))
            + tr("The call is carried by a task (the MCP Tasks extension): the client was given the task's id at "
                 "once and polls tasks/get for its result. The Timeline tab shows the task's life."));
    }

    // Each retry of an input_required call is a call of its own: this one says which it answers.
    const bool answersInput = CallEnvelope::of(m_call.request).answersInput;
    const bool hasInput = steps.input.has_value() || answersInput;
    m_inputCaption->setVisible(hasInput);
    m_inputLabel->setVisible(hasInput);
    if (!hasInput)
        return;
    QStringList parts;
    if (steps.input && steps.input->answeredRound > 0) {
        const CallSteps::Input& input = *steps.input;
        parts << (input.previousCallId > 0 ? tr("answers round %1, asked in <a href=\"call:%2\">call #%2</a>")
                                                 .arg(input.answeredRound)
                                                 .arg(input.previousCallId)
                                           : tr("answers round %1 of an earlier call").arg(input.answeredRound));
    } else if (answersInput) {
        parts << tr("answers an earlier input_required call (its request carries inputResponses)");
    }
    if (steps.input && steps.input->lastEvent == QLatin1String("refused")) {
        parts << (steps.input->reason.isEmpty()
                ? tr("the answer was refused")
                : tr("the answer was refused: %1").arg(steps.input->reason.toHtmlEscaped()));
    }
    if (steps.input && steps.input->askedRound > 0) {
        parts << tr("round %1: asked the client's user for %2")
                     .arg(steps.input->askedRound)
                     .arg(steps.input->keys.isEmpty() ? tr("input")
                                                      : steps.input->keys.join(QStringLiteral(", ")).toHtmlEscaped());
    }
    m_inputLabel->setText(parts.join(QStringLiteral("; ")));
    m_inputLabel->setToolTip(tr("input_required (multi round-trip requests): the client's own user answers, and "
                                "the client calls the tool again with inputResponses; each round is a call of "
                                "its own"));
}

void CallInspector::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        updateHighlighterColours();
        if (m_hasCall)
            updateHeader(); // the status badge's colours come from the palette
    }
}

void CallInspector::updateHighlighterColours()
{
    for (Pane* pane : {&m_arguments, &m_response, &m_request, &m_details, &m_timeline})
        pane->highlighter->setDarkBackground(isDark(pane->edit->palette()));
}

void CallInspector::createCopyActions()
{
    const auto action = [this](const QString& text, const QString& objectName, const QKeySequence& shortcut) {
        auto* created = new QAction(text, this);
        created->setObjectName(objectName);
        if (!shortcut.isEmpty()) {
            created->setShortcut(shortcut);
            // In whichever window shows this inspector (the console, History, an opened file).
            created->setShortcutContext(Qt::WindowShortcut);
        }
        addAction(created);
        return created;
    };
    m_copyArgumentsAction = action(tr("Copy &Arguments as JSON"), QStringLiteral("copyArgumentsAction"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J));
    m_copyResponseAction = action(tr("Copy R&esponse as JSON"), QStringLiteral("copyResponseAction"), {});
    m_copyRequestAction = action(tr("Copy Re&quest as JSON"), QStringLiteral("copyRequestAction"), {});
    m_copyCurlAction
        = action(tr("Copy as c&url"), QStringLiteral("copyCurlAction"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_copyCurlAction->setToolTip(tr("Copy a shell script that sends this call again with curl, in a session of its "
                                    "own; the token is read from $SWITCHBOARD_TOKEN (%1)")
                                     .arg(m_copyCurlAction->shortcut().toString(QKeySequence::NativeText)));
    connect(m_copyArgumentsAction, &QAction::triggered, this,
        [this] { copyText(QString::fromUtf8(m_call.argumentsJson()), tr("the arguments")); });
    connect(m_copyResponseAction, &QAction::triggered, this,
        [this] { copyText(prettyJson(m_call.response), tr("the response")); });
    connect(m_copyRequestAction, &QAction::triggered, this,
        [this] { copyText(prettyJson(m_call.request), tr("the request")); });
    connect(m_copyCurlAction, &QAction::triggered, this,
        [this] { copyText(CurlCommand::forCall(m_call, m_serverUrl, m_tokenRequired), tr("a curl command")); });
    updateCopyActions();
}

QList<QAction*> CallInspector::copyActions() const
{
    return {m_copyArgumentsAction, m_copyResponseAction, m_copyRequestAction, m_copyCurlAction};
}

void CallInspector::setServer(const QUrl& url, bool tokenRequired)
{
    m_serverUrl = url;
    m_tokenRequired = tokenRequired;
    updateCopyActions();
}

void CallInspector::updateCopyActions()
{
    // A preview's bodies are cut (and so are those history keeps only the start of): copying them
    // would hand out JSON that is not the call.
    const bool whole = m_hasCall && !m_preview && !m_keptInPart;
    m_copyArgumentsAction->setEnabled(whole && !m_call.argumentsJson().isEmpty());
    m_copyResponseAction->setEnabled(whole && !m_call.response.isEmpty());
    m_copyRequestAction->setEnabled(whole && !m_call.request.isEmpty());
    m_copyCurlAction->setEnabled(whole && !m_call.request.isEmpty() && m_serverUrl.isValid());
    if (!m_copyButton)
        return;
    m_copyButton->setEnabled(whole);
    m_curlButton->setEnabled(m_copyCurlAction->isEnabled());
    const QString waiting = tr("Waiting for the whole call from history");
    const QString kept = tr("History keeps only the start of this call");
    m_copyButton->setToolTip(m_preview ? waiting
            : m_keptInPart             ? kept
                                       : tr("Copy the arguments, the response or the request as JSON"));
    m_curlButton->setToolTip(m_preview ? waiting : m_keptInPart ? kept : m_copyCurlAction->toolTip());
}

void CallInspector::copyText(const QString& text, const QString& what)
{
    if (!m_hasCall || m_preview || m_keptInPart)
        return;
    QGuiApplication::clipboard()->setText(text);
    m_copiedLabel->setText(tr("Copied %1").arg(what));
    m_copiedTimer->start();
    Q_EMIT copied(what);
}

namespace {

using OrderedJson = nlohmann::ordered_json;

QString textOf(const OrderedJson& object, const char* key)
{
    const auto value = object.find(key);
    return value != object.end() && value->is_string() ? QString::fromStdString(value->get<std::string>()) : QString();
}

// "working", or "input required" for the extension's input_required.
QString statusWords(const OrderedJson& params)
{
    return textOf(params, "status").replace(QLatin1Char('_'), QLatin1Char(' '));
}

// What the task's last step said, so that the next says only what changed: a client polls every
// second or so, and "(working)" on every line would bury what happened.
struct TaskSaid
{
    QString status;
    QString message;
};

// "task-0123…cdef": the Task line over the tabs has the whole id.
QString shortTaskId(const QString& id)
{
    return id.size() <= 16 ? id : id.left(9) + QChar(0x2026) + id.right(4);
}

// A switchboard/task entry in words; `polls` is how many polls this line stands for.
QString taskStep(const OrderedJson& params, int polls, const QString& lastPollAt, TaskSaid* said)
{
    const QString event = textOf(params, "event");
    const QString status = statusWords(params);
    const QString message = textOf(params, "statusMessage");
    const bool newStatus = !status.isEmpty() && status != said->status;
    const bool newMessage = !message.isEmpty() && message != said->message;
    if (!status.isEmpty())
        said->status = status;
    if (!message.isEmpty())
        said->message = message;
    const QString news = !newStatus && !newMessage ? QString()
                                                   : QStringLiteral(" — ") + (newStatus ? status : QString())
            + (newStatus && newMessage ? QStringLiteral(": ") : QString()) + (newMessage ? message : QString());
    const QString id = shortTaskId(textOf(params, "taskId"));
    if (event == QLatin1String("created"))
        return CallInspector::tr("Created %1").arg(id) + news;
    if (event == QLatin1String("handed-out"))
        return CallInspector::tr("Handed out to the client") + news;
    if (event == QLatin1String("polled")) {
        return (polls > 1 ? CallInspector::tr("Polled by the client ×%1, the last at %2").arg(polls).arg(lastPollAt)
                          : CallInspector::tr("Polled by the client"))
            + news;
    }
    // What it waits on, or that it runs, is what the task's status message says ("Waiting for a person
    // at the Switchboard console to answer the question of echo", "echo is running").
    if (event == QLatin1String("waiting") || event == QLatin1String("running")) {
        const QString what = !message.isEmpty() ? message
            : event == QLatin1String("waiting") ? CallInspector::tr("Waiting on the person at the console")
                                                : CallInspector::tr("Running");
        return what + (newStatus ? QStringLiteral(" (") + status + QLatin1Char(')') : QString());
    }
    // A running task's question for its client's user (input_required, answered through tasks/update).
    if (event == QLatin1String("input-requested"))
        return CallInspector::tr("Asked the client's user (tasks/update answers)") + news;
    if (event == QLatin1String("input-answered"))
        return CallInspector::tr("The client's user answered (tasks/update)") + news;
    if (event == QLatin1String("cancel-requested"))
        return CallInspector::tr("Cancel requested by the client") + news;
    if (event == QLatin1String("resumed"))
        return CallInspector::tr("Resumed after a restart (%1)").arg(id) + news;
    if (event == QLatin1String("stopped")) // not how the task ended: it may wait again after a restart
        return CallInspector::tr("The call stopped") + (message.isEmpty() ? QString() : QStringLiteral(": ") + message);
    if (event == QLatin1String("ended")) // how it ended, whatever was said before
        return CallInspector::tr("Ended — %1").arg(status)
            + (message.isEmpty() ? QString() : QStringLiteral(": ") + message);
    return event + news;
}

// A switchboard/input entry in words.
QString inputStep(const OrderedJson& params)
{
    const QString event = textOf(params, "event");
    const auto roundValue = params.find("round");
    // " (round 2)", or nothing where the entry names none (a refused requestState names no round).
    const QString round = roundValue != params.end() && roundValue->is_number_integer()
        ? CallInspector::tr(" (round %1)").arg(roundValue->get<qint64>())
        : QString();
    QStringList keys;
    QStringList kinds;
    for (const char* member : {"keys", "requestKinds"}) {
        const auto list = params.find(member);
        if (list == params.end() || !list->is_array())
            continue;
        for (const auto& item : *list) {
            if (item.is_string())
                (member[0] == 'k' ? keys : kinds) << QString::fromStdString(item.get<std::string>());
        }
    }
    if (event == QLatin1String("asked")) {
        return CallInspector::tr("Asked the client's user%1: %2").arg(round, keys.join(QStringLiteral(", ")))
            + (kinds.isEmpty() ? QString() : QStringLiteral(" — ") + kinds.join(QStringLiteral(", ")));
    }
    if (event == QLatin1String("answered")) {
        const auto previous = params.find("previousCallId");
        return previous != params.end() && previous->is_number_integer()
            ? CallInspector::tr("Answered by the client's user%1, asked in call #%2")
                  .arg(round)
                  .arg(previous->get<qint64>())
            : CallInspector::tr("Answered by the client's user%1").arg(round);
    }
    if (event == QLatin1String("refused")) {
        const QString reason = textOf(params, "reason");
        return CallInspector::tr("The client's answer was refused%1").arg(round)
            + (reason.isEmpty() ? QString() : QStringLiteral(": ") + reason);
    }
    return CallInspector::tr("Input: %1%2").arg(event, round);
}

} // namespace

QString CallInspector::timelineText(const QByteArray& timeline)
{
    const auto entries = BoundedJson::parseOrdered(timeline, BoundedJson::Limits::record()).value;
    if (!entries.is_array())
        return prettyJson(timeline);
    const auto compact = [](const OrderedJson& value) {
        if (value.is_string())
            return QString::fromStdString(value.get<std::string>());
        return QString::fromStdString(value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace));
    };
    const auto number = [](const OrderedJson& value) {
        return value.is_number() ? QLocale::c().toString(value.get<double>(), 'g', 12) : QStringLiteral("?");
    };
    // Right-aligned, so the seconds line up: "  +0.150 s", "+120.402 s".
    const auto at = [](const OrderedJson& entry) {
        return QStringLiteral("%1 s").arg(QStringLiteral("+%1").arg(entry.value("atMs", 0.0) / 1000.0, 0, 'f', 3), 8);
    };
    // Switchboard's own steps are tagged, so they are not read as messages the client was sent.
    const auto step = [](const char* tag, const QString& text) -> QString {
        return QStringLiteral("%1 ").arg(QLatin1String(tag), -7) + text;
    };
    const auto isPoll = [](const OrderedJson& entry) {
        return entry.is_object() && entry.value("method", std::string()) == CallSteps::TaskMethod
            && entry.contains("params") && entry["params"].is_object()
            && entry["params"].value("event", std::string()) == "polled";
    };
    QStringList lines;
    TaskSaid said;
    for (std::size_t index = 0; index < entries.size(); ++index) {
        const OrderedJson& entry = entries[index];
        if (!entry.is_object())
            continue;
        if (const auto omitted = entry.find("omitted"); omitted != entry.end()) {
            lines << tr("        … %1 more notifications not kept …").arg(number(*omitted));
            continue;
        }
        const std::string method = entry.value("method", std::string());
        const OrderedJson params = entry.value("params", OrderedJson::object());
        QString text;
        if (params.contains("omittedBytes")) {
            text = QString::fromStdString(method) + QLatin1String("  ")
                + tr("(%1 bytes, not kept)").arg(number(params["omittedBytes"]));
        } else if (method == CallSteps::TaskMethod) {
            // A client polls every second or so: a run of polls that found the task as it was is one line.
            int polls = 1;
            if (isPoll(entry)) {
                while (index + polls < entries.size() && isPoll(entries[index + polls])
                    && entries[index + polls]["params"].value("status", std::string())
                        == params.value("status", std::string()))
                    ++polls;
            }
            text = step("[task]", taskStep(params, polls, at(entries[index + polls - 1]).trimmed(), &said));
            index += polls - 1;
        } else if (method == CallSteps::InputMethod) {
            text = step("[input]", inputStep(params));
        } else if (method == "notifications/progress") {
            text = tr("progress %1").arg(number(params.value("progress", OrderedJson())));
            if (params.contains("total"))
                text += QLatin1Char('/') + number(params["total"]);
            if (params.contains("message"))
                text += QLatin1String("  ") + compact(params["message"]);
        } else if (method == "notifications/message") {
            text = compact(params.value("level", OrderedJson("log")));
            if (params.contains("logger"))
                text += QLatin1String("  [") + compact(params["logger"]) + QLatin1Char(']');
            text += QLatin1String("  ") + compact(params.value("data", OrderedJson()));
        } else {
            text = QString::fromStdString(method) + QLatin1String("  ") + compact(params);
        }
        lines << at(entry) + QLatin1String("  ") + text;
    }
    return lines.join(QLatin1Char('\n'));
}
