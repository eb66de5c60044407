#include "toolsview.h"

#include "boundedjson.h"
#include "fixedfont.h"
#include "jsoneditor.h"
#include "modelroles.h"
#include "operatorinterface.h"
#include "schemaform.h"
#include "statusnote.h"
#include "tablelook.h"
#include "toollistmodel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// A read-only pane for a schema or the annotations, pretty-printed.
QPlainTextEdit* jsonPane(const QString& objectName)
{
    auto* pane = new QPlainTextEdit;
    pane->setObjectName(objectName);
    pane->setReadOnly(true);
    pane->setFont(fixedFont());
    pane->setLineWrapMode(QPlainTextEdit::NoWrap);
    return pane;
}

QString pretty(const QByteArray& text, const QString& none)
{
    if (text.isEmpty())
        return none;
    const BoundedJson::Result<json> parsed = BoundedJson::parse(text, BoundedJson::Limits::record());
    return parsed.ok ? QString::fromStdString(parsed.value.dump(2)) : QString::fromUtf8(text);
}

// A hint as a chip: a word on a tinted ground, its colour telling the kind of hint apart (and the
// word saying it, so colour is never the only sign).
QString chip(const QString& text, const QColor& colour, const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor ground = QColor::fromRgbF(base.redF() * 0.8f + colour.redF() * 0.2f,
        base.greenF() * 0.8f + colour.greenF() * 0.2f, base.blueF() * 0.8f + colour.blueF() * 0.2f);
    return QStringLiteral("<span style=\"background-color: %1; color: %2;\">&nbsp;%3&nbsp;</span>")
        .arg(ground.name(), palette.color(QPalette::Text).name(), text.toHtmlEscaped());
}

} // namespace

