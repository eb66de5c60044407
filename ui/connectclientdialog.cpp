#include "connectclientdialog.h"

#include "snippetwidget.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace {

QLabel* sectionTitle(const QString& text)
{
    auto* label = new QLabel(text);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    return label;
}

QLabel* note(const QString& text)
{
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

SnippetWidget* snippet(const QString& objectName)
{
    auto* widget = new SnippetWidget;
    widget->setObjectName(objectName);
    return widget;
}

} // namespace

ConnectClientDialog::ConnectClientDialog(const QUrl& serverUrl, const QByteArray& token, QWidget* parent)
    : ConnectClientDialog(serverUrl, token, QString(), parent)
{}

ConnectClientDialog::ConnectClientDialog(
    const QUrl& serverUrl, const QByteArray& token, const QString& tokenKeptBy, QWidget* parent)
    : QDialog(parent)
    , m_url(serverUrl)
    , m_token(token)
    , m_tokenKeptBy(token.isEmpty() ? tokenKeptBy : QString())
{
    setWindowTitle(tr("Connect a client"));
    const bool auth = !m_token.isEmpty() || !m_tokenKeptBy.isEmpty();

    auto* layout = new QVBoxLayout(this);
    layout->setSpacing(6);
    auto* intro = note(tr("MCP clients connect to %1 over Streamable HTTP.").arg(m_url.toString()));
    intro->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(intro);
    if (!m_tokenKeptBy.isEmpty()) {
        auto* kept = note(tr("Every request must carry the header \"Authorization: Bearer <token>\", with the token "
                             "kept on the machine %1 runs on (its state directory's \"token\" file, or "
                             "SWITCHBOARD_TOKEN there). The snippets read it from %2: set it, or put the token in "
                             "its place. Treat the token like a password: anyone with it can call tools there.")
                              .arg(m_tokenKeptBy, tokenPlaceholder()));
        kept->setObjectName(QStringLiteral("tokenKeptNote"));
        layout->addWidget(kept);
    } else if (auth) {
        layout->addWidget(note(tr("Every request must carry the header \"Authorization: Bearer <token>\". "
                                  "Treat the token like a password: anyone with it can call tools here.")));
        m_showToken = new QCheckBox(tr("Show token"));
        m_showToken->setObjectName(QStringLiteral("showTokenCheck"));
        connect(m_showToken, &QCheckBox::toggled, this, &ConnectClientDialog::updateSnippets);
        layout->addWidget(m_showToken);
    } else {
        auto* warning = note(tr("No authentication (--no-auth): any program on this machine can call tools."));
        warning->setObjectName(QStringLiteral("noAuthWarning"));
        warning->setStyleSheet(QStringLiteral("QLabel { color: #c01c28; font-weight: bold; }"));
        layout->addWidget(warning);
    }

    layout->addSpacing(8);
    layout->addWidget(sectionTitle(tr("Claude Code")));
    layout->addWidget(note(tr("Run in a terminal:")));
    m_claudeCode = snippet(QStringLiteral("claudeCodeSnippet"));
    layout->addWidget(m_claudeCode);

    layout->addSpacing(8);
    layout->addWidget(sectionTitle(tr("mcpServers JSON")));
    layout->addWidget(note(tr("For clients configured by an mcpServers file (a project's .mcp.json, and others "
                              "that read the same format):")));
    m_mcpServers = snippet(QStringLiteral("mcpServersSnippet"));
    layout->addWidget(m_mcpServers);

    layout->addSpacing(8);
    layout->addWidget(sectionTitle(tr("MCP Inspector")));
    layout->addWidget(note(tr("1. Start it (it opens in your browser):")));
    m_inspectorCommand = snippet(QStringLiteral("inspectorCommandSnippet"));
    layout->addWidget(m_inspectorCommand);
    layout->addSpacing(4);
    layout->addWidget(note(tr("2. Set Transport Type to \"Streamable HTTP\" and the URL to:")));
    m_inspectorUrl = snippet(QStringLiteral("inspectorUrlSnippet"));
    layout->addWidget(m_inspectorUrl);
    layout->addSpacing(4);
    if (auth) {
        layout->addWidget(note(tr("3. Under Authentication, add a header named \"Authorization\" with this value:")));
        m_inspectorHeader = snippet(QStringLiteral("inspectorHeaderSnippet"));
        layout->addWidget(m_inspectorHeader);
        layout->addSpacing(4);
        layout->addWidget(note(tr("4. Press Connect.")));
    } else {
        layout->addWidget(note(tr("3. Press Connect.")));
    }

    layout->addStretch(1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    updateSnippets();
    // The wrapped snippets' height depends on the width: size for the width the dialog opens with.
    constexpr int initialWidth = 760;
    resize(initialWidth, qMax(heightForWidth(initialWidth), minimumSizeHint().height()));
}

QString ConnectClientDialog::tokenPlaceholder()
{
    // Expanded by a shell in double quotes, and by clients that read mcpServers files with ${VAR}.
    return QStringLiteral("${SWITCHBOARD_TOKEN}");
}

QString ConnectClientDialog::maskToken(const QByteArray& token)
{
    // Keep a recognisable prefix such as "sb_" so the person can tell which token it is.
    const qsizetype underscore = token.indexOf('_');
    const QString prefix
        = underscore > 0 && underscore <= 4 ? QString::fromLatin1(token.left(underscore + 1)) : QString();
    return prefix + QStringLiteral("…") + QString(12, QChar(0x2022));
}

QString ConnectClientDialog::claudeCodeCommand(const QUrl& serverUrl, const QString& token)
{
    QString command = QStringLiteral("claude mcp add --transport http switchboard ") + serverUrl.toString();
    if (!token.isEmpty())
        command += QStringLiteral(" --header \"Authorization: Bearer ") + token + QLatin1Char('"');
    return command;
}

QString ConnectClientDialog::mcpServersJson(const QUrl& serverUrl, const QString& token)
{
    // ordered_json keeps the keys in the order people expect to read them.
    nlohmann::ordered_json server = {{"type", "http"}, {"url", serverUrl.toString().toStdString()}};
    if (!token.isEmpty())
        server["headers"] = {{"Authorization", "Bearer " + token.toStdString()}};
    const nlohmann::ordered_json entry = {{"mcpServers", {{"switchboard", server}}}};
    return QString::fromStdString(entry.dump(2));
}

bool ConnectClientDialog::isTokenShown() const
{
    return m_showToken && m_showToken->isChecked();
}

void ConnectClientDialog::setTokenShown(bool shown)
{
    if (m_showToken)
        m_showToken->setChecked(shown);
}

void ConnectClientDialog::updateSnippets()
{
    const QString real = m_tokenKeptBy.isEmpty() ? QString::fromLatin1(m_token) : tokenPlaceholder();
    const QString shown = m_token.isEmpty() || isTokenShown() ? real : maskToken(m_token);
    m_claudeCode->setTexts(claudeCodeCommand(m_url, shown), claudeCodeCommand(m_url, real));
    m_mcpServers->setTexts(mcpServersJson(m_url, shown), mcpServersJson(m_url, real));
    const QString inspector = QStringLiteral("npx @modelcontextprotocol/inspector");
    m_inspectorCommand->setTexts(inspector, inspector);
    m_inspectorUrl->setTexts(m_url.toString(), m_url.toString());
    if (m_inspectorHeader)
        m_inspectorHeader->setTexts(QStringLiteral("Bearer ") + shown, QStringLiteral("Bearer ") + real);
}
