#include "callinspector.h"

#include "callcolumns.h"
#include "jsonhighlighter.h"

#include <QDateTime>
#include <QEvent>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTimeZone>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace {

QLabel* selectableLabel(const QString& objectName)
{
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    label->setTextFormat(Qt::PlainText);
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

    // Two label/value pairs per row keeps the header short, leaving the height to the JSON.
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    m_routeLabel = selectableLabel(QStringLiteral("routeLabel"));
    m_clientLabel = selectableLabel(QStringLiteral("clientLabel"));
    m_sessionLabel = selectableLabel(QStringLiteral("sessionLabel"));
    m_startedLabel = selectableLabel(QStringLiteral("startedLabel"));
    m_durationLabel = selectableLabel(QStringLiteral("durationLabel"));
    grid->addWidget(captionLabel(tr("Client")), 0, 0);
    grid->addWidget(m_clientLabel, 0, 1);
    grid->addWidget(captionLabel(tr("Route")), 0, 2);
    grid->addWidget(m_routeLabel, 0, 3);
    grid->addWidget(captionLabel(tr("Started")), 1, 0);
    grid->addWidget(m_startedLabel, 1, 1);
    grid->addWidget(captionLabel(tr("Duration")), 1, 2);
    grid->addWidget(m_durationLabel, 1, 3);
    grid->addWidget(captionLabel(tr("Session")), 2, 0);
    grid->addWidget(m_sessionLabel, 2, 1, 1, 3);
    m_errorCaption = captionLabel(tr("Error"));
    m_errorLabel = selectableLabel(QStringLiteral("errorLabel"));
    m_errorLabel->setWordWrap(true);
    grid->addWidget(m_errorCaption, 3, 0);
    grid->addWidget(m_errorLabel, 3, 1, 1, 3);
    grid->setColumnMinimumWidth(1, 120);
    grid->setColumnStretch(3, 1);
    detailsLayout->addLayout(grid);
    detailsLayout->addSpacing(4);

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
    detailsLayout->addWidget(m_tabs, 1);
    m_stack->addWidget(details);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    updateHighlighterColours();
}

CallInspector::Pane CallInspector::createPane(const QString& objectName)
{
    Pane pane;
    pane.edit = new QPlainTextEdit;
    pane.edit->setObjectName(objectName);
    pane.edit->setReadOnly(true);
    pane.edit->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    pane.edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    pane.edit->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    pane.edit->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    pane.highlighter = new JsonHighlighter(pane.edit->document());
    return pane;
}

QString CallInspector::prettyJson(const QByteArray& bytes)
{
    // ordered_json keeps the members in the order the client or tool wrote them.
    const auto parsed = nlohmann::ordered_json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
    if (parsed.is_discarded())
        return QString::fromUtf8(bytes);
    return QString::fromStdString(parsed.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

void CallInspector::setCall(const ToolCall& call)
{
    m_call = call;
    m_hasCall = true;
    m_stack->setCurrentIndex(1);
    updateHeader();

    showInPane(m_arguments, call.argumentsJson(), true, tr("No arguments."));
    QString noResponse;
    switch (call.status) {
    case CallStatus::Running:
        noResponse = tr("Still running: the response appears here when the call finishes.");
        break;
    case CallStatus::Paused:
        noResponse = tr("Paused: waiting for a person to answer in the console.");
        break;
    default:
        noResponse = tr("No response was sent.");
        break;
    }
    showInPane(m_response, call.response, false, noResponse);
    showInPane(m_request, call.request, false, tr("No request recorded."));
}

void CallInspector::clear()
{
    m_call = ToolCall();
    m_hasCall = false;
    m_stack->setCurrentIndex(0);
    for (Pane* pane : {&m_arguments, &m_response, &m_request}) {
        pane->edit->clear();
        pane->shown.clear();
    }
}

void CallInspector::showInPane(Pane& pane, const QByteArray& bytes, bool alreadyPretty, const QString& emptyText)
{
    pane.edit->setPlaceholderText(emptyText);
    if (bytes == pane.shown && !pane.edit->document()->isEmpty())
        return; // same call refreshed with an unchanged body: keep where the person scrolled to
    pane.shown = bytes;
    const bool highlight = bytes.size() <= MaxHighlightedBytes;
    if (!highlight)
        pane.highlighter->setDocument(nullptr);
    else if (!pane.highlighter->document())
        pane.highlighter->setDocument(pane.edit->document());
    pane.edit->setPlainText(alreadyPretty ? QString::fromUtf8(bytes) : prettyJson(bytes));
}

void CallInspector::updateHeader()
{
    m_toolLabel->setText(m_call.tool.isEmpty() ? tr("(no tool name)") : m_call.tool);

    const QColor colour = CallColumns::data(m_call, CallColumns::StatusColumn, Qt::ForegroundRole).value<QColor>();
    m_statusLabel->setText(callStatusName(m_call.status));
    // A small outlined badge: the colour carries the status, the text keeps it readable without colour.
    m_statusLabel->setStyleSheet(QStringLiteral("QLabel { color: %1; border: 1px solid %1; border-radius: 4px; "
                                                "padding: 1px 6px; font-weight: bold; }")
                                     .arg(colour.name()));

    m_routeLabel->setText(m_call.route);
    m_clientLabel->setText(
        CallColumns::clientLabel(m_call).isEmpty() ? tr("(unnamed client)") : CallColumns::clientLabel(m_call));
    m_sessionLabel->setText(m_call.sessionId);
    m_startedLabel->setText(
        QDateTime::fromMSecsSinceEpoch(m_call.startedAtMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")));
    m_startedLabel->setToolTip(
        tr("Local time; UTC %1")
            .arg(QDateTime::fromMSecsSinceEpoch(m_call.startedAtMs, QTimeZone::utc()).toString(Qt::ISODateWithMs)));
    m_durationLabel->setText(m_call.durationUs < 0 ? tr("running…") : CallColumns::formatDuration(m_call.durationUs));

    const bool hasError = !m_call.error.isEmpty();
    m_errorCaption->setVisible(hasError);
    m_errorLabel->setVisible(hasError);
    m_errorLabel->setText(m_call.error);
    m_errorLabel->setStyleSheet(hasError ? QStringLiteral("QLabel { color: %1; }").arg(colour.name()) : QString());
}

void CallInspector::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updateHighlighterColours();
}

void CallInspector::updateHighlighterColours()
{
    for (Pane* pane : {&m_arguments, &m_response, &m_request})
        pane->highlighter->setDarkBackground(isDark(pane->edit->palette()));
}
