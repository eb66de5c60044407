#pragma once

// CallInspector: everything about one ToolCall: who asked, the route, timing, the error, and the
// arguments, response and request as pretty-printed, coloured JSON. Shows a value, so it keeps
// showing a call after the call leaves the live log; setCall() with the same id refreshes in place.

#include "tools/toolcall.h"

#include <QWidget>

class JsonHighlighter;
class QLabel;
class QPlainTextEdit;
class QStackedWidget;
class QTabWidget;

class CallInspector : public QWidget
{
    Q_OBJECT
public:
    explicit CallInspector(QWidget* parent = nullptr);

    bool hasCall() const { return m_hasCall; }
    const ToolCall& call() const { return m_call; }

    // Pretty-printed JSON when `bytes` parse, otherwise the raw text.
    static QString prettyJson(const QByteArray& bytes);
    // Texts above this size are shown without colours: highlighting megabytes would stall the GUI.
    static constexpr qsizetype MaxHighlightedBytes = 512 * 1024;

public Q_SLOTS:
    void setCall(const ToolCall& call);
    void clear();

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Pane
    {
        QPlainTextEdit* edit = nullptr;
        JsonHighlighter* highlighter = nullptr;
        QByteArray shown; // what the pane shows, so a refresh with the same bytes keeps the scroll position
    };

    Pane createPane(const QString& objectName);
    void showInPane(Pane& pane, const QByteArray& bytes, bool alreadyPretty, const QString& emptyText);
    void updateHeader();
    void updateHighlighterColours();

    ToolCall m_call;
    bool m_hasCall = false;

    QStackedWidget* m_stack = nullptr;
    QLabel* m_toolLabel = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_routeLabel = nullptr;
    QLabel* m_clientLabel = nullptr;
    QLabel* m_sessionLabel = nullptr;
    QLabel* m_startedLabel = nullptr;
    QLabel* m_durationLabel = nullptr;
    QLabel* m_errorCaption = nullptr;
    QLabel* m_errorLabel = nullptr;
    QTabWidget* m_tabs = nullptr;
    Pane m_arguments;
    Pane m_response;
    Pane m_request;
};
