// The question widgets, each built from a PendingInteraction value and driven with mouse clicks
// and typing: every button produces exactly the answer the backend expects (well-formed client
// outputs from ClientTool), the API key is masked and leaves only through apiKeyEntered, and forms
// are generated from a schema with every field type.

#include "approvalwidget.h"
#include "choicewidget.h"
#include "clientanswer.h"
#include "confirmwidget.h"
#include "connectwidget.h"
#include "formwidget.h"
#include "jsonhighlighter.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QToolButton>

#include <memory>

using nlohmann::json;

Q_DECLARE_METATYPE(InteractionAnswer::Decision)

namespace {

PendingInteraction approval()
{
    PendingInteraction interaction;
    interaction.id = QStringLiteral("ia-approval");
    interaction.kind = InteractionKind::Approval;
    interaction.render = RenderHint::Approval;
    interaction.tool = QStringLiteral("deploy");
    interaction.toolTitle = QStringLiteral("Deploy a preview");
    interaction.route = ToolRoute{RouteKind::Command, {}};
    interaction.arguments = R"({"env":"staging","tags":["web","preview"],"retries":2})";
    interaction.renderSpec = QByteArray::fromStdString(json{{"render", "approval"},
        {"rule", "permissions.tools.deploy: ask (/etc/switchboard.yaml)"}, {"description", "Deploys a preview."},
        {"annotations", {{"destructiveHint", true}, {"openWorldHint", true}}}}
                                                           .dump());
    interaction.sessionId = QStringLiteral("57ADp8YBSchz4rtIXszunZOhM1bL");
    interaction.clientName = QStringLiteral("claude-code");
    interaction.clientVersion = QStringLiteral("2.0.31");
    interaction.callId = 42;
    interaction.earlierCallIds = {17, 23};
    interaction.waiting = true;
    interaction.createdAtMs = 1'700'000'000'000;
    interaction.key = QStringLiteral("deploy\n{}");
    return interaction;
}

PendingInteraction clientTool(const QString& id, const QString& render, const json& spec)
{
    PendingInteraction interaction = approval();
    interaction.id = id;
    interaction.kind = InteractionKind::ClientTool;
    interaction.render = *renderHintFromName(render);
    interaction.tool
        = render == QStringLiteral("connect") ? QStringLiteral("request_connection") : QStringLiteral("ask");
    interaction.toolTitle = QString();
    interaction.route = ToolRoute::client();
    interaction.arguments = "{}";
    interaction.earlierCallIds.clear();
    interaction.renderSpec = QByteArray::fromStdString(spec.dump());
    return interaction;
}

PendingInteraction connectQuestion(const QString& kind, bool oauthAvailable)
{
    return clientTool(QStringLiteral("ia-connect"), QStringLiteral("connect"),
        json{{"render", "connect"}, {"provider", "github"}, {"kind", kind.toStdString()},
            {"scopes", {"repo", "read:user"}}, {"reason", "Open the release issues"},
            {"oauthAvailable", oauthAvailable}});
}

template<typename T>
T* child(QWidget* parent, const char* name)
{
    T* found = parent->findChild<T*>(QLatin1String(name));
    if (!found)
        qWarning("no child named %s", name);
    return found;
}

// The one answer the widget sent, as the backend receives it.
InteractionAnswer takeAnswer(QSignalSpy& spy, const QString& id)
{
    if (spy.size() != 1) {
        qWarning("expected one answer, got %lld", qlonglong(spy.size()));
        return {};
    }
    const QList<QVariant> arguments = spy.takeFirst();
    if (arguments.at(0).toString() != id)
        qWarning("answer for %s, expected %s", qPrintable(arguments.at(0).toString()), qPrintable(id));
    return arguments.at(1).value<InteractionAnswer>();
}

QByteArray compact(const json& value)
{
    return QByteArray::fromStdString(value.dump());
}

} // namespace

