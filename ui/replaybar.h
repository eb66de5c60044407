#pragma once

// ReplayBar: the inspector's line for sending a recorded call again: "Replay" (the same arguments)
// and "Edit and resend…" (the arguments edited first), and for a call that is itself a replay, a
// "Replay of #N" link to the original. Offered for tools/call requests whose whole request is here
// (a preview's cut request waits for the whole call from history). The requests leave as signals;
// the window sends them through OperatorInterface::callTool.

#include "toolcall.h"

#include <QWidget>

class QLabel;
class QPushButton;

class ReplayBar : public QWidget
{
    Q_OBJECT
public:
    explicit ReplayBar(QWidget* parent = nullptr);

    // The tool a tools/call request names (params.name); empty when the text is not a whole
    // tools/call request with a name. `why` says what is missing.
    static QString toolOfRequest(const QByteArray& request, QString* why = nullptr);

    QPushButton* replayButton() const { return m_replay; }
    QPushButton* editButton() const { return m_edit; }
    QLabel* replayOfLabel() const { return m_replayOf; }
    // Whether the call shown can be sent again.
    bool canReplay() const { return !m_tool.isEmpty(); }
    const ToolCall& call() const { return m_call; }
    // The tool the request names (the record's own `tool` may be cut or redacted).
    QString tool() const { return m_tool; }

public Q_SLOTS:
    // `preview`: the call's bodies may be cut (the live log's preview).
    void setCall(const ToolCall& call, bool preview);
    void clear();

Q_SIGNALS:
    void replayRequested(const ToolCall& call);
    void editAndResendRequested(const ToolCall& call);
    void showCallRequested(qint64 callId);

private:
    ToolCall m_call;
    QString m_tool;
    QLabel* m_replayOf;
    QPushButton* m_replay;
    QPushButton* m_edit;
};
