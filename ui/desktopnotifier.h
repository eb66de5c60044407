#pragma once

// DesktopNotifier: notifications through the desktop's notification service
// (org.freedesktop.Notifications on the session bus), whose notifications carry buttons, so a
// question can be answered from the notification without bringing the window forward. Everything
// is asynchronous (a hung notification daemon never holds the GUI thread): the service's
// capabilities arrive after construction, and a notification's id after show(). Notifications are
// named by a tag of the caller's choosing (an interaction id); a tag shown again replaces its
// notification. Where there is no such service, or it shows no buttons, supportsActions() stays
// false and the caller falls back to the tray's message.

#include <QDBusConnection>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

class DesktopNotifier : public QObject
{
    Q_OBJECT
public:
    struct Action
    {
        QString key; // "default" is what a click on the notification itself invokes
        QString label;
    };

    explicit DesktopNotifier(QObject* parent = nullptr);
    // On another bus (tests run a private one).
    DesktopNotifier(const QDBusConnection& bus, QObject* parent = nullptr);

    // The service answered and lists "actions" among its capabilities.
    bool supportsActions() const { return m_supportsActions; }
    // The service answered at all (notifications without buttons are still shown).
    bool isAvailable() const { return m_available; }

    void show(const QString& tag, const QString& title, const QString& body, const QList<Action>& actions);
    // Withdraws the tag's notification (its question was answered elsewhere); nothing when none.
    void close(const QString& tag);
    // Notifications on the desktop now (the service gave their ids) and not closed since.
    QStringList openTags() const { return m_tagById.values(); }

    static constexpr auto Service = "org.freedesktop.Notifications";
    static constexpr auto Path = "/org/freedesktop/Notifications";

Q_SIGNALS:
    void capabilitiesKnown(bool supportsActions);
    // The person clicked a button (`key`) or the notification itself ("default").
    void actionInvoked(const QString& tag, const QString& key);

private Q_SLOTS:
    // QtDBus connects bus signals to slots only by name (QDBusConnection::connect takes SLOT()).
    void onActionInvoked(uint id, const QString& key);
    void onNotificationClosed(uint id, uint reason);

private:
    void askCapabilities();
    void forget(uint id);
    void sendClose(uint id);

    QDBusConnection m_bus;
    bool m_available = false;
    bool m_supportsActions = false;
    QHash<QString, uint> m_idByTag; // 0 while the service has not given the id yet
    QHash<uint, QString> m_tagById;
    // The newest show() of each tag whose id has not come back yet, to tell a late id from a
    // replaced notification's; an entry leaves when its id arrives.
    QHash<QString, quint64> m_latestShow;
    quint64 m_nextShow = 0;
    QSet<QString> m_closeWhenKnown; // closed before the service gave the id
};
