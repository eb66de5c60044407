#include "desktopnotifier.h"

#include <QCoreApplication>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QVariantMap>

namespace {

QString interfaceName()
{
    return QLatin1String(DesktopNotifier::Service);
}

QDBusMessage methodCall(const char* method)
{
    return QDBusMessage::createMethodCall(
        interfaceName(), QLatin1String(DesktopNotifier::Path), interfaceName(), QLatin1String(method));
}

} // namespace

DesktopNotifier::DesktopNotifier(QObject* parent)
    : DesktopNotifier(QDBusConnection::sessionBus(), parent)
{}

DesktopNotifier::DesktopNotifier(const QDBusConnection& bus, QObject* parent)
    : QObject(parent)
    , m_bus(bus)
{
    if (!m_bus.isConnected())
        return;
    const QString path = QLatin1String(Path);
    m_bus.connect(
        QString(), path, interfaceName(), QStringLiteral("ActionInvoked"), this, SLOT(onActionInvoked(uint, QString)));
    m_bus.connect(QString(), path, interfaceName(), QStringLiteral("NotificationClosed"), this,
        SLOT(onNotificationClosed(uint, uint)));
    askCapabilities();
}

void DesktopNotifier::askCapabilities()
{
    auto* watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(methodCall("GetCapabilities")), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher* call) {
        call->deleteLater();
        const QDBusPendingReply<QStringList> reply = *call;
        if (reply.isError())
            return;
        m_available = true;
        m_supportsActions = reply.value().contains(QStringLiteral("actions"));
        Q_EMIT capabilitiesKnown(m_supportsActions);
    });
}

void DesktopNotifier::show(const QString& tag, const QString& title, const QString& body, const QList<Action>& actions)
{
    if (!m_bus.isConnected())
        return;
    QStringList flatActions;
    for (const Action& action : actions)
        flatActions << action.key << action.label;
    const uint replaces = m_idByTag.value(tag, 0);
    QDBusMessage message = methodCall("Notify");
    // A question stays until it is answered or withdrawn: resident, and never timed out by the server.
    const QVariantMap hints{{QStringLiteral("resident"), true},
        {QStringLiteral("urgency"), QVariant::fromValue(uchar(1))},
        {QStringLiteral("desktop-entry"), QStringLiteral("switchboard")}};
    message << QCoreApplication::applicationName() << replaces << QStringLiteral("switchboard") << title << body
            << flatActions << hints << 0;
    m_idByTag.insert(tag, replaces);
    m_closeWhenKnown.remove(tag);
    const quint64 showNumber = ++m_nextShow;
    m_latestShow.insert(tag, showNumber);
    auto* watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(message), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, tag, showNumber](QDBusPendingCallWatcher* call) {
        call->deleteLater();
        const QDBusPendingReply<uint> reply = *call;
        // Shown again (or closed) since: a newer answer owns the tag.
        if (m_latestShow.value(tag) != showNumber)
            return;
        m_latestShow.remove(tag);
        if (reply.isError() || reply.value() == 0) {
            m_idByTag.remove(tag);
            m_closeWhenKnown.remove(tag);
            return;
        }
        const uint id = reply.value();
        if (m_closeWhenKnown.remove(tag)) {
            m_idByTag.remove(tag);
            sendClose(id);
            return;
        }
        const uint replaced = m_idByTag.value(tag);
        if (replaced != 0 && replaced != id)
            m_tagById.remove(replaced);
        m_idByTag.insert(tag, id);
        m_tagById.insert(id, tag);
    });
}

void DesktopNotifier::close(const QString& tag)
{
    const auto it = m_idByTag.constFind(tag);
    if (it == m_idByTag.constEnd())
        return;
    const uint id = it.value();
    // A show() still on its way (a first one, or one replacing the shown notification) brings an id
    // that must be closed as well when it comes.
    if (m_latestShow.contains(tag))
        m_closeWhenKnown.insert(tag);
    if (id == 0)
        return;
    forget(id);
    sendClose(id);
}

void DesktopNotifier::sendClose(uint id)
{
    QDBusMessage closing = methodCall("CloseNotification");
    closing << id;
    m_bus.call(closing, QDBus::NoBlock);
}

void DesktopNotifier::onActionInvoked(uint id, const QString& key)
{
    const QString tag = m_tagById.value(id);
    if (tag.isNull())
        return; // another application's notification
    Q_EMIT actionInvoked(tag, key);
}

void DesktopNotifier::onNotificationClosed(uint id, uint)
{
    forget(id);
}

void DesktopNotifier::forget(uint id)
{
    const QString tag = m_tagById.take(id);
    if (!tag.isNull() && m_idByTag.value(tag) == id)
        m_idByTag.remove(tag);
}
