#pragma once

// ToolsView: the tools Switchboard offers now (the Tools dock): a filterable table of names, routes,
// hints and descriptions; for the selected tool its description, hints as chips, its input and
// output schemas and annotations as pretty JSON, and a call form generated from its input schema
// (SchemaForm; JSON text for schemas a form cannot show, or when the person prefers it). "Call"
// sends the call through OperatorInterface::callTool; the new call's id leaves as callStarted so the
// window can select it in the log. The list follows toolsChanged (a reload, an adapter connecting).

#include "toolinfo.h"

#include <QWidget>

class JsonEditor;
class OperatorInterface;
class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
class QSortFilterProxyModel;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QTimer;
class SchemaForm;
class StatusNote;
class ToolListModel;

class ToolsView : public QWidget
{
    Q_OBJECT
public:
    explicit ToolsView(OperatorInterface* backend, QWidget* parent = nullptr);

    ToolListModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLineEdit* filterEdit() const { return m_filter; }
    // Null while no tool is selected or the tool's schema needs JSON text.
    SchemaForm* form() const { return m_form; }
    JsonEditor* jsonEditor() const { return m_json; }
    QCheckBox* jsonToggle() const { return m_jsonToggle; }
    QPushButton* callButton() const { return m_callButton; }
    QTabWidget* tabs() const { return m_tabs; }
    StatusNote* statusLabel() const { return m_status; }
    // The tool shown (an empty name when none is).
    ToolInfo currentTool() const { return m_tool; }

public Q_SLOTS:
    // Selects the tool by name (clearing a filter that hides it); false when no tool has the name.
    bool selectTool(const QString& name);
    // Calls the selected tool with the form's (or the JSON text's) arguments.
    void callCurrentTool();

Q_SIGNALS:
    // A call made here has started as call `callId`.
    void callStarted(qint64 callId);

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void onToolsListed(const ToolInfoList& tools);
    void onCurrentChanged();
    void showTool(const ToolInfo& tool);
    void setJsonMode(bool json);
    void updateCount();

    OperatorInterface* m_backend;
    ToolListModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLineEdit* m_filter;
    QLabel* m_count;
    QTableView* m_table;
    QLabel* m_titleLabel;
    QLabel* m_chips;
    QLabel* m_description;
    QTabWidget* m_tabs;
    QScrollArea* m_formArea;
    SchemaForm* m_form = nullptr;
    QLabel* m_formNote;
    JsonEditor* m_json;
    QStackedWidget* m_callStack;
    QCheckBox* m_jsonToggle;
    QPushButton* m_callButton;
    StatusNote* m_status;
    QPlainTextEdit* m_inputSchema;
    QPlainTextEdit* m_outputSchema;
    QPlainTextEdit* m_annotations;
    QTimer* m_relist;
    ToolInfo m_tool;
    quint64 m_callRequest = 0;
};
