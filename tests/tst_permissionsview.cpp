// Grants by keyboard, in the whole window against a test double of the OperatorInterface: "Always
// allow" (Alt+W) opens its scope choice, narrowest first; every scope takes a second step that says
// what it grants, where Return cancels and Alt+G grants; granted, the answer carries the scope. The grant
// then shows in the Permissions dock with who granted it, Delete revokes it (a configuration rule
// is not revocable and says so), and the Revoke button revokes another. Also the scope choices by
// mouse, and the inspector's Decision line.

#include "fakeoperator.h"

#include "approvalwidget.h"
#include "callinspector.h"
#include "interactionpanel.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "permissionsmodel.h"
#include "permissionsview.h"
#include "statusnote.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

namespace {

constexpr int TimeoutMs = 10'000;

PendingInteraction approval(const QString& id)
{
    PendingInteraction interaction;
    interaction.id = id;
    interaction.kind = InteractionKind::Approval;
    interaction.render = RenderHint::Approval;
    interaction.tool = QStringLiteral("write_file");
    interaction.route = ToolRoute::builtin();
    interaction.arguments = R"({"path":"/tmp/notes.txt"})";
    interaction.renderSpec = R"({"render":"approval","rule":"permissions.default: ask"})";
    interaction.sessionId = QStringLiteral("session-1");
    interaction.clientName = QStringLiteral("claude-code");
    interaction.callId = 7;
    interaction.waiting = true;
    interaction.createdAtMs = 1'700'000'000'000;
    interaction.key = id;
    return interaction;
}

PermissionEntry configurationRule()
{
    PermissionEntry rule;
    rule.source = PermissionEntry::Source::Configuration;
    rule.subject = QStringLiteral("rm");
    rule.permission = QStringLiteral("deny");
    rule.origin = QStringLiteral("permissions.tools.rm in /etc/switchboard.yaml");
    return rule;
}

// Plays the backend's part for grants: an "always allow" answer becomes a grant, listGrants and
// revokeGrant answer as the Backend does.
class GrantingOperator : public FakeOperator
{
public:
    void answerInteraction(const QString& interactionId, const InteractionAnswer& answer) override
    {
        FakeOperator::answerInteraction(interactionId, answer);
        if (answer.decision != InteractionAnswer::Decision::AlwaysAllow)
            return;
        PermissionEntry grant;
        grant.id = QStringLiteral("g-%1").arg(entries.size());
        grant.source = PermissionEntry::Source::Always;
        grant.subject = QStringLiteral("write_file");
        grant.permission = QStringLiteral("allow");
        grant.clientName = answer.everyClient ? QString() : QStringLiteral("claude-code");
        grant.arguments = answer.anyArguments ? QByteArray() : QByteArray(R"({"path":"/tmp/notes.txt"})");
        grant.grantedBy = QStringLiteral("alice");
        grant.grantedAtMs = 1'700'000'000'000;
        entries.append(grant);
        Q_EMIT grantsChanged(entries);
    }
    void listGrants() override { Q_EMIT grantsListed(entries); }
    void revokeGrant(const QString& grantId) override
    {
        revoked << grantId;
        entries.removeIf([&grantId](const PermissionEntry& entry) { return entry.id == grantId; });
        Q_EMIT grantsChanged(entries);
    }

    PermissionEntryList entries{configurationRule()};
    QStringList revoked;
};

QWidget* focused()
{
    return QApplication::focusWidget();
}

QMenu* openPopup()
{
    return qobject_cast<QMenu*>(QApplication::activePopupWidget());
}

QString focusedName()
{
    return focused() ? focused()->objectName() : QString();
}

} // namespace

