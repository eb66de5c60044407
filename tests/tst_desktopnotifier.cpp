#include <QTest>

#include "desktopnotifier.h"
#include "interactionpanel.h"
#include "pendinginteraction.h"

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QProcess>
#include <QSignalSpy>
#include <QVariantMap>

// The desktop's side of org.freedesktop.Notifications, as the specification has it: what a
// notification daemon (GNOME Shell, KDE Plasma, dunst) does with Notify and CloseNotification, and
// the ActionInvoked signal it sends when a button is clicked. It runs on a private session bus that
// the test starts with the real dbus-daemon; the notifier speaks to it over that bus.
class NotificationDaemon : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    struct Shown
    {
        uint id = 0;
        uint replaces = 0;
        QString summary;
        QString body;
        QStringList actions;
        int timeout = -1;
    };
    explicit NotificationDaemon(QDBusConnection bus, QStringList capabilities)
        : m_bus(std::move(bus))
        , m_capabilities(std::move(capabilities))
    {}
    QList<Shown> shown;
    QList<uint> closed;

    void click(uint id, const QString& key)
    {
        QDBusMessage signal = QDBusMessage::createSignal(QStringLiteral("/org/freedesktop/Notifications"),
            QStringLiteral("org.freedesktop.Notifications"), QStringLiteral("ActionInvoked"));
        signal << id << key;
        QVERIFY(m_bus.send(signal));
    }
    void dismiss(uint id)
    {
        QDBusMessage signal = QDBusMessage::createSignal(QStringLiteral("/org/freedesktop/Notifications"),
            QStringLiteral("org.freedesktop.Notifications"), QStringLiteral("NotificationClosed"));
        signal << id << uint(2);
        QVERIFY(m_bus.send(signal));
    }

public Q_SLOTS:
    QStringList GetCapabilities() { return m_capabilities; }
    uint Notify(const QString&, uint replacesId, const QString&, const QString& summary, const QString& body,
        const QStringList& actions, const QVariantMap&, int expireTimeout)
    {
        const uint id = replacesId != 0 ? replacesId : ++m_lastId;
        shown.append(Shown{id, replacesId, summary, body, actions, expireTimeout});
        return id;
    }
    void CloseNotification(uint id) { closed.append(id); }

private:
    QDBusConnection m_bus;
    QStringList m_capabilities;
    uint m_lastId = 0;
};

class TestDesktopNotifier : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void buttonsAreOfferedAndTheClickComesBack();
    void aClosedOrDismissedNotificationAnswersNothing();
    void withoutButtonsTheCapabilityIsFalse();
    void anApprovalIsAnsweredFromItsNotification();
    void theNotificationLeavesWithItsQuestion();

private:
    // The daemon on its own connection, registered as the desktop's notification service.
    NotificationDaemon* startDaemon(const QStringList& capabilities);
    QDBusConnection clientBus();

    QProcess m_busDaemon;
    QString m_address;
    int m_connections = 0;
    QString m_daemonConnection;
    std::unique_ptr<NotificationDaemon> m_daemon;
};