class TestInteractionWidgets : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<InteractionAnswer>(); }

    void approvalShowsWhoAsksWhatAndWhy()
    {
        ApprovalWidget widget(approval());
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QCOMPARE(child<QLabel>(&widget, "kindLabel")->text(), QStringLiteral("Approval"));
        QCOMPARE(child<QLabel>(&widget, "toolLabel")->text(), QStringLiteral("Deploy a preview"));
        QCOMPARE(child<QLabel>(&widget, "toolNameLabel")->text(), QStringLiteral("deploy"));
        QCOMPARE(child<QLabel>(&widget, "clientLabel")->text(), QStringLiteral("claude-code 2.0.31"));
        QCOMPARE(child<QLabel>(&widget, "sessionLabel")->text(), QStringLiteral("57ADp8YB…"));
        QCOMPARE(child<QLabel>(&widget, "sessionLabel")->toolTip(), approval().sessionId);
        QVERIFY(child<QLabel>(&widget, "waitingLabel")->text().startsWith(QLatin1String("waiting (hold)")));
        QCOMPARE(child<QLabel>(&widget, "ruleLabel")->text(),
            QStringLiteral("permissions.tools.deploy: ask (/etc/switchboard.yaml)"));
        QCOMPARE(child<QLabel>(&widget, "descriptionLabel")->text(), QStringLiteral("Deploys a preview."));
        QVERIFY(child<QLabel>(&widget, "hintsLabel")->text().contains(QLatin1String("may delete or overwrite data")));

        // The arguments pretty-printed in the client's order, and coloured.
        auto* arguments = child<QPlainTextEdit>(&widget, "argumentsText");
        QCOMPARE(arguments->toPlainText(),
            QStringLiteral("{\n  \"env\": \"staging\",\n  \"tags\": [\n    \"web\",\n    \"preview\"\n  ],\n  "
                           "\"retries\": 2\n}"));
        QVERIFY(arguments->isReadOnly());
        QVERIFY(arguments->document()->findChild<JsonHighlighter*>());
        const QTextBlock second = arguments->document()->findBlockByNumber(1);
        QVERIFY(!second.layout()->formats().isEmpty());
    }

    void approvalButtons_data()
    {
        QTest::addColumn<QString>("button");
        QTest::addColumn<InteractionAnswer::Decision>("decision");
        QTest::addColumn<QString>("reason");
        QTest::newRow("allow once") << QStringLiteral("allowOnceButton") << InteractionAnswer::Decision::AllowOnce
                                    << QString();
        QTest::newRow("allow for this session")
            << QStringLiteral("allowSessionButton") << InteractionAnswer::Decision::AllowForSession << QString();
        QTest::newRow("always allow") << QStringLiteral("alwaysAllowButton") << InteractionAnswer::Decision::AlwaysAllow
                                      << QString();
        QTest::newRow("deny") << QStringLiteral("denyButton") << InteractionAnswer::Decision::Deny
                              << QStringLiteral("not on a Friday");
    }

    void approvalButtons()
    {
        QFETCH(QString, button);
        QFETCH(InteractionAnswer::Decision, decision);
        QFETCH(QString, reason);

        ApprovalWidget widget(approval());
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        // A reason typed before an allow is not sent: it belongs to a deny.
        QTest::keyClicks(child<QLineEdit>(&widget, "reasonEdit"), QStringLiteral("not on a Friday"));
        QTest::mouseClick(widget.findChild<QPushButton*>(button), Qt::LeftButton);
        if (decision == InteractionAnswer::Decision::AlwaysAllow) {
            // Always allow asks for a scope first; Return takes the narrowest.
            QTRY_VERIFY_WITH_TIMEOUT(QApplication::activePopupWidget(), 10'000);
            QTest::keyClick(QApplication::activePopupWidget(), Qt::Key_Return);
        }
        if (decision == InteractionAnswer::Decision::AlwaysAllow
            || decision == InteractionAnswer::Decision::AllowForSession) {
            // A grant wider than once takes a second step: nothing is sent until Grant.
            auto* confirmation = child<QWidget>(&widget, "grantConfirmation");
            QTRY_VERIFY_WITH_TIMEOUT(confirmation->isVisible(), 10'000);
            QCOMPARE(answered.size(), 0);
            QTest::mouseClick(child<QPushButton>(&widget, "confirmGrantButton"), Qt::LeftButton);
        }

        const InteractionAnswer answer = takeAnswer(answered, QStringLiteral("ia-approval"));
        QCOMPARE(answer.decision, decision);
        QCOMPARE(answer.reason, reason);
        QVERIFY(answer.output.isEmpty());
        QVERIFY(widget.isSending());
        QVERIFY(!child<QPushButton>(&widget, "allowOnceButton")->isEnabled());
    }

    void returnInTheReasonDenies()
    {
        ApprovalWidget widget(approval());
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        auto* reason = child<QLineEdit>(&widget, "reasonEdit");
        QTest::keyClicks(reason, QStringLiteral("  wrong branch "));
        QTest::keyClick(reason, Qt::Key_Return);
        const InteractionAnswer answer = takeAnswer(answered, QStringLiteral("ia-approval"));
        QCOMPARE(answer.decision, InteractionAnswer::Decision::Deny);
        QCOMPARE(answer.reason, QStringLiteral("wrong branch"));
    }

    void aRefusedAnswerIsShownAndCanBeRetried()
    {
        ApprovalWidget widget(approval());
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(child<QPushButton>(&widget, "allowOnceButton"), Qt::LeftButton);
        QCOMPARE(answered.size(), 1);
        QVERIFY(child<QLabel>(&widget, "sendingLabel")->isVisible());

        widget.showAnswerFailed(QStringLiteral("this question is no longer pending"));
        QVERIFY(!widget.isSending());
        QVERIFY(child<QLabel>(&widget, "errorLabel")->isVisible());
        QCOMPARE(widget.errorText(), QStringLiteral("The answer was not accepted: this question is no longer pending"));
        QVERIFY(child<QPushButton>(&widget, "allowOnceButton")->isEnabled());
        QTest::mouseClick(child<QPushButton>(&widget, "denyButton"), Qt::LeftButton);
        QCOMPARE(answered.size(), 2);
        QVERIFY(widget.errorText().isEmpty());
    }

    // A card measured before it ever shows (as the window lays itself out for the questions to
    // come) is given that height at that width: its arguments and every answer are whole in it.
    // Before, the measure was the unshown card's minimum, with its answers on one row however
    // narrow: at 1.5x the window grew 26 pixels past a 720-pixel screen when a risky approval came.
    void aCardMeasuredBeforeItShowsFitsWhenShown_data()
    {
        QTest::addColumn<int>("width");
        for (const int width : {0, 260, 320, 480, 900})
            QTest::newRow(qPrintable(width ? QString::number(width) : QStringLiteral("least"))) << width;
    }
    void aCardMeasuredBeforeItShowsFitsWhenShown()
    {
        QFETCH(int, width);
        PendingInteraction question = approval();
        question.deadlineMs = QDateTime::currentMSecsSinceEpoch() + 600'000; // a countdown among the answers
        ApprovalWidget measured(question);
        measured.ensurePolished();
        const int cardWidth = std::max(width, measured.minimumSizeHint().width());
        const int height = measured.leastHeightAt(cardWidth);

        ApprovalWidget shown(question);
        shown.resize(cardWidth, height);
        shown.show();
        QVERIFY(QTest::qWaitForWindowExposed(&shown));
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), QSize(cardWidth, height), 2000);
        QTest::qWait(20); // what the resize posted (the answers' rows)
        QList<QWidget*> asked = {child<QWidget>(&shown, "argumentsText")};
        for (QPushButton* button : child<QWidget>(&shown, "answerButtons")->findChildren<QPushButton*>()) {
            if (button->isVisible())
                asked << button;
        }
        QVERIFY(asked.size() >= 5);
        for (QWidget* widget : std::as_const(asked)) {
            const QRect inCard(widget->mapTo(&shown, QPoint(0, 0)), widget->size());
            QVERIFY2(shown.rect().contains(inCard) && widget->visibleRegion().boundingRect() == widget->rect(),
                qPrintable(QStringLiteral("%1 at %2,%3 %4x%5 in a card %6x%7")
                               .arg(widget->objectName())
                               .arg(inCard.x())
                               .arg(inCard.y())
                               .arg(inCard.width())
                               .arg(inCard.height())
                               .arg(cardWidth)
                               .arg(height)));
        }
    }

    // A card narrower than its header's row (a short window's dock at its least width) shows the
    // header as one line, whole; the question area never scrolls sideways. Before, a horizontal
    // scroll bar covered the header's only line but a sliver, seen at 1.5x on a 1366x768 screen.
    void aNarrowCardShowsItsHeaderAsOneLine()
    {
        ApprovalWidget card(approval());
        card.resize(800, 600);
        card.show();
        QVERIFY(QTest::qWaitForWindowExposed(&card));
        auto* header = child<QWidget>(&card, "questionHeader");
        QTRY_VERIFY(header->isVisible());
        const int least = card.minimumSizeHint().width();
        QVERIFY2(least < header->minimumSizeHint().width(),
            qPrintable(QStringLiteral("the card's least width %1, its header's row %2")
                           .arg(least)
                           .arg(header->minimumSizeHint().width())));
        card.resize(least, 600);
        auto* area = child<QAbstractScrollArea>(&card, "questionArea");
        auto* compact = child<QWidget>(&card, "compactToolLabel");
        QTRY_VERIFY(compact->isVisible());
        QVERIFY(header->isHidden());
        QVERIFY(!area->horizontalScrollBar()->isVisible());
        QCOMPARE(compact->visibleRegion().boundingRect(), compact->rect());
        // Wide enough, the whole header again.
        card.resize(header->minimumSizeHint().width() + 60, 600);
        QTRY_VERIFY(header->isVisible());
        QVERIFY(!compact->isVisible());
    }

    void showCallLinksToTheCallAndEarlierOnes()
    {
        ApprovalWidget widget(approval());
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QSignalSpy requested(&widget, &InteractionWidget::showCallRequested);
        auto* showCall = child<QPushButton>(&widget, "showCallButton");
        QCOMPARE(showCall->text(), QStringLiteral("S&how call #42"));
        QTest::mouseClick(showCall, Qt::LeftButton);
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.takeFirst().at(0).toLongLong(), qint64(42));

        auto* earlier = child<QLabel>(&widget, "earlierCallsLabel");
        QVERIFY(earlier->isVisible());
        QVERIFY(earlier->text().contains(QLatin1String("href=\"call:17\"")));
        QVERIFY(earlier->text().contains(QLatin1String("href=\"call:23\"")));
        Q_EMIT earlier->linkActivated(QStringLiteral("call:23"));
        QCOMPARE(requested.takeFirst().at(0).toLongLong(), qint64(23));

        // A retried call re-attached: the header follows, what the person typed stays.
        QTest::keyClicks(child<QLineEdit>(&widget, "reasonEdit"), QStringLiteral("draft"));
        PendingInteraction retried = approval();
        retried.callId = 50;
        retried.earlierCallIds = {17, 23, 42};
        retried.waiting = false;
        widget.setInteraction(retried);
        QCOMPARE(showCall->text(), QStringLiteral("S&how call #50"));
        QVERIFY(earlier->text().contains(QLatin1String("href=\"call:42\"")));
        QVERIFY(child<QLabel>(&widget, "waitingLabel")->text().startsWith(QLatin1String("no call waiting")));
        QCOMPARE(child<QLineEdit>(&widget, "reasonEdit")->text(), QStringLiteral("draft"));
    }

    void connectWithAnApiKey()
    {
        ConnectWidget widget(connectQuestion(QStringLiteral("api_key"), false));
        widget.setSecretStorage(QStringLiteral("owner-only file /tmp/x/secrets.json (0600), not encrypted"));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QCOMPARE(child<QLabel>(&widget, "kindLabel")->text(), QStringLiteral("Connect"));
        QCOMPARE(child<QLabel>(&widget, "providerLabel")->text(), QStringLiteral("github"));
        QCOMPARE(child<QLabel>(&widget, "reasonLabel")->text(), QStringLiteral("Open the release issues"));
        QCOMPARE(child<QLabel>(&widget, "scopesLabel")->text(), QStringLiteral("repo, read:user"));
        QCOMPARE(child<QLabel>(&widget, "secretStorageLabel")->text(),
            QStringLiteral("Saved to: owner-only file /tmp/x/secrets.json (0600), not encrypted"));
        QVERIFY(child<QLabel>(&widget, "secretStorageLabel")->isVisible());
        QVERIFY(!widget.findChild<QPushButton*>(QStringLiteral("signInButton")));

        auto* key = child<QLineEdit>(&widget, "apiKeyEdit");
        QCOMPARE(key->echoMode(), QLineEdit::Password);
        auto* connectButton = child<QPushButton>(&widget, "connectButton");
        QVERIFY(!connectButton->isEnabled());

        QSignalSpy entered(&widget, &ConnectWidget::apiKeyEntered);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::keyClicks(child<QLineEdit>(&widget, "accountEdit"), QStringLiteral("octocat"));
        QTest::keyClicks(key, QStringLiteral("ghp_secret123 "));
        QVERIFY(connectButton->isEnabled());
        QTest::mouseClick(connectButton, Qt::LeftButton);

        QCOMPARE(entered.size(), 1);
        const QList<QVariant> arguments = entered.takeFirst();
        QCOMPARE(arguments.at(0).toString(), QStringLiteral("ia-connect"));
        QCOMPARE(arguments.at(1).toString(), QStringLiteral("github"));
        QCOMPARE(arguments.at(2).toString(), QStringLiteral("octocat"));
        QCOMPARE(arguments.at(3).toByteArray(), QByteArray("ghp_secret123"));
        // The key is gone from the field at once, and the widget itself never answers with it.
        QVERIFY(key->text().isEmpty());
        QCOMPARE(answered.size(), 0);
        QVERIFY(child<QLabel>(&widget, "connectProgressLabel")->isVisible());
        QVERIFY(!child<QGroupBox>(&widget, "apiKeyBox")->isEnabled());

        // No keychain (say): the message shows, and the person can try again.
        widget.showConnectFailed(QStringLiteral("no keychain is reachable"));
        QCOMPARE(widget.errorText(), QStringLiteral("no keychain is reachable"));
        QVERIFY(child<QGroupBox>(&widget, "apiKeyBox")->isEnabled());
        QVERIFY(!connectButton->isEnabled()); // the field is empty
        QTest::keyClicks(key, QStringLiteral("second"));
        QTest::keyClick(key, Qt::Key_Return);
        QCOMPARE(entered.size(), 1);
        QCOMPARE(entered.takeFirst().at(3).toByteArray(), QByteArray("second"));
        QVERIFY(widget.errorText().isEmpty());
    }

    void connectRefusals_data()
    {
        QTest::addColumn<QString>("button");
        QTest::addColumn<QString>("reason");
        QTest::newRow("decline") << QStringLiteral("declineButton") << QStringLiteral("declined");
        QTest::newRow("cancel") << QStringLiteral("cancelButton") << QStringLiteral("cancelled");
    }

    void connectRefusals()
    {
        QFETCH(QString, button);
        QFETCH(QString, reason);
        ConnectWidget widget(connectQuestion(QStringLiteral("either"), false));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(widget.findChild<QPushButton*>(button), Qt::LeftButton);
        const InteractionAnswer answer = takeAnswer(answered, QStringLiteral("ia-connect"));
        QCOMPARE(answer.decision, InteractionAnswer::Decision::Respond);
        QCOMPARE(answer.output, compact(ClientAnswer::notConnected(reason)));
        QVERIFY(
            json::parse(answer.output.toStdString()) == (json{{"connected", false}, {"reason", reason.toStdString()}}));
    }

    void connectWithOAuth()
    {
        ConnectWidget widget(connectQuestion(QStringLiteral("either"), true));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QVERIFY(widget.offersOAuth());
        QVERIFY(widget.offersApiKey());
        auto* signIn = child<QPushButton>(&widget, "signInButton");
        QCOMPARE(signIn->text(), QStringLiteral("Sign &in with github"));
        QVERIFY(!child<QLabel>(&widget, "waitingForBrowserLabel")->isVisible());

        QSignalSpy requested(&widget, &ConnectWidget::oauthRequested);
        QSignalSpy cancelled(&widget, &ConnectWidget::oauthCancelled);
        QTest::mouseClick(signIn, Qt::LeftButton);
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.at(0).at(0).toString(), QStringLiteral("ia-connect"));
        QCOMPARE(requested.at(0).at(1).toString(), QStringLiteral("github"));
        QCOMPARE(
            requested.at(0).at(2).toStringList(), (QStringList{QStringLiteral("repo"), QStringLiteral("read:user")}));
        QVERIFY(child<QLabel>(&widget, "waitingForBrowserLabel")->isVisible());
        QVERIFY(!signIn->isEnabled());

        const QUrl page(QStringLiteral("https://github.com/login/oauth/authorize?client_id=x&state=abc"));
        widget.showAuthorizationUrl(page);
        auto* url = child<QLineEdit>(&widget, "authorizationUrlEdit");
        QCOMPARE(url->text(), page.toString(QUrl::FullyEncoded));
        QVERIFY(url->isReadOnly());
        QVERIFY(child<QPushButton>(&widget, "copyUrlButton")->isEnabled());

        QTest::mouseClick(child<QPushButton>(&widget, "cancelSignInButton"), Qt::LeftButton);
        QCOMPARE(cancelled.size(), 1);
        QCOMPARE(cancelled.takeFirst().at(0).toString(), QStringLiteral("ia-connect"));
        QVERIFY(signIn->isEnabled());
        QVERIFY(!child<QLabel>(&widget, "waitingForBrowserLabel")->isVisible());

        // Declining while the browser is open ends the sign-in too.
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(signIn, Qt::LeftButton);
        QTest::mouseClick(child<QPushButton>(&widget, "declineButton"), Qt::LeftButton);
        QCOMPARE(cancelled.size(), 1);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-connect")).output,
            compact(ClientAnswer::notConnected(QStringLiteral("declined"))));
    }

    void oauthOnlyOffersNoKeyField()
    {
        ConnectWidget widget(connectQuestion(QStringLiteral("oauth"), true));
        QVERIFY(widget.findChild<QPushButton*>(QStringLiteral("signInButton")));
        QVERIFY(!widget.findChild<QLineEdit*>(QStringLiteral("apiKeyEdit")));
        ConnectWidget unconfigured(connectQuestion(QStringLiteral("oauth"), false));
        QVERIFY(!unconfigured.findChild<QPushButton*>(QStringLiteral("signInButton")));
        QVERIFY(unconfigured.findChild<QLabel*>(QStringLiteral("oauthUnavailableLabel")));
    }

    void confirm_data()
    {
        QTest::addColumn<QString>("button");
        QTest::addColumn<bool>("confirmed");
        QTest::newRow("yes") << QStringLiteral("yesButton") << true;
        QTest::newRow("no") << QStringLiteral("noButton") << false;
    }

    void confirm()
    {
        QFETCH(QString, button);
        QFETCH(bool, confirmed);
        ConfirmWidget widget(clientTool(QStringLiteral("ia-confirm"), QStringLiteral("confirm"),
            json{{"render", "confirm"}, {"prompt", "Release gate"}, {"question", "Ship 2.1 to production?"}}));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QCOMPARE(child<QLabel>(&widget, "promptLabel")->text(), QStringLiteral("Release gate"));
        QCOMPARE(child<QLabel>(&widget, "questionLabel")->text(), QStringLiteral("Ship 2.1 to production?"));
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(widget.findChild<QPushButton*>(button), Qt::LeftButton);
        const InteractionAnswer answer = takeAnswer(answered, QStringLiteral("ia-confirm"));
        QCOMPARE(answer.decision, InteractionAnswer::Decision::Respond);
        QCOMPARE(answer.output, compact(json{{"confirmed", confirmed}}));
    }

    void choice()
    {
        ChoiceWidget widget(clientTool(QStringLiteral("ia-choice"), QStringLiteral("choice"),
            json{
                {"render", "choice"}, {"question", "Which branch?"}, {"choices", {"main", "develop", "release/2.1"}}}));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QCOMPARE(widget.choices(),
            (QStringList{QStringLiteral("main"), QStringLiteral("develop"), QStringLiteral("release/2.1")}));
        auto* choose = child<QPushButton>(&widget, "chooseButton");
        QVERIFY(!choose->isEnabled());
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        auto* develop = child<QRadioButton>(&widget, "choice1");
        QCOMPARE(develop->text(), QStringLiteral("develop"));
        QTest::mouseClick(develop, Qt::LeftButton, {}, QPoint(8, develop->height() / 2));
        QTRY_VERIFY_WITH_TIMEOUT(choose->isEnabled(), 10'000);
        QTest::mouseClick(choose, Qt::LeftButton);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-choice")).output, compact(json{{"choice", "develop"}}));
    }

    void choiceDeclined()
    {
        ChoiceWidget widget(clientTool(QStringLiteral("ia-choice"), QStringLiteral("choice"),
            json{{"render", "choice"}, {"choices", {"a", "b"}}}));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(child<QPushButton>(&widget, "declineButton"), Qt::LeftButton);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-choice")).output,
            compact(json{{"choice", nullptr}, {"reason", "declined"}}));
    }

    void formFromASchemaWithEveryFieldType()
    {
        // Written in the order the person should see it; the form keeps that order.
        const QByteArray spec = R"({"render":"form","prompt":"Release details","schema":{"type":"object",
            "properties":{
              "title":{"type":"string","title":"Title","description":"Shown in the changelog","maxLength":40},
              "channel":{"type":"string","title":"Channel","enum":["stable","beta","nightly"],"default":"beta"},
              "replicas":{"type":"integer","title":"Replicas","minimum":1,"maximum":9,"default":2},
              "ratio":{"type":"number","title":"Canary ratio","minimum":0,"maximum":1,"multipleOf":0.05},
              "notify":{"type":"boolean","title":"Notify the team","default":true},
              "labels":{"type":"array","items":{"type":"string"}},
              "note":{"type":["string","null"]}
            },
            "required":["title","channel","replicas"]}})";
        PendingInteraction interaction = clientTool(QStringLiteral("ia-form"), QStringLiteral("form"), json::object());
        interaction.renderSpec = spec;
        FormWidget widget(interaction);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);

        QCOMPARE(widget.properties(),
            (QStringList{QStringLiteral("title"), QStringLiteral("channel"), QStringLiteral("replicas"),
                QStringLiteral("ratio"), QStringLiteral("notify"), QStringLiteral("labels"), QStringLiteral("note")}));
        auto* title = qobject_cast<QLineEdit*>(widget.editorFor(QStringLiteral("title")));
        auto* channel = qobject_cast<QComboBox*>(widget.editorFor(QStringLiteral("channel")));
        auto* replicas = qobject_cast<QSpinBox*>(widget.editorFor(QStringLiteral("replicas")));
        auto* ratio = qobject_cast<QDoubleSpinBox*>(widget.editorFor(QStringLiteral("ratio")));
        auto* notify = qobject_cast<QCheckBox*>(widget.editorFor(QStringLiteral("notify")));
        auto* labels = qobject_cast<QLineEdit*>(widget.editorFor(QStringLiteral("labels")));
        auto* note = qobject_cast<QLineEdit*>(widget.editorFor(QStringLiteral("note")));
        QVERIFY(title && channel && replicas && ratio && notify && labels && note);

        // Titles label the fields, required ones marked; descriptions are tooltips; defaults and
        // bounds come from the schema.
        const auto labelOf = [&widget](QWidget* editor) {
            const auto all = widget.findChildren<QLabel*>();
            for (QLabel* label : all) {
                if (label->buddy() == editor)
                    return label->text();
            }
            return QString();
        };
        QCOMPARE(labelOf(title), QStringLiteral("Title *"));
        QCOMPARE(labelOf(ratio), QStringLiteral("Canary ratio"));
        QCOMPARE(labelOf(labels), QStringLiteral("labels"));
        QCOMPARE(title->toolTip(), QStringLiteral("Shown in the changelog"));
        QCOMPARE(title->maxLength(), 40);
        QCOMPARE(channel->currentText(), QStringLiteral("beta"));
        QCOMPARE(channel->count(), 3); // required: no "not set" entry
        QCOMPARE(replicas->minimum(), 1);
        QCOMPARE(replicas->maximum(), 9);
        QCOMPARE(replicas->value(), 2);
        QCOMPARE(ratio->decimals(), 2);
        QVERIFY(notify->isChecked());

        QSignalSpy answered(&widget, &InteractionWidget::answered);
        // A required field left empty: nothing is sent, and the person is told which.
        QTest::mouseClick(child<QPushButton>(&widget, "submitButton"), Qt::LeftButton);
        QCOMPARE(answered.size(), 0);
        QCOMPARE(widget.errorText(), QStringLiteral("Not sent: fill in Title."));

        QTest::keyClicks(title, QStringLiteral("Spring release"));
        channel->setCurrentIndex(channel->findText(QStringLiteral("stable")));
        replicas->selectAll();
        QTest::keyClicks(replicas, QStringLiteral("3"));
        ratio->selectAll();
        QTest::keyClicks(ratio, QStringLiteral("0.25"));
        QTest::mouseClick(notify, Qt::LeftButton, {}, QPoint(4, notify->height() / 2));
        QTest::keyClicks(labels, QStringLiteral("[\"web\", \"api\"]"));
        QTest::mouseClick(child<QPushButton>(&widget, "submitButton"), Qt::LeftButton);

        const InteractionAnswer answer = takeAnswer(answered, QStringLiteral("ia-form"));
        QCOMPARE(answer.decision, InteractionAnswer::Decision::Respond);
        const json expected{{"submitted", true},
            {"values",
                {{"title", "Spring release"}, {"channel", "stable"}, {"replicas", 3}, {"ratio", 0.25},
                    {"notify", false}, {"labels", {"web", "api"}}}}};
        QCOMPARE(QByteArray::fromStdString(json::parse(answer.output.toStdString()).dump()),
            QByteArray::fromStdString(expected.dump()));
        QCOMPARE(answer.output, compact(ClientAnswer::submitted(expected.at("values"))));
    }

    // An optional number without a default starts "not set" and is left out of the answer (a 0
    // would be an answer the person never gave); a step up gives its lowest allowed value.
    void optionalNumbersStartUnsetAndAreLeftOut()
    {
        PendingInteraction interaction = clientTool(QStringLiteral("ia-form"), QStringLiteral("form"), json::object());
        interaction.renderSpec = R"({"render":"form","prompt":"Search","schema":{"type":"object","properties":{
            "limit":{"type":"integer","minimum":1,"maximum":100},
            "ratio":{"type":"number","minimum":0,"maximum":1},
            "depth":{"type":"integer","default":2}}}})";
        FormWidget widget(interaction);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        auto* limit = qobject_cast<QSpinBox*>(widget.editorFor(QStringLiteral("limit")));
        auto* ratio = qobject_cast<QDoubleSpinBox*>(widget.editorFor(QStringLiteral("ratio")));
        auto* depth = qobject_cast<QSpinBox*>(widget.editorFor(QStringLiteral("depth")));
        QVERIFY(limit && ratio && depth);
        QCOMPARE(limit->text(), QStringLiteral("(not set)"));
        QCOMPARE(ratio->text(), QStringLiteral("(not set)"));
        QCOMPARE(depth->value(), 2); // a default is a value

        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(child<QPushButton>(&widget, "submitButton"), Qt::LeftButton);
        QCOMPARE(
            QByteArray::fromStdString(
                json::parse(takeAnswer(answered, QStringLiteral("ia-form")).output.toStdString()).at("values").dump()),
            QByteArray::fromStdString(json{{"depth", 2}}.dump()));

        // Set by the person (a form answers once: a second widget).
        FormWidget again(interaction);
        auto* limitAgain = qobject_cast<QSpinBox*>(again.editorFor(QStringLiteral("limit")));
        QVERIFY(limitAgain);
        limitAgain->stepUp();
        QCOMPARE(limitAgain->value(), 1);
        QSignalSpy answeredAgain(&again, &InteractionWidget::answered);
        QTest::mouseClick(child<QPushButton>(&again, "submitButton"), Qt::LeftButton);
        QVERIFY2(answeredAgain.size() == 1, qPrintable(again.errorText()));
        QCOMPARE(takeAnswer(answeredAgain, QStringLiteral("ia-form")).output,
            compact(ClientAnswer::submitted(json{{"depth", 2}, {"limit", 1}})));
    }

    void formRejectsJsonThatDoesNotParse()
    {
        PendingInteraction interaction = clientTool(QStringLiteral("ia-form"), QStringLiteral("form"),
            json{
                {"render", "form"}, {"schema", {{"type", "object"}, {"properties", {{"tags", {{"type", "array"}}}}}}}});
        FormWidget widget(interaction);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::keyClicks(qobject_cast<QLineEdit*>(widget.editorFor(QStringLiteral("tags"))), QStringLiteral("[web"));
        QTest::mouseClick(child<QPushButton>(&widget, "submitButton"), Qt::LeftButton);
        QCOMPARE(answered.size(), 0);
        QCOMPARE(widget.errorText(), QStringLiteral("Not sent: tags: not valid JSON."));
    }

    void formDeclined()
    {
        FormWidget widget(clientTool(QStringLiteral("ia-form"), QStringLiteral("form"), json{{"render", "form"}}));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        QVERIFY(widget.findChild<QLabel*>(QStringLiteral("noFieldsLabel")));
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(child<QPushButton>(&widget, "declineButton"), Qt::LeftButton);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-form")).output,
            compact(json{{"submitted", false}, {"reason", "declined"}}));
    }

    // Keys reach the focused widget of the active window, as they do for a person.
    static QWidget* typeInto() { return QApplication::focusWidget(); }

    void approvalByKeys_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<int>("modifiers");
        QTest::addColumn<InteractionAnswer::Decision>("decision");
        QTest::newRow("Return: the default")
            << int(Qt::Key_Return) << int(Qt::NoModifier) << InteractionAnswer::Decision::AllowOnce;
        QTest::newRow("Enter on the keypad")
            << int(Qt::Key_Enter) << int(Qt::KeypadModifier) << InteractionAnswer::Decision::AllowOnce;
        QTest::newRow("Alt+A") << int(Qt::Key_A) << int(Qt::AltModifier) << InteractionAnswer::Decision::AllowOnce;
        QTest::newRow("Alt+S") << int(Qt::Key_S) << int(Qt::AltModifier)
                               << InteractionAnswer::Decision::AllowForSession;
        QTest::newRow("Alt+W") << int(Qt::Key_W) << int(Qt::AltModifier) << InteractionAnswer::Decision::AlwaysAllow;
        QTest::newRow("Alt+D") << int(Qt::Key_D) << int(Qt::AltModifier) << InteractionAnswer::Decision::Deny;
    }

    void approvalByKeys()
    {
        QFETCH(int, key);
        QFETCH(int, modifiers);
        QFETCH(InteractionAnswer::Decision, decision);
        ApprovalWidget widget(approval());
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        auto* allowOnce = child<QPushButton>(&widget, "allowOnceButton");
        QCOMPARE(widget.defaultButton(), allowOnce);
        QVERIFY(allowOnce->isDefault());
        QCOMPARE(widget.initialFocusWidget(), allowOnce);
        widget.initialFocusWidget()->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(allowOnce->hasFocus(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::keyClick(typeInto(), Qt::Key(key), Qt::KeyboardModifiers(modifiers));
        if (decision == InteractionAnswer::Decision::AlwaysAllow) {
            // Its scope choice opens (a moment later, the mnemonic's click is animated): Return takes
            // the narrowest, this client and these arguments.
            QTRY_VERIFY_WITH_TIMEOUT(QApplication::activePopupWidget(), 10'000);
            QTest::keyClick(QApplication::activePopupWidget(), Qt::Key_Return);
        }
        if (decision == InteractionAnswer::Decision::AlwaysAllow
            || decision == InteractionAnswer::Decision::AllowForSession) {
            // The second step: Cancel has the focus, so Return gives nothing; Alt+G grants once
            // keys are taken again.
            auto* confirmation = child<QWidget>(&widget, "grantConfirmation");
            QTRY_VERIFY_WITH_TIMEOUT(confirmation->isVisible(), 10'000);
            QTRY_COMPARE_WITH_TIMEOUT(typeInto(), child<QWidget>(&widget, "cancelGrantButton"), 10'000);
            QTest::keyClick(typeInto(), Qt::Key_G, Qt::AltModifier); // too soon: ignored
            QTest::keyClick(typeInto(), Qt::Key_Return);
            QVERIFY(confirmation->isHidden());
            QCOMPARE(answered.size(), 0);
            QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
            QTest::keyClick(typeInto(), Qt::Key(key), Qt::KeyboardModifiers(modifiers));
            if (decision == InteractionAnswer::Decision::AlwaysAllow) {
                QTRY_VERIFY_WITH_TIMEOUT(QApplication::activePopupWidget(), 10'000);
                QTest::keyClick(QApplication::activePopupWidget(), Qt::Key_Return);
            }
            QTRY_VERIFY_WITH_TIMEOUT(confirmation->isVisible(), 10'000);
            QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
            QTest::keyClick(typeInto(), Qt::Key_G, Qt::AltModifier);
        }
        // A mnemonic clicks the way a mouse does (animated, a moment later).
        QTRY_COMPARE_WITH_TIMEOUT(answered.size(), 1, 10'000);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-approval")).decision, decision);
        // The focus stays with the question while the answer is on its way.
        QVERIFY(widget.focusIsWithin());
        QTest::keyClick(typeInto(), Qt::Key_Return);
        QCOMPARE(answered.size(), 0); // sending: a second Return is not a second answer
    }

    void returnOnAFocusedButtonClicksThatButton()
    {
        ApprovalWidget widget(approval());
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QSignalSpy showCall(&widget, &InteractionWidget::showCallRequested);
        child<QPushButton>(&widget, "showCallButton")->setFocus();
        QTest::keyClick(typeInto(), Qt::Key_Return);
        QCOMPARE(showCall.size(), 1);
        QCOMPARE(answered.size(), 0);
        child<QPushButton>(&widget, "denyButton")->setFocus();
        QTest::keyClick(typeInto(), Qt::Key_Return);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-approval")).decision, InteractionAnswer::Decision::Deny);
    }

    void escapeAnswersNothing()
    {
        ApprovalWidget widget(approval());
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        for (const char* name : {"allowOnceButton", "denyButton", "reasonEdit"}) {
            widget.findChild<QWidget*>(QLatin1String(name))->setFocus();
            QTest::keyClick(typeInto(), Qt::Key_Escape);
        }
        QCOMPARE(answered.size(), 0);
    }

    void tabLeavesTheArguments()
    {
        ApprovalWidget widget(approval());
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        auto* arguments = child<QPlainTextEdit>(&widget, "argumentsText");
        arguments->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(arguments->hasFocus(), 10'000);
        QTest::keyClick(typeInto(), Qt::Key_Tab);
        QVERIFY(!arguments->hasFocus());
        QCOMPARE(arguments->toPlainText().count(QLatin1Char('\t')), 0);
    }

    void everyAnswerHasItsOwnMnemonic_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("approval") << QStringLiteral("approval");
        QTest::newRow("connect") << QStringLiteral("connect");
        QTest::newRow("confirm") << QStringLiteral("confirm");
        QTest::newRow("choice") << QStringLiteral("choice");
        QTest::newRow("form") << QStringLiteral("form");
    }

    void everyAnswerHasItsOwnMnemonic()
    {
        QFETCH(QString, kind);
        std::unique_ptr<InteractionWidget> widget;
        if (kind == QStringLiteral("approval"))
            widget = std::make_unique<ApprovalWidget>(approval());
        else if (kind == QStringLiteral("connect"))
            widget = std::make_unique<ConnectWidget>(connectQuestion(QStringLiteral("either"), true));
        else if (kind == QStringLiteral("confirm"))
            widget = std::make_unique<ConfirmWidget>(
                clientTool(QStringLiteral("ia-c"), kind, json{{"render", "confirm"}, {"question", "Ship it?"}}));
        else if (kind == QStringLiteral("choice"))
            widget = std::make_unique<ChoiceWidget>(
                clientTool(QStringLiteral("ia-c"), kind, json{{"render", "choice"}, {"choices", {"R&D", "ops"}}}));
        else
            widget = std::make_unique<FormWidget>(clientTool(QStringLiteral("ia-c"), kind,
                json{{"render", "form"},
                    {"schema", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}}}));
        QVERIFY(widget->defaultButton());
        // The answers sit in the one shared row, in the same place for every kind.
        auto* row = widget->findChild<QWidget*>(QStringLiteral("answerButtons"));
        QVERIFY(row);
        QVERIFY(row->isAncestorOf(widget->defaultButton()));
        QSet<QChar> letters;
        const QList<QAbstractButton*> buttons = widget->findChildren<QAbstractButton*>();
        int answers = 0;
        for (QAbstractButton* button : buttons) {
            if (!qobject_cast<QPushButton*>(button))
                continue; // options (radio buttons) carry the client's text
            const QString text = button->text();
            const QKeySequence mnemonic = QKeySequence::mnemonic(text);
            QVERIFY2(!mnemonic.isEmpty(), qPrintable(text));
            const QChar letter = text.at(text.indexOf(QLatin1Char('&')) + 1).toLower();
            QVERIFY2(!letters.contains(letter), qPrintable(QStringLiteral("%1 repeats &%2").arg(text, letter)));
            letters.insert(letter);
            if (row->isAncestorOf(button))
                ++answers;
        }
        QVERIFY(answers >= 2);
        // Refusals keep their letter across kinds.
        if (auto* decline = widget->findChild<QPushButton*>(QStringLiteral("declineButton")))
            QCOMPARE(decline->text(), QStringLiteral("&Decline"));
        // A client's "&" is text, not a mnemonic.
        if (kind == QStringLiteral("choice"))
            QCOMPARE(child<QRadioButton>(widget.get(), "choice0")->text(), QStringLiteral("R&&D"));
    }

    void runnerQuestionsOfferNoSessionGrant()
    {
        PendingInteraction runner = approval();
        runner.sessionId = QStringLiteral("local-5f3a9c0d");
        runner.fromRunner = true;
        ApprovalWidget widget(runner);
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        auto* session = child<QPushButton>(&widget, "allowSessionButton");
        QVERIFY(session->isHidden());
        QVERIFY(child<QLabel>(&widget, "sessionLabel")->text().contains(QLatin1String("one-shot runner")));
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        widget.initialFocusWidget()->setFocus();
        QTest::keyClick(typeInto(), Qt::Key_S, Qt::AltModifier);
        QCOMPARE(answered.size(), 0);

        // The same question, now asked by a client over HTTP: its session can be allowed.
        widget.setInteraction(approval());
        QVERIFY(!session->isHidden());

        // Asked for a stateless (2026-07-28) request: no session, nothing to allow for one.
        PendingInteraction stateless = approval();
        stateless.sessionId = QStringLiteral("request-9c0d5f3a");
        stateless.stateless = true;
        widget.setInteraction(stateless);
        QVERIFY(session->isHidden());
        QVERIFY(child<QLabel>(&widget, "sessionLabel")->text().contains(QLatin1String("stateless")));
    }

    void connectByKeys()
    {
        ConnectWidget widget(connectQuestion(QStringLiteral("api_key"), false));
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        auto* key = child<QLineEdit>(&widget, "apiKeyEdit");
        QCOMPARE(widget.initialFocusWidget(), key);
        QCOMPARE(widget.defaultButton(), child<QPushButton>(&widget, "connectButton"));
        key->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(key->hasFocus(), 10'000);
        QSignalSpy entered(&widget, &ConnectWidget::apiKeyEntered);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::keyClick(typeInto(), Qt::Key_Return); // nothing typed: nothing happens
        QCOMPARE(entered.size() + answered.size(), 0);
        QTest::keyClicks(typeInto(), QStringLiteral("sk-typed"));
        // Alt+O goes to the account field; Return there connects too.
        QTest::keyClick(typeInto(), Qt::Key_O, Qt::AltModifier);
        QCOMPARE(QApplication::focusWidget(), child<QLineEdit>(&widget, "accountEdit"));
        QTest::keyClicks(typeInto(), QStringLiteral("ada"));
        QTest::keyClick(typeInto(), Qt::Key_Return);
        QCOMPARE(entered.size(), 1);
        QCOMPARE(entered.at(0).at(2).toString(), QStringLiteral("ada"));
        QCOMPARE(entered.at(0).at(3).toByteArray(), QByteArray("sk-typed"));
        QCOMPARE(answered.size(), 0);
        QVERIFY(widget.focusIsWithin());
        // Saving failed: the key field is ready for the next try.
        widget.showConnectFailed(QStringLiteral("no keychain"));
        QCOMPARE(QApplication::focusWidget(), key);
        QTest::keyClick(typeInto(), Qt::Key_D, Qt::AltModifier);
        QTRY_COMPARE_WITH_TIMEOUT(answered.size(), 1, 10'000);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-connect")).output,
            compact(ClientAnswer::notConnected(QStringLiteral("declined"))));
    }

    void signInUsesTheProvidersTitleAndSaysWhenNoBrowserOpened()
    {
        PendingInteraction interaction = connectQuestion(QStringLiteral("oauth"), true);
        interaction.renderSpec = QByteArray::fromStdString(json{{"render", "connect"}, {"provider", "github"},
            {"providerTitle", "GitHub & Co"}, {"kind", "oauth"}, {"scopes", json::array()}, {"reason", "issues"},
            {"oauthAvailable", true}}.dump());
        ConnectWidget widget(interaction);
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        auto* signIn = child<QPushButton>(&widget, "signInButton");
        QCOMPARE(signIn->text(), QStringLiteral("Sign &in with GitHub && Co"));
        QCOMPARE(child<QLabel>(&widget, "providerLabel")->text(), QStringLiteral("GitHub & Co"));
        QCOMPARE(widget.defaultButton(), signIn);
        QCOMPARE(widget.initialFocusWidget(), signIn);
        signIn->setFocus();
        QSignalSpy requested(&widget, &ConnectWidget::oauthRequested);
        QSignalSpy cancelled(&widget, &ConnectWidget::oauthCancelled);
        QTest::keyClick(typeInto(), Qt::Key_Return);
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.at(0).at(1).toString(), QStringLiteral("github")); // the name, for the backend

        const QUrl page(QStringLiteral("https://github.com/login/oauth/authorize?client_id=x&state=abc"));
        widget.showAuthorizationUrl(page, false);
        QVERIFY(!widget.browserOpened());
        auto* label = child<QLabel>(&widget, "waitingForBrowserLabel");
        QVERIFY(label->isVisible());
        QVERIFY2(label->text().contains(QLatin1String("No browser could be opened")), qPrintable(label->text()));
        auto* url = child<QLineEdit>(&widget, "authorizationUrlEdit");
        QCOMPARE(url->selectedText(), page.toString(QUrl::FullyEncoded));
        QCOMPARE(QApplication::focusWidget(), child<QPushButton>(&widget, "copyUrlButton"));

        // Escape stops the sign-in; the question stays, and nothing is answered.
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::keyClick(typeInto(), Qt::Key_Escape);
        QCOMPARE(cancelled.size(), 1);
        QCOMPARE(answered.size(), 0);
        QVERIFY(signIn->isEnabled());
        QVERIFY(!label->isVisible());
    }

    void formByKeys()
    {
        PendingInteraction interaction = clientTool(QStringLiteral("ia-form"), QStringLiteral("form"), json::object());
        // In the schema's order (json would sort the keys).
        interaction.renderSpec = R"({"render":"form","schema":{"type":"object","properties":{
            "version":{"type":"string"},"replicas":{"type":"integer","default":2},"notes":{"type":"string"}},
            "required":["version"]}})";
        FormWidget widget(interaction);
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        QCOMPARE(widget.initialFocusWidget(), widget.editorFor(QStringLiteral("version")));
        widget.initialFocusWidget()->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(widget.editorFor(QStringLiteral("version"))->hasFocus(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::keyClick(typeInto(), Qt::Key_Return); // the required field is empty: named, nothing sent
        QCOMPARE(answered.size(), 0);
        QVERIFY(widget.errorText().contains(QLatin1String("version")));
        QTest::keyClicks(typeInto(), QStringLiteral("2.1"));
        QVERIFY2(widget.errorText().isEmpty(), qPrintable(widget.errorText())); // fixed: the error goes
        QTest::keyClick(typeInto(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), widget.editorFor(QStringLiteral("replicas")));
        QTest::keyClick(typeInto(), Qt::Key_Up);
        QTest::keyClick(typeInto(), Qt::Key_Return); // Return in a spin box submits too
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-form")).output,
            compact(ClientAnswer::submitted(json{{"version", "2.1"}, {"replicas", 3}})));
    }

    void choiceByKeys()
    {
        ChoiceWidget widget(clientTool(QStringLiteral("ia-choice"), QStringLiteral("choice"),
            json{{"render", "choice"}, {"choices", {"main", "develop", "release/2.1"}}}));
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000); // keys answer a moment after it appears
        QCOMPARE(widget.initialFocusWidget(), child<QRadioButton>(&widget, "choice0"));
        widget.initialFocusWidget()->setFocus();
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::keyClick(typeInto(), Qt::Key_Return); // nothing chosen yet
        QCOMPARE(answered.size(), 0);
        QTest::keyClick(typeInto(), Qt::Key_Space);
        QTest::keyClick(typeInto(), Qt::Key_Down);
        QTRY_VERIFY_WITH_TIMEOUT(child<QRadioButton>(&widget, "choice1")->isChecked(), 10'000);
        QTest::keyClick(typeInto(), Qt::Key_Return);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-choice")).output, compact(json{{"choice", "develop"}}));
    }

    // In a choice the arrows select (from none selected too), a number key selects that option, and
    // neither answers: Return does.
    void choiceArrowsAndNumbersSelect()
    {
        ChoiceWidget widget(clientTool(QStringLiteral("ia-choice"), QStringLiteral("choice"),
            json{{"render", "choice"}, {"choices", {"main", "develop", "release/2.1"}}}));
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        QTRY_VERIFY_WITH_TIMEOUT(widget.acceptsKeys(), 10'000);
        widget.initialFocusWidget()->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(child<QRadioButton>(&widget, "choice0")->hasFocus(), 10'000);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::keyClick(typeInto(), Qt::Key_Down); // nothing was selected: the arrow selects
        QVERIFY(child<QRadioButton>(&widget, "choice1")->isChecked());
        QCOMPARE(typeInto(), child<QRadioButton>(&widget, "choice1"));
        QTest::keyClick(typeInto(), Qt::Key_Up);
        QVERIFY(child<QRadioButton>(&widget, "choice0")->isChecked());
        QTest::keyClick(typeInto(), Qt::Key_3);
        QVERIFY(child<QRadioButton>(&widget, "choice2")->isChecked());
        QCOMPARE(typeInto(), child<QRadioButton>(&widget, "choice2"));
        QTest::keyClick(typeInto(), Qt::Key_9); // no ninth option: nothing
        QVERIFY(child<QRadioButton>(&widget, "choice2")->isChecked());
        QCOMPARE(answered.size(), 0);
        QTest::keyClick(typeInto(), Qt::Key_Return);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-choice")).output, compact(json{{"choice", "release/2.1"}}));
    }

    // A required enum without a default starts with no choice (the first value is not an answer),
    // and submitting without one names it; choosing clears the error.
    void requiredEnumStartsWithNoChoice()
    {
        PendingInteraction interaction = clientTool(QStringLiteral("ia-form"), QStringLiteral("form"), json::object());
        interaction.renderSpec = R"({"render":"form","schema":{"type":"object","properties":{
            "channel":{"type":"string","title":"Channel","enum":["stable","beta"]}},"required":["channel"]}})";
        FormWidget widget(interaction);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        auto* channel = qobject_cast<QComboBox*>(widget.editorFor(QStringLiteral("channel")));
        QVERIFY(channel);
        QCOMPARE(channel->currentIndex(), -1);
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(child<QPushButton>(&widget, "submitButton"), Qt::LeftButton);
        QCOMPARE(answered.size(), 0);
        QVERIFY2(widget.errorText().contains(QStringLiteral("Channel")), qPrintable(widget.errorText()));
        channel->setCurrentIndex(1);
        QVERIFY2(widget.errorText().isEmpty(), qPrintable(widget.errorText()));
        QTest::mouseClick(child<QPushButton>(&widget, "submitButton"), Qt::LeftButton);
        QCOMPARE(takeAnswer(answered, QStringLiteral("ia-form")).output,
            compact(ClientAnswer::submitted(json{{"channel", "beta"}})));
    }

    // Tab through a long form in a short widget: the field with the focus is always wholly inside
    // every scroll area around it (the form's own and the question's), so a value (an API key, say)
    // is never typed into a field out of sight, or half in it.
    void theFocusedFieldIsScrolledIntoView_data()
    {
        QTest::addColumn<int>("height");
        QTest::newRow("short") << 420; // the form's area scrolls
        QTest::newRow("very short") << 260; // the question's area scrolls too
    }

    void theFocusedFieldIsScrolledIntoView()
    {
        QFETCH(int, height);
        constexpr int Fields = 18;
        nlohmann::ordered_json properties = nlohmann::ordered_json::object();
        for (int i = 0; i < Fields; ++i)
            properties["f" + std::to_string(i)] = {{"type", "string"}, {"description", "A field of the long form"}};
        PendingInteraction interaction = clientTool(QStringLiteral("ia-form"), QStringLiteral("form"), json::object());
        const nlohmann::ordered_json spec{
            {"render", "form"}, {"schema", {{"type", "object"}, {"properties", properties}}}};
        interaction.renderSpec = QByteArray::fromStdString(spec.dump());
        FormWidget widget(interaction);
        widget.resize(480, height);
        widget.show();
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget, 10'000));
        widget.initialFocusWidget()->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(widget.editorFor(QStringLiteral("f0"))->hasFocus(), 10'000);
        // Whether `field` is whole inside the viewport of every scroll area it is in; else which is not.
        const auto outOfView = [&widget](QWidget* field) {
            for (QWidget* parent = field->parentWidget(); parent && parent != &widget;
                 parent = parent->parentWidget()) {
                auto* area = qobject_cast<QScrollArea*>(parent);
                if (!area)
                    continue;
                const QRect inViewport(field->mapTo(area->viewport(), QPoint(0, 0)), field->size());
                if (!area->viewport()->rect().contains(inViewport))
                    return QStringLiteral("%1 at %2,%3 %4x%5 in %6's viewport of %7x%8")
                        .arg(field->objectName())
                        .arg(inViewport.x())
                        .arg(inViewport.y())
                        .arg(inViewport.width())
                        .arg(inViewport.height())
                        .arg(area->objectName())
                        .arg(area->viewport()->width())
                        .arg(area->viewport()->height());
            }
            return QString();
        };
        for (int i = 0; i < Fields; ++i) {
            if (i > 0)
                QTest::keyClick(typeInto(), Qt::Key_Tab);
            QWidget* field = widget.editorFor(QStringLiteral("f%1").arg(i));
            QCOMPARE(typeInto(), field);
            QTRY_VERIFY2_WITH_TIMEOUT(outOfView(field).isEmpty(),
                qPrintable(QStringLiteral("f%1 is not in view: %2").arg(i).arg(outOfView(field))), 10'000);
        }
    }

    // The approval card: the tool's destructive and open-world hints as a banner, paths that climb
    // out or leave the roots flagged, the description folded, and the countdown by the answers.
    void approvalCardShowsWhatIsAsked()
    {
        PendingInteraction interaction = approval();
        interaction.arguments = R"({"path":"../secrets.txt","target":"/etc/passwd","inside":"/srv/work/a.txt",)"
                                R"("note":"a .. in prose","files":["/srv/work/ok","/srv/workshop/x"]})";
        interaction.renderSpec = QByteArray::fromStdString(json{{"render", "approval"}, {"rule", "ask"},
            {"description", std::string(400, 'd') + "\nsecond line"},
            {"annotations", {{"destructiveHint", true}, {"openWorldHint", false}}},
            {"roots", {"/srv/work"}}}.dump());
        interaction.deadlineMs = QDateTime::currentMSecsSinceEpoch() + 45'000;
        ApprovalWidget widget(interaction);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        auto* banner = child<QLabel>(&widget, "hintsBanner");
        QVERIFY(banner && banner->isVisible());
        QVERIFY(banner->text().contains(QStringLiteral("Destructive")));
        QVERIFY(!banner->text().contains(QStringLiteral("Open world")));
        const QString paths = child<QLabel>(&widget, "pathWarning")->toolTip();
        QVERIFY2(paths.contains(QStringLiteral("path contains \"..\"")), qPrintable(paths));
        QVERIFY2(paths.contains(QStringLiteral("target is outside the roots")), qPrintable(paths));
        QVERIFY2(paths.contains(QStringLiteral("files[1] is outside")), qPrintable(paths));
        QVERIFY2(!paths.contains(QStringLiteral("inside")) && !paths.contains(QStringLiteral("note"))
                && !paths.contains(QStringLiteral("files[0]")),
            qPrintable(paths));
        auto* description = child<QLabel>(&widget, "descriptionLabel");
        QVERIFY(description->text().size() <= ApprovalWidget::FoldedDescriptionChars + 1);
        auto* more = child<QToolButton>(&widget, "descriptionToggle");
        QVERIFY(more->isVisible());
        QTest::mouseClick(more, Qt::LeftButton);
        QVERIFY(description->text().contains(QStringLiteral("second line")));
        auto* timeLeft = child<QLabel>(&widget, "timeLeftLabel");
        QVERIFY(timeLeft->isVisible());
        QVERIFY2(timeLeft->text().startsWith(QStringLiteral("Gives up in 0:4")), qPrintable(timeLeft->text()));
        QVERIFY(timeLeft->styleSheet().contains(QStringLiteral("bold"))); // the last minute
        // The arguments are above the answers, outside the part that scrolls.
        auto* arguments = child<QPlainTextEdit>(&widget, "argumentsText");
        QVERIFY(!child<QWidget>(&widget, "questionArea")->isAncestorOf(arguments));
        QVERIFY(arguments->mapTo(&widget, QPoint()).y()
            < child<QWidget>(&widget, "answerButtons")->mapTo(&widget, QPoint()).y());
    }
};

QTEST_MAIN(TestInteractionWidgets)
#include "tst_interactionwidgets.moc"