ToolsView::ToolsView(OperatorInterface* backend, QWidget* parent)
    : QWidget(parent)
    , m_backend(backend)
    , m_model(new ToolListModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit)
    , m_count(new QLabel)
    , m_table(new QTableView)
    , m_titleLabel(new QLabel)
    , m_chips(new QLabel)
    , m_description(new QLabel)
    , m_tabs(new QTabWidget)
    , m_formArea(new QScrollArea)
    , m_formNote(new QLabel)
    , m_json(new JsonEditor)
    , m_callStack(new QStackedWidget)
    , m_jsonToggle(new QCheckBox(tr("Edit as &JSON")))
    // No mnemonic: Alt+C opens the Call menu; Return in the form and Ctrl+Return anywhere here call.
    , m_callButton(new QPushButton(tr("Call")))
    , m_status(new StatusNote(QStringLiteral("toolsStatus")))
    , m_inputSchema(jsonPane(QStringLiteral("inputSchemaPane")))
    , m_outputSchema(jsonPane(QStringLiteral("outputSchemaPane")))
    , m_annotations(jsonPane(QStringLiteral("annotationsPane")))
    , m_relist(new QTimer(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterRole(FilterRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setSortRole(SortRole);

    m_filter->setObjectName(QStringLiteral("toolFilter"));
    m_filter->setPlaceholderText(tr("Filter tools by name, route or description"));
    m_filter->setClearButtonEnabled(true);
    m_count->setObjectName(QStringLiteral("toolCount"));
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_count);

    m_table->setObjectName(QStringLiteral("toolTable"));
    m_table->setModel(m_proxy);
    applyTableLook(m_table, Qt::ElideRight, QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(ToolListModel::NameColumn, 200);
    m_table->setColumnWidth(ToolListModel::RouteColumn, 110);
    m_table->setColumnWidth(ToolListModel::HintsColumn, 170);

    m_titleLabel->setObjectName(QStringLiteral("toolTitle"));
    m_titleLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_titleLabel->font();
    bold.setBold(true);
    m_titleLabel->setFont(bold);
    m_chips->setObjectName(QStringLiteral("toolHints"));
    m_chips->setTextFormat(Qt::RichText);
    m_description->setObjectName(QStringLiteral("toolDescription"));
    m_description->setWordWrap(true);
    m_description->setTextFormat(Qt::PlainText);
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* heading = new QHBoxLayout;
    heading->addWidget(m_titleLabel);
    heading->addWidget(m_chips);
    heading->addStretch(1);

    // The call: a form, or JSON text, and the button.
    m_formNote->setObjectName(QStringLiteral("formNote"));
    m_formNote->setWordWrap(true);
    m_formNote->setForegroundRole(QPalette::PlaceholderText);
    m_formArea->setObjectName(QStringLiteral("toolFormArea"));
    m_formArea->setWidgetResizable(true);
    m_formArea->setFrameShape(QFrame::NoFrame);
    m_json->setObjectName(QStringLiteral("toolArguments"));
    m_json->setPlaceholderText(tr("{\"name\": \"value\"}"));
    m_callStack->addWidget(m_formArea);
    m_callStack->addWidget(m_json);
    m_jsonToggle->setObjectName(QStringLiteral("jsonToggle"));
    m_jsonToggle->setToolTip(tr("Type the arguments as a JSON object instead of filling in the form"));
    m_callButton->setObjectName(QStringLiteral("callToolButton"));
    m_callButton->setToolTip(tr("Call the tool from the console, through the same permissions as a client's call; "
                                "the call is selected in the log (Return in the form, Ctrl+Return anywhere here)"));
    m_callButton->setEnabled(false);
    // Below the scrolled details, so the button is in view however short the dock is.
    auto* callRow = new QHBoxLayout;
    callRow->addWidget(m_jsonToggle);
    callRow->addWidget(m_status, 1);
    callRow->addWidget(m_callButton);
    auto* callPage = new QWidget;
    auto* callLayout = new QVBoxLayout(callPage);
    callLayout->addWidget(m_formNote);
    callLayout->addWidget(m_callStack, 1);
    m_tabs->setObjectName(QStringLiteral("toolTabs"));
    m_tabs->addTab(callPage, tr("Call"));
    m_tabs->addTab(m_inputSchema, tr("Input schema"));
    m_tabs->addTab(m_outputSchema, tr("Output schema"));
    m_tabs->addTab(m_annotations, tr("Annotations"));

    auto* details = new QWidget;
    auto* detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addLayout(heading);
    detailsLayout->addWidget(m_description);
    detailsLayout->addWidget(m_tabs, 1);

    // The details scroll rather than hold the dock (and the window) taller than a small screen.
    auto* detailsArea = new QScrollArea;
    detailsArea->setObjectName(QStringLiteral("toolDetailsArea"));
    detailsArea->setWidget(details);
    detailsArea->setWidgetResizable(true);
    detailsArea->setFrameShape(QFrame::NoFrame);
    detailsArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->setObjectName(QStringLiteral("toolsSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_table);
    splitter->addWidget(detailsArea);
    // A few rows of tools stay in view above the selected one's details, and more when there is
    // room: the minimum stays small, since the dock shares the window's height (a 768-pixel screen)
    // with the questions it is a tab of and the docks below.
    const int rowHeight = m_table->verticalHeader()->defaultSectionSize();
    const int tableChrome = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    m_table->setMinimumHeight(tableChrome + 3 * rowHeight);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({tableChrome + 8 * rowHeight, 10 * rowHeight});

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(filterRow);
    layout->addWidget(splitter, 1);
    layout->addLayout(callRow);

    // Ctrl+Return calls from anywhere in the view, the JSON editor included (where Return is a new line).
    auto* callAction = new QAction(tr("Call the Selected Tool"), this);
    callAction->setObjectName(QStringLiteral("callToolAction"));
    callAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    callAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(callAction, &QAction::triggered, this, [this] {
        if (m_callButton->isEnabled())
            callCurrentTool();
    });
    addAction(callAction);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterFixedString(text);
        updateCount();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ToolsView::onCurrentChanged);
    connect(m_jsonToggle, &QCheckBox::toggled, this, &ToolsView::setJsonMode);
    connect(m_callButton, &QPushButton::clicked, this, &ToolsView::callCurrentTool);

    connect(m_backend, &OperatorInterface::toolsListed, this, &ToolsView::onToolsListed);
    // Sources replace their tools one after another at start and on a reload: one list for a burst.
    m_relist->setSingleShot(true);
    m_relist->setInterval(200);
    connect(m_relist, &QTimer::timeout, m_backend, &OperatorInterface::listTools);
    connect(m_backend, &OperatorInterface::toolsChanged, m_relist, qOverload<>(&QTimer::start));
    connect(m_backend, &OperatorInterface::toolCallStarted, this, [this](quint64 requestId, qint64 callId) {
        if (requestId == 0 || requestId != m_callRequest)
            return;
        m_callRequest = 0;
        m_status->showNote(tr("Called: call #%1, selected in the log").arg(callId));
        Q_EMIT callStarted(callId);
    });
    connect(m_backend, &OperatorInterface::commandFailed, this, [this](const QString& command, const QString& message) {
        if (command != QStringLiteral("callTool") || m_callRequest == 0)
            return;
        m_callRequest = 0;
        m_status->showProblem(message);
    });

    showTool(ToolInfo());
    updateCount();
    m_backend->listTools();
}

bool ToolsView::selectTool(const QString& name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return false;
    QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    if (!index.isValid()) {
        m_filter->clear();
        index = m_proxy->mapFromSource(m_model->index(row, 0));
    }
    m_table->setCurrentIndex(index);
    m_table->scrollTo(index);
    return true;
}

void ToolsView::onToolsListed(const ToolInfoList& tools)
{
    const QString selected = m_tool.name;
    m_model->setTools(tools);
    updateCount();
    // The same tool stays selected; what the person typed stays when it did not change.
    if (!selected.isEmpty() && !selectTool(selected))
        showTool(ToolInfo());
}

void ToolsView::onCurrentChanged()
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    showTool(current.isValid() ? m_model->tool(current.row()) : ToolInfo());
}

void ToolsView::showTool(const ToolInfo& tool)
{
    if (tool == m_tool && !tool.name.isEmpty())
        return;
    const bool sameTool = tool.name == m_tool.name && tool.inputSchema == m_tool.inputSchema;
    m_tool = tool;
    const bool any = !tool.name.isEmpty();
    m_callButton->setEnabled(any);
    m_tabs->setEnabled(any);
    if (!any) {
        m_titleLabel->setText(tr("No tool selected"));
        m_chips->clear();
        m_description->setText(tr("Select a tool to see its schemas and call it from the console."));
    } else {
        m_titleLabel->setText(tool.title.isEmpty() || tool.title == tool.name
                ? tr("%1 · %2").arg(tool.name, tool.route.toString())
                : tr("%1 (%2) · %3").arg(tool.name, tool.title, tool.route.toString()));
        QStringList chips;
        const QStringList labels = ToolListModel::hintLabels(tool);
        for (const QString& label : labels) {
            const bool risky = label == ToolListModel::tr("destructive") || label == ToolListModel::tr("open world");
            chips.append(chip(label, risky ? QColor(0xc0, 0x1c, 0x28) : QColor(0x26, 0xa2, 0x69), palette()));
        }
        m_chips->setText(chips.join(QLatin1Char(' ')));
        m_chips->setToolTip(ToolListModel::hintsDescription(tool));
        m_description->setText(tool.description.isEmpty() ? tr("(no description)") : tool.description);
    }
    m_inputSchema->setPlainText(pretty(tool.inputSchema, QString()));
    m_outputSchema->setPlainText(pretty(tool.outputSchema, tr("(this tool declares no output schema)")));
    m_annotations->setPlainText(pretty(tool.annotations, QString()));
    if (sameTool && any)
        return; // keep what the person typed

    // A new form for the tool's input schema, in the schema's order.
    const ordered_json schema = tool.inputSchema.isEmpty()
        ? ordered_json::object()
        : BoundedJson::parseOrdered(tool.inputSchema, BoundedJson::Limits::record()).value;
    const QString unsupported = any ? SchemaForm::unsupportedReason(schema) : QString();
    delete m_formArea->takeWidget();
    m_form = nullptr;
    m_json->setPlainText(QStringLiteral("{}"));
    m_status->clearNote();
    if (any && unsupported.isEmpty()) {
        m_form = new SchemaForm(schema);
        m_formArea->setWidget(m_form);
        m_formNote->setText(m_form->isEmpty() ? tr("This tool takes no arguments.")
                : m_form->hasRequiredFields() ? tr("Fields marked * are required.")
                                              : QString());
    } else if (any) {
        m_formNote->setText(tr("A form cannot show this tool's arguments (%1): type them as JSON.").arg(unsupported));
    } else {
        m_formNote->clear();
    }
    m_formNote->setVisible(!m_formNote->text().isEmpty());
    m_jsonToggle->setEnabled(m_form != nullptr);
    {
        const QSignalBlocker blocker(m_jsonToggle);
        m_jsonToggle->setChecked(m_form == nullptr);
    }
    m_callStack->setCurrentWidget(m_form ? static_cast<QWidget*>(m_formArea) : m_json);
}

void ToolsView::setJsonMode(bool jsonMode)
{
    if (jsonMode && m_form) {
        // The JSON text starts from what the form holds, when it holds something valid.
        QString problem;
        if (const auto values = m_form->values(&problem))
            m_json->setJson(*values);
    }
    m_callStack->setCurrentWidget(jsonMode || !m_form ? static_cast<QWidget*>(m_json) : m_formArea);
}

void ToolsView::callCurrentTool()
{
    if (m_tool.name.isEmpty())
        return;
    QString problem;
    const bool fromForm = m_form && !m_jsonToggle->isChecked();
    const std::optional<json> arguments = fromForm ? m_form->values(&problem) : m_json->object(&problem);
    if (!arguments) {
        m_status->showProblem(tr("Not called: %1.").arg(problem));
        return;
    }
    m_status->showPending(tr("Calling %1…").arg(m_tool.name));
    m_callRequest = m_backend->callTool(m_tool.name, QByteArray::fromStdString(arguments->dump()));
}

void ToolsView::keyPressEvent(QKeyEvent* event)
{
    // Return in a field of the form (a line edit, a spin box, a check box, which leave it to their
    // parent) calls, as Return submits a dialog; Return elsewhere (the table) does not.
    const bool returnKey = (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter)
        && (event->modifiers() | Qt::KeypadModifier) == Qt::KeypadModifier;
    QWidget* focus = QApplication::focusWidget();
    if (returnKey && focus && m_formArea->isAncestorOf(focus) && m_callButton->isEnabled()) {
        event->accept();
        callCurrentTool();
        return;
    }
    QWidget::keyPressEvent(event);
}

void ToolsView::updateCount()
{
    const int shown = m_proxy->rowCount();
    const int all = m_model->rowCount();
    const QString count = all == 1 ? tr("1 tool") : tr("%1 tools").arg(all);
    m_count->setText(shown == all ? count : tr("%1 of %2 tools").arg(shown).arg(all));
}
