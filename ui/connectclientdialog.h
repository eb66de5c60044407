#pragma once

// ConnectClientDialog: ready-to-paste ways to point an MCP client at this console (Claude Code, an
// mcpServers JSON entry, MCP Inspector). The token is masked on screen unless the person asks to see
// it; the Copy buttons always copy the real value.

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

    static QString maskToken(const QByteArray& token);
    static QString claudeCodeCommand(const QUrl& serverUrl, const QString& token);
    static QString mcpServersJson(const QUrl& serverUrl, const QString& token);

    bool isTokenShown() const;
    void setTokenShown(bool shown);

private:
    void updateSnippets();

    QUrl m_url;
    QByteArray m_token;
    QCheckBox* m_showToken = nullptr;
    SnippetWidget* m_claudeCode = nullptr;
    SnippetWidget* m_mcpServers = nullptr;
    SnippetWidget* m_inspectorCommand = nullptr;
    SnippetWidget* m_inspectorUrl = nullptr;
    SnippetWidget* m_inspectorHeader = nullptr;
};
