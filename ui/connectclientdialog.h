#pragma once

// ConnectClientDialog: ready-to-paste ways to point an MCP client at this console (Claude Code, an
// mcpServers JSON entry, MCP Inspector). The token is masked on screen unless the person asks to see
// it; the Copy buttons always copy the real value. A window attached to a backend elsewhere does not
// have the token: the snippets then read it from $SWITCHBOARD_TOKEN and say where it is kept.

#include <QByteArray>
#include <QDialog>
#include <QUrl>

class QCheckBox;
class SnippetWidget;

class ConnectClientDialog : public QDialog
{
    Q_OBJECT
public:
    // An empty token means the server runs without authentication (--no-auth).
    ConnectClientDialog(const QUrl& serverUrl, const QByteArray& token, QWidget* parent = nullptr);
    // With `tokenKeptBy` (the name of an attached backend) and no token: the server needs one, kept on
    // that backend's machine.
    ConnectClientDialog(
        const QUrl& serverUrl, const QByteArray& token, const QString& tokenKeptBy, QWidget* parent = nullptr);

    // What the snippets carry in place of a token this window does not have.
    static QString tokenPlaceholder();

    static QString maskToken(const QByteArray& token);
    static QString claudeCodeCommand(const QUrl& serverUrl, const QString& token);
    static QString mcpServersJson(const QUrl& serverUrl, const QString& token);

    bool isTokenShown() const;
    void setTokenShown(bool shown);

private:
    void updateSnippets();

    QUrl m_url;
    QByteArray m_token;
    QString m_tokenKeptBy;
    QCheckBox* m_showToken = nullptr;
    SnippetWidget* m_claudeCode = nullptr;
    SnippetWidget* m_mcpServers = nullptr;
    SnippetWidget* m_inspectorCommand = nullptr;
    SnippetWidget* m_inspectorUrl = nullptr;
    SnippetWidget* m_inspectorHeader = nullptr;
};
