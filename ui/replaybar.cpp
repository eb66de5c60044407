#include "replaybar.h"

#include "boundedjson.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

#include <nlohmann/json.hpp>

using nlohmann::json;

ReplayBar::ReplayBar(QWidget* parent)
    : QWidget(parent)
    , m_replayOf(new QLabel)
    , m_replay(new QPushButton(tr("Replay")))
    , m_edit(new QPushButton(tr("Edit and resend…")))
{
    m_replayOf->setObjectName(QStringLiteral("replayOfLabel"));
    m_replayOf->setTextFormat(Qt::RichText);
    m_replayOf->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_replayOf->hide();
    m_replay->setObjectName(QStringLiteral("replayButton"));
    m_edit->setObjectName(QStringLiteral("editResendButton"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_replayOf);
    layout->addStretch(1);
    layout->addWidget(m_replay);
    layout->addWidget(m_edit);

    connect(m_replayOf, &QLabel::linkActivated, this, [this] {
        if (m_call.replayOf != 0)
            Q_EMIT showCallRequested(m_call.replayOf);
    });
    connect(m_replay, &QPushButton::clicked, this, [this] {
        if (canReplay())
            Q_EMIT replayRequested(m_call);
    });
    connect(m_edit, &QPushButton::clicked, this, [this] {
        if (canReplay())
            Q_EMIT editAndResendRequested(m_call);
    });
    clear();
}

QString ReplayBar::toolOfRequest(const QByteArray& request, QString* why)
{
    const BoundedJson::Result<json> parsed = BoundedJson::parse(request, BoundedJson::Limits::record());
    const json& value = parsed.value;
    if (!parsed.ok) {
        if (why)
            *why = tr("the request is not whole JSON");
        return {};
    }
    const auto method = value.is_object() ? value.find("method") : value.end();
    if (method == value.end() || *method != "tools/call") {
        if (why)
            *why = tr("only tools/call requests can be sent again");
        return {};
    }
    const json params = value.value("params", json());
    const json name = params.is_object() ? params.value("name", json()) : json();
    if (!name.is_string() || name.get_ref<const std::string&>().empty()) {
        if (why)
            *why = tr("the request names no tool");
        return {};
    }
    return QString::fromStdString(name.get<std::string>());
}

void ReplayBar::setCall(const ToolCall& call, bool preview)
{
    m_call = call;
    QString why;
    m_tool = toolOfRequest(call.request, &why);
    if (m_tool.isEmpty() && preview)
        why = tr("the whole request is on its way from history");
    const bool can = !m_tool.isEmpty();
    m_replay->setEnabled(can);
    m_edit->setEnabled(can);
    m_replay->setToolTip(can ? tr("Call %1 again with the same arguments, through the same permissions; the new call "
                                  "is linked to this one")
                                   .arg(m_tool)
                             : tr("Cannot replay: %1").arg(why));
    m_edit->setToolTip(
        can ? tr("Edit the arguments, then call %1 again").arg(m_tool) : tr("Cannot resend: %1").arg(why));
    if (call.replayOf != 0) {
        m_replayOf->setText(tr("Replay of <a href=\"call:%1\">#%1</a>").arg(call.replayOf));
        m_replayOf->setToolTip(tr("Show call #%1, the call this one sent again").arg(call.replayOf));
    }
    m_replayOf->setVisible(call.replayOf != 0);
}

void ReplayBar::clear()
{
    setCall(ToolCall(), false);
}