class TestPermissionsView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<InteractionAnswer>();
        qRegisterMetaType<PendingInteraction>();
    }

    void widestGrantByKeyboardThenRevokedInThePermissionsView()
    {
        GrantingOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        auto* view = window.findChild<PermissionsView*>();
        QVERIFY(view);
        QCOMPARE(view->model()->rowCount(), 1); // the configuration's rule, listed at start

        Q_EMIT backend.interactionPending(approval(QStringLiteral("ia-1")));
        InteractionPanel* panel = window.interactionPanel();
        // The person goes to the question (Ctrl+Shift+A); keys answer a moment after.
        QTest::keyClick(focused(), Qt::Key_A, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(focused(), panel->currentWidget()->defaultButton(), TimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->acceptsKeys(), TimeoutMs);
        QWidget* confirmation = panel->currentWidget()->findChild<QWidget*>(QStringLiteral("grantConfirmation"));
        QVERIFY(confirmation);

        // Alt+W opens the scope choice with the narrowest scope active, and Return there takes it,
        // but grants nothing yet: the second step says what would be granted, with Cancel focused.
        // One more Return (the issue's stray key) is Cancel.
        QTest::keyClick(focused(), Qt::Key_W, Qt::AltModifier);
        QTRY_VERIFY_WITH_TIMEOUT(openPopup(), TimeoutMs);
        QMenu* menu = openPopup();
        QCOMPARE(menu->objectName(), QStringLiteral("alwaysAllowScopeMenu"));
        QCOMPARE(menu->activeAction()->objectName(), QStringLiteral("scopeClientArguments"));
        QVERIFY(menu->activeAction()->text().contains(QStringLiteral("claude-code")));
        QTest::keyClick(menu, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(confirmation->isVisible(), TimeoutMs);
        QVERIFY(backend.answers.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(focusedName(), QStringLiteral("cancelGrantButton"), TimeoutMs);
        QTest::keyClick(focused(), Qt::Key_Return);
        QVERIFY(confirmation->isHidden());
        QVERIFY(backend.answers.isEmpty());
        QCOMPARE(focusedName(), QStringLiteral("alwaysAllowButton"));
        // The second step came up a moment ago: keys wait again before they answer.
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->acceptsKeys(), TimeoutMs);

        // Down three times reaches the widest; it says so, and Alt+G (once keys are taken again) gives it.
        QTest::keyClick(focused(), Qt::Key_W, Qt::AltModifier);
        QTRY_VERIFY_WITH_TIMEOUT(openPopup(), TimeoutMs);
        for (int i = 0; i < 3; ++i)
            QTest::keyClick(openPopup(), Qt::Key_Down);
        QCOMPARE(openPopup()->activeAction()->objectName(), QStringLiteral("scopeEveryAny"));
        QTest::keyClick(openPopup(), Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(confirmation->isVisible(), TimeoutMs);
        auto* text = confirmation->findChild<QLabel*>(QStringLiteral("grantConfirmationText"));
        QVERIFY2(text->text().contains(QStringLiteral("every client"))
                && text->text().contains(QStringLiteral("any arguments")),
            qPrintable(text->text()));
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->acceptsKeys(), TimeoutMs);
        QTest::keyClick(focused(), Qt::Key_G, Qt::AltModifier);
        QTRY_COMPARE_WITH_TIMEOUT(backend.answers.size(), 1, TimeoutMs);
        const InteractionAnswer answer = backend.answers.at(0).answer;
        QCOMPARE(answer.decision, InteractionAnswer::Decision::AlwaysAllow);
        QVERIFY(answer.everyClient);
        QVERIFY(answer.anyArguments);
        Q_EMIT backend.interactionResolved(QStringLiteral("ia-1"), InteractionOutcome::Answered);

        // A narrower grant by keyboard too: Alt+W, Return takes the narrowest, Alt+G grants it.
        Q_EMIT backend.interactionPending(approval(QStringLiteral("ia-2")));
        QTRY_COMPARE_WITH_TIMEOUT(panel->currentInteractionId(), QStringLiteral("ia-2"), TimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(focused() && panel->currentWidget()->isAncestorOf(focused()), TimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->acceptsKeys(), TimeoutMs);
        QTest::keyClick(focused(), Qt::Key_W, Qt::AltModifier);
        QTRY_VERIFY_WITH_TIMEOUT(openPopup(), TimeoutMs);
        QTest::keyClick(openPopup(), Qt::Key_Return);
        confirmation = panel->currentWidget()->findChild<QWidget*>(QStringLiteral("grantConfirmation"));
        QTRY_VERIFY_WITH_TIMEOUT(confirmation->isVisible(), TimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->acceptsKeys(), TimeoutMs);
        QTest::keyClick(focused(), Qt::Key_G, Qt::AltModifier);
        QTRY_COMPARE_WITH_TIMEOUT(backend.answers.size(), 2, TimeoutMs);
        QVERIFY(!backend.answers.at(1).answer.everyClient);
        QVERIFY(!backend.answers.at(1).answer.anyArguments);
        Q_EMIT backend.interactionResolved(QStringLiteral("ia-2"), InteractionOutcome::Answered);

        // The Permissions dock (Ctrl+5 in the View menu) lists the rule and both grants.
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("permissionsDock"));
        QVERIFY(dock);
        QCOMPARE(dock->toggleViewAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_5));
        dock->show();
        dock->raise();
        PermissionsModel* model = view->model();
        QCOMPARE(model->rowCount(), 3);
        QTableView* table = view->table();
        const auto rowOf = [table](const QString& id) {
            for (int row = 0; row < table->model()->rowCount(); ++row) {
                if (table->model()->index(row, 0).data(GrantIdRole).toString() == id)
                    return row;
            }
            return -1;
        };
        const int widest = rowOf(QStringLiteral("g-1"));
        QVERIFY(widest >= 0);
        QCOMPARE(table->model()->index(widest, PermissionsModel::ClientColumn).data().toString(),
            QStringLiteral("every client"));
        QCOMPARE(table->model()->index(widest, PermissionsModel::GrantedByColumn).data().toString(),
            QStringLiteral("alice"));

        // By keys: into the table, Home to the rule: Delete revokes nothing and says why.
        table->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(table->hasFocus(), TimeoutMs);
        QTest::keyClick(table, Qt::Key_Home, Qt::ControlModifier);
        QCOMPARE(table->currentIndex().row(), 0);
        QVERIFY(table->currentIndex().data(GrantIdRole).toString().isEmpty());
        QVERIFY(!view->revokeButton()->isEnabled());
        QTest::keyClick(table, Qt::Key_Delete);
        QVERIFY(backend.revoked.isEmpty());
        QVERIFY(view->statusLabel()->text().contains(QStringLiteral("configuration")));

        // Down to the widest grant; Delete revokes it, and it leaves the list.
        while (table->currentIndex().row() < widest)
            QTest::keyClick(table, Qt::Key_Down);
        QVERIFY(view->revokeButton()->isEnabled());
        QTest::keyClick(table, Qt::Key_Delete);
        QCOMPARE(backend.revoked, QStringList{QStringLiteral("g-1")});
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(rowOf(QStringLiteral("g-1")), -1);
        QVERIFY(table->currentIndex().isValid()); // the selection stays in the list, for the next Delete

        // The other grant by the Revoke button.
        table->setCurrentIndex(table->model()->index(rowOf(QStringLiteral("g-2")), 0));
        QTest::mouseClick(view->revokeButton(), Qt::LeftButton);
        QCOMPARE(backend.revoked, (QStringList{QStringLiteral("g-1"), QStringLiteral("g-2")}));
        QCOMPARE(model->rowCount(), 1);
    }

    void scopeChoicesByMouse_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<bool>("everyClient");
        QTest::addColumn<bool>("anyArguments");
        QTest::newRow("this client, these arguments") << QStringLiteral("scopeClientArguments") << false << false;
        QTest::newRow("this client, any arguments") << QStringLiteral("scopeClientAny") << false << true;
        QTest::newRow("every client, these arguments") << QStringLiteral("scopeEveryArguments") << true << false;
    }

    void scopeChoicesByMouse()
    {
        QFETCH(QString, action);
        QFETCH(bool, everyClient);
        QFETCH(bool, anyArguments);
        ApprovalWidget widget(approval(QStringLiteral("ia-m")));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QSignalSpy answered(&widget, &InteractionWidget::answered);
        QTest::mouseClick(widget.findChild<QPushButton*>(QStringLiteral("alwaysAllowButton")), Qt::LeftButton);
        auto* menu = widget.findChild<QMenu*>(QStringLiteral("alwaysAllowScopeMenu"));
        QTRY_VERIFY_WITH_TIMEOUT(menu->isVisible(), TimeoutMs);
        QAction* chosen = menu->findChild<QAction*>(action);
        QVERIFY(chosen);
        QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(chosen).center());
        auto* confirmation = widget.findChild<QWidget*>(QStringLiteral("grantConfirmation"));
        QTRY_VERIFY_WITH_TIMEOUT(confirmation->isVisible(), TimeoutMs);
        QCOMPARE(answered.size(), 0);
        QTest::mouseClick(widget.findChild<QPushButton*>(QStringLiteral("confirmGrantButton")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(answered.size(), 1, TimeoutMs);
        const auto answer = answered.takeFirst().at(1).value<InteractionAnswer>();
        QCOMPARE(answer.decision, InteractionAnswer::Decision::AlwaysAllow);
        QCOMPARE(answer.everyClient, everyClient);
        QCOMPARE(answer.anyArguments, anyArguments);
    }

    void inspectorShowsTheDecision()
    {
        CallInspector inspector;
        ToolCall call;
        call.id = 3;
        call.tool = QStringLiteral("write_file");
        call.status = CallStatus::Ok;
        call.startedAtMs = 1'700'000'000'000;
        call.durationUs = 10;
        inspector.setCall(call);
        auto* label = inspector.findChild<QLabel*>(QStringLiteral("decisionLabel"));
        QVERIFY(label);
        QVERIFY(label->isHidden()); // no one decided
        call.decision = R"({"what":"allow_always","via":"grant","by":"alice","atMs":1700000000000,"grant":"g-9",)"
                        R"("scope":{"everyClient":false,"client":"claude-code","anyArguments":true}})";
        inspector.setCall(call);
        QVERIFY(!label->isHidden());
        QVERIFY2(label->text().contains(QStringLiteral("Ran without asking"))
                && label->text().contains(QStringLiteral("g-9"))
                && label->text().contains(QStringLiteral("claude-code, any arguments")),
            qPrintable(label->text()));
    }

    void columnsGrowWithTheFont()
    {
        // Widths in characters, not pixels: at 14 pt the columns are wider than at the default
        // font, by about the font's ratio (they were fixed pixel widths, cut off at large fonts).
        const auto widthAt = [](int pointSize) {
            const QFont before = QApplication::font();
            QFont font = before;
            font.setPointSize(pointSize);
            QApplication::setFont(font);
            FakeOperator backend;
            PermissionsView view(&backend);
            auto* table = view.findChild<QTableView*>(QStringLiteral("permissionsTable"));
            const int width = table->columnWidth(PermissionsModel::SubjectColumn);
            QApplication::setFont(before);
            return width;
        };
        const int small = widthAt(9);
        const int large = widthAt(14);
        QVERIFY2(
            large * 9 > small * 13, qPrintable(QStringLiteral("%1 px at 9 pt, %2 px at 14 pt").arg(small).arg(large)));
    }
};

QTEST_MAIN(TestPermissionsView)
#include "tst_permissionsview.moc"