void TestDesktopNotifier::initTestCase()
{
    m_busDaemon.start(QStringLiteral("dbus-daemon"),
        {QStringLiteral("--session"), QStringLiteral("--nofork"), QStringLiteral("--print-address=1")});
    QVERIFY2(m_busDaemon.waitForStarted(10'000), "dbus-daemon (package dbus-daemon) did not start");
    QTRY_VERIFY_WITH_TIMEOUT(m_busDaemon.canReadLine(), 20'000);
    m_address = QString::fromUtf8(m_busDaemon.readLine()).trimmed();
    QVERIFY2(m_address.startsWith(QLatin1String("unix:")), qPrintable(m_address));
}

void TestDesktopNotifier::cleanupTestCase()
{
    m_busDaemon.terminate();
    m_busDaemon.waitForFinished(10'000);
}

void TestDesktopNotifier::init() {}

void TestDesktopNotifier::cleanup()
{
    if (!m_daemonConnection.isEmpty()) {
        QDBusConnection bus(m_daemonConnection);
        bus.unregisterObject(QStringLiteral("/org/freedesktop/Notifications"));
        bus.unregisterService(QStringLiteral("org.freedesktop.Notifications"));
        m_daemon.reset();
        QDBusConnection::disconnectFromBus(m_daemonConnection);
        m_daemonConnection.clear();
    }
}

QDBusConnection TestDesktopNotifier::clientBus()
{
    const QDBusConnection bus
        = QDBusConnection::connectToBus(m_address, QStringLiteral("client-%1").arg(++m_connections));
    return bus;
}

NotificationDaemon* TestDesktopNotifier::startDaemon(const QStringList& capabilities)
{
    m_daemonConnection = QStringLiteral("daemon-%1").arg(++m_connections);
    QDBusConnection bus = QDBusConnection::connectToBus(m_address, m_daemonConnection);
    if (!bus.isConnected())
        return nullptr;
    m_daemon = std::make_unique<NotificationDaemon>(bus, capabilities);
    if (!bus.registerObject(
            QStringLiteral("/org/freedesktop/Notifications"), m_daemon.get(), QDBusConnection::ExportAllSlots)
        || !bus.registerService(QStringLiteral("org.freedesktop.Notifications")))
        return nullptr;
    return m_daemon.get();
}

void TestDesktopNotifier::buttonsAreOfferedAndTheClickComesBack()
{
    NotificationDaemon* daemon = startDaemon({QStringLiteral("body"), QStringLiteral("actions")});
    QVERIFY(daemon);
    DesktopNotifier notifier(clientBus());
    QTRY_VERIFY_WITH_TIMEOUT(notifier.supportsActions(), 10'000);

    notifier.show(QStringLiteral("ia-1"), QStringLiteral("A question"), QStringLiteral("git_push from claude"),
        {{QStringLiteral("default"), QStringLiteral("Show")},
            {QStringLiteral("allow_once"), QStringLiteral("Allow once")}});
    QTRY_COMPARE_WITH_TIMEOUT(daemon->shown.size(), 1, 10'000);
    const NotificationDaemon::Shown first = daemon->shown.first();
    QCOMPARE(first.summary, QStringLiteral("A question"));
    QCOMPARE(first.actions,
        (QStringList{QStringLiteral("default"), QStringLiteral("Show"), QStringLiteral("allow_once"),
            QStringLiteral("Allow once")}));
    QCOMPARE(first.timeout, 0); // a question does not time out on the desktop
    QTRY_COMPARE_WITH_TIMEOUT(notifier.openTags(), QStringList{QStringLiteral("ia-1")}, 10'000);

    QSignalSpy invoked(&notifier, &DesktopNotifier::actionInvoked);
    daemon->click(first.id, QStringLiteral("allow_once"));
    QVERIFY(invoked.wait(10'000));
    QCOMPARE(invoked.first().at(0).toString(), QStringLiteral("ia-1"));
    QCOMPARE(invoked.first().at(1).toString(), QStringLiteral("allow_once"));

    // Another application's notification clicked: not ours, nothing comes out.
    daemon->click(first.id + 100, QStringLiteral("allow_once"));
    // Shown again under the same tag: the daemon is asked to replace it, not to add one.
    notifier.show(QStringLiteral("ia-1"), QStringLiteral("Two questions"), QString(), {});
    QTRY_COMPARE_WITH_TIMEOUT(daemon->shown.size(), 2, 10'000);
    QCOMPARE(daemon->shown.at(1).replaces, first.id);
    QCOMPARE(invoked.size(), 1);
}

void TestDesktopNotifier::aClosedOrDismissedNotificationAnswersNothing()
{
    NotificationDaemon* daemon = startDaemon({QStringLiteral("actions")});
    QVERIFY(daemon);
    DesktopNotifier notifier(clientBus());
    QTRY_VERIFY_WITH_TIMEOUT(notifier.supportsActions(), 10'000);
    QSignalSpy invoked(&notifier, &DesktopNotifier::actionInvoked);

    // Closed before the daemon even gave its id: closed as soon as the id arrives.
    notifier.show(
        QStringLiteral("ia-early"), QStringLiteral("q"), QString(), {{QStringLiteral("deny"), QStringLiteral("Deny")}});
    notifier.close(QStringLiteral("ia-early"));
    QTRY_COMPARE_WITH_TIMEOUT(daemon->closed.size(), 1, 10'000);
    QCOMPARE(daemon->closed.first(), daemon->shown.first().id);
    QVERIFY(notifier.openTags().isEmpty());

    notifier.show(
        QStringLiteral("ia-2"), QStringLiteral("q"), QString(), {{QStringLiteral("deny"), QStringLiteral("Deny")}});
    QTRY_COMPARE_WITH_TIMEOUT(notifier.openTags(), QStringList{QStringLiteral("ia-2")}, 10'000);
    const uint id = daemon->shown.last().id;
    daemon->dismiss(id);
    QTRY_VERIFY_WITH_TIMEOUT(notifier.openTags().isEmpty(), 10'000);
    daemon->click(id, QStringLiteral("deny")); // a daemon that sends a click after closing

    // Closed while a replacement is on its way: the replacement's id is closed too when it comes.
    notifier.show(QStringLiteral("ia-4"), QStringLiteral("q"), QString(), {});
    QTRY_COMPARE_WITH_TIMEOUT(notifier.openTags(), QStringList{QStringLiteral("ia-4")}, 10'000);
    const qsizetype closedBefore = daemon->closed.size();
    notifier.show(QStringLiteral("ia-4"), QStringLiteral("q again"), QString(), {});
    notifier.close(QStringLiteral("ia-4"));
    QTRY_COMPARE_WITH_TIMEOUT(daemon->closed.size(), closedBefore + 2, 10'000);
    notifier.show(QStringLiteral("ia-3"), QStringLiteral("q"), QString(), {});
    QTRY_COMPARE_WITH_TIMEOUT(daemon->shown.size(), 5, 10'000);
    // The daemon answers in order: once the notifier knows ia-3's id, it has heard all about ia-4.
    QTRY_COMPARE_WITH_TIMEOUT(notifier.openTags(), QStringList{QStringLiteral("ia-3")}, 10'000);
    QCOMPARE(invoked.size(), 0);
}

void TestDesktopNotifier::withoutButtonsTheCapabilityIsFalse()
{
    NotificationDaemon* daemon = startDaemon({QStringLiteral("body")});
    QVERIFY(daemon);
    DesktopNotifier notifier(clientBus());
    QSignalSpy known(&notifier, &DesktopNotifier::capabilitiesKnown);
    QVERIFY(known.wait(10'000));
    QCOMPARE(known.first().at(0).toBool(), false);
    QVERIFY(notifier.isAvailable());
    QVERIFY(!notifier.supportsActions());

    // No service on the bus at all: neither, and nothing hangs.
    cleanup();
    DesktopNotifier alone(clientBus());
    // Its question about the capabilities is answered (with an error): it deletes the pending call.
    QTRY_VERIFY_WITH_TIMEOUT(alone.findChildren<QDBusPendingCallWatcher*>().isEmpty(), 10'000);
    QVERIFY(!alone.isAvailable());
}

namespace {

PendingInteraction approval(const QString& id)
{
    PendingInteraction interaction;
    interaction.id = id;
    interaction.kind = InteractionKind::Approval;
    interaction.render = RenderHint::Approval;
    interaction.tool = QStringLiteral("git_push");
    interaction.arguments = R"({"path":"/srv/repo"})";
    interaction.clientName = QStringLiteral("claude-code");
    interaction.sessionId = QStringLiteral("s-1");
    interaction.callId = 7;
    interaction.waiting = true;
    return interaction;
}

} // namespace

// The window is in the background (never shown here): a question's notification carries Allow once
// and Deny, and clicking one answers the question as the panel's buttons would.
void TestDesktopNotifier::anApprovalIsAnsweredFromItsNotification()
{
    NotificationDaemon* daemon = startDaemon({QStringLiteral("actions")});
    QVERIFY(daemon);
    InteractionPanel panel;
    auto* notifier = new DesktopNotifier(clientBus());
    panel.setDesktopNotifier(notifier);
    QTRY_VERIFY_WITH_TIMEOUT(notifier->supportsActions(), 10'000);
    QSignalSpy answers(&panel, &InteractionPanel::answerRequested);

    panel.addInteraction(approval(QStringLiteral("ia-approve")));
    QTRY_COMPARE_WITH_TIMEOUT(daemon->shown.size(), 1, 10'000);
    const QStringList actions = daemon->shown.first().actions;
    QVERIFY2(actions.contains(QStringLiteral("allow_once")) && actions.contains(QStringLiteral("Allow once"))
            && actions.contains(QStringLiteral("deny")),
        qPrintable(actions.join(QLatin1Char(','))));
    QVERIFY(daemon->shown.first().body.contains(QStringLiteral("claude-code")));
    QTRY_VERIFY_WITH_TIMEOUT(!notifier->openTags().isEmpty(), 10'000);

    daemon->click(daemon->shown.first().id, QStringLiteral("deny"));
    QVERIFY(answers.wait(10'000));
    QCOMPARE(answers.first().at(0).toString(), QStringLiteral("ia-approve"));
    const auto answer = answers.first().at(1).value<InteractionAnswer>();
    QCOMPARE(answer.decision, InteractionAnswer::Decision::Deny);
    QVERIFY(!answer.reason.isEmpty());

    panel.addInteraction(approval(QStringLiteral("ia-approve-2")));
    QTRY_COMPARE_WITH_TIMEOUT(daemon->shown.size(), 2, 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(notifier->openTags().size(), 2, 10'000);
    daemon->click(daemon->shown.last().id, QStringLiteral("allow_once"));
    QTRY_COMPARE_WITH_TIMEOUT(answers.size(), 2, 10'000);
    QCOMPARE(answers.last().at(0).toString(), QStringLiteral("ia-approve-2"));
    QCOMPARE(answers.last().at(1).value<InteractionAnswer>().decision, InteractionAnswer::Decision::AllowOnce);
}

// Answered in the window (or elsewhere): its notification is withdrawn, and a late click on it
// answers nothing.
void TestDesktopNotifier::theNotificationLeavesWithItsQuestion()
{
    NotificationDaemon* daemon = startDaemon({QStringLiteral("actions")});
    QVERIFY(daemon);
    InteractionPanel panel;
    auto* notifier = new DesktopNotifier(clientBus());
    panel.setDesktopNotifier(notifier);
    QTRY_VERIFY_WITH_TIMEOUT(notifier->supportsActions(), 10'000);
    QSignalSpy answers(&panel, &InteractionPanel::answerRequested);

    panel.addInteraction(approval(QStringLiteral("ia-gone")));
    QTRY_COMPARE_WITH_TIMEOUT(notifier->openTags().size(), 1, 10'000);
    const uint id = daemon->shown.first().id;
    panel.resolveInteraction(QStringLiteral("ia-gone"), InteractionOutcome::Answered);
    QTRY_COMPARE_WITH_TIMEOUT(daemon->closed, QList<uint>{id}, 10'000);
    daemon->click(id, QStringLiteral("allow_once"));
    panel.addInteraction(approval(QStringLiteral("ia-next")));
    QTRY_COMPARE_WITH_TIMEOUT(daemon->shown.size(), 2, 10'000);
    QCOMPARE(answers.size(), 0);
}

QTEST_MAIN(TestDesktopNotifier)
#include "tst_desktopnotifier.moc"
