// File ▸ Client tokens… against the OperatorInterface's test double: the list (name, when issued) as
// the backend sends it, asked again when the dialog shows; a file that cannot be used named; issuing
// (the token shown once, copied whole, forgotten when the dialog closes); revoking only after a
// confirmation whose default is Cancel; refusals shown in the dialog.

#include "clienttokensdialog.h"
#include "copybutton.h"
#include "fakeoperator.h"
#include "mainwindow.h"
#include "snippetwidget.h"
#include "statusnote.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QTest>
#include <QTreeWidget>

namespace {

const QByteArray Token = QByteArrayLiteral("sbc_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG");

ClientTokenInfoList twoTokens()
{
    return {ClientTokenInfo{QStringLiteral("ci-runner"), 1'700'000'000'000},
        ClientTokenInfo{QStringLiteral("laptop"), 1'700'000'600'000}};
}

// Every text the dialog shows in a label (the token's snippet included).
QString shownTexts(const QWidget& dialog)
{
    QStringList texts;
    const auto labels = dialog.findChildren<QLabel*>();
    for (const QLabel* label : labels) {
        if (label->isVisibleTo(&dialog))
            texts << label->text();
    }
    return texts.join(u'\n');
}

} // namespace

class TestClientTokensDialog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listsWhatTheBackendSends();
    void aFileThatCannotBeUsedIsNamed();
    void issuingShowsTheTokenOnce();
    void aTokenIssuedWhileClosedComesBack();
    void revokingAsksFirst();
    void refusalsShowInTheDialog();
    void theMainWindowOpensIt();
};

void TestClientTokensDialog::listsWhatTheBackendSends()
{
    FakeOperator backend;
    ClientTokensDialog dialog(&backend);
    QCOMPARE(backend.clientTokenLists, 0);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(backend.clientTokenLists >= 1); // asked when shown

    Q_EMIT backend.clientTokensListed(twoTokens(), QString());
    QTreeWidget* list = dialog.tokenList();
    QCOMPARE(list->topLevelItemCount(), 2);
    QCOMPARE(list->topLevelItem(0)->text(ClientTokensDialog::NameColumn), QStringLiteral("ci-runner"));
    QCOMPARE(list->topLevelItem(1)->text(ClientTokensDialog::NameColumn), QStringLiteral("laptop"));
    const QDateTime issued = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000);
    QCOMPARE(list->topLevelItem(0)->text(ClientTokensDialog::CreatedColumn),
        QLocale().toString(issued, QLocale::ShortFormat));
    QCOMPARE(list->topLevelItem(0)->toolTip(ClientTokensDialog::CreatedColumn), QStringLiteral("2023-11-14T22:13:20Z"));

    // The selection stays with its token across a new list.
    list->setCurrentItem(list->topLevelItem(1));
    Q_EMIT backend.clientTokensListed(
        {ClientTokenInfo{QStringLiteral("new"), 1}, twoTokens().at(0), twoTokens().at(1)}, QString());
    QCOMPARE(list->currentItem()->text(ClientTokensDialog::NameColumn), QStringLiteral("laptop"));
    Q_EMIT backend.clientTokensListed({}, QString());
    QCOMPARE(list->topLevelItemCount(), 0);
    QVERIFY(!dialog.revokeButton()->isEnabled());

    // Shown again: asked again (tokens issued from the command line meanwhile).
    const int lists = backend.clientTokenLists;
    dialog.hide();
    dialog.show();
    QVERIFY(backend.clientTokenLists > lists);
}

void TestClientTokensDialog::aFileThatCannotBeUsedIsNamed()
{
    FakeOperator backend;
    ClientTokensDialog dialog(&backend);
    dialog.show();
    auto* problem = dialog.findChild<QLabel*>(QStringLiteral("clientTokensProblem"));
    QVERIFY(problem);
    QVERIFY(!problem->isVisible());
    const QString why = QStringLiteral("the client tokens in /x/client-tokens.json cannot be used (it is not JSON)");
    Q_EMIT backend.clientTokensListed({}, why);
    QVERIFY(problem->isVisible());
    QCOMPARE(problem->text(), why);
    Q_EMIT backend.clientTokensListed(twoTokens(), QString());
    QVERIFY(!problem->isVisible());
}

void TestClientTokensDialog::issuingShowsTheTokenOnce()
{
    FakeOperator backend;
    ClientTokensDialog dialog(&backend);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(!dialog.issueButton()->isEnabled()); // no name yet
    QVERIFY(dialog.shownToken().isEmpty());

    QTest::keyClicks(dialog.nameEdit(), QStringLiteral(" ci-runner "));
    QVERIFY(dialog.issueButton()->isEnabled());
    QTest::mouseClick(dialog.issueButton(), Qt::LeftButton);
    QCOMPARE(backend.clientTokenIssues, QStringList{QStringLiteral("ci-runner")});
    // Return in the field issues too.
    QTest::keyClick(dialog.nameEdit(), Qt::Key_Return);
    QCOMPARE(backend.clientTokenIssues.size(), 2);
    QVERIFY(dialog.isVisible()); // Return did not close the dialog

    Q_EMIT backend.clientTokenIssued(QStringLiteral("ci-runner"), Token);
    QCOMPARE(dialog.shownToken(), QString::fromLatin1(Token));
    QVERIFY(dialog.nameEdit()->text().isEmpty());
    auto* snippet = dialog.findChild<SnippetWidget*>(QStringLiteral("issuedClientTokenSnippet"));
    QVERIFY(snippet && snippet->isVisible());
    QCOMPARE(snippet->displayText(), QString::fromLatin1(Token)); // whole: it is its only showing
    auto* warning = dialog.findChild<QLabel*>(QStringLiteral("issuedClientTokenWarning"));
    QVERIFY(warning && warning->isVisible());
    QVERIFY(warning->text().contains(QStringLiteral("not be shown again")));
    QVERIFY(shownTexts(dialog).contains(QStringLiteral("Authorization: Bearer")));
    QGuiApplication::clipboard()->clear();
    QTest::mouseClick(snippet->copyButton(), Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(), QString::fromLatin1(Token));

    // Closed, it is gone: opening the dialog again does not show it.
    dialog.reject();
    QVERIFY(dialog.shownToken().isEmpty());
    dialog.show();
    QVERIFY(dialog.shownToken().isEmpty());
    QVERIFY(!snippet->isVisible());
    QVERIFY(!shownTexts(dialog).contains(QString::fromLatin1(Token)));
    QVERIFY(snippet->copyText().isEmpty());
}

void TestClientTokensDialog::aTokenIssuedWhileClosedComesBack()
{
    FakeOperator backend;
    ClientTokensDialog dialog(&backend);
    dialog.show();
    dialog.nameEdit()->setText(QStringLiteral("laptop"));
    dialog.issue();
    dialog.reject(); // closed before the answer came
    Q_EMIT backend.clientTokenIssued(QStringLiteral("laptop"), Token);
    QVERIFY(dialog.isVisible());
    QCOMPARE(dialog.shownToken(), QString::fromLatin1(Token));
}

void TestClientTokensDialog::revokingAsksFirst()
{
    FakeOperator backend;
    ClientTokensDialog dialog(&backend);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    Q_EMIT backend.clientTokensListed(twoTokens(), QString());
    QVERIFY(!dialog.revokeButton()->isEnabled()); // nothing selected
    dialog.tokenList()->setCurrentItem(dialog.tokenList()->topLevelItem(1));
    QVERIFY(dialog.revokeButton()->isEnabled());

    // Cancelled (the default, so Return cancels): nothing is revoked.
    QTest::mouseClick(dialog.revokeButton(), Qt::LeftButton);
    QMessageBox* box = dialog.revokeConfirmation();
    QVERIFY(box);
    QVERIFY(box->text().contains(QStringLiteral("laptop")));
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
    QTest::keyClick(box, Qt::Key_Return);
    QTRY_VERIFY(!dialog.revokeConfirmation());
    QVERIFY(backend.clientTokenRevokes.isEmpty());

    // Delete on the list asks too; Revoke revokes.
    QApplication::setActiveWindow(&dialog);
    dialog.tokenList()->setFocus();
    QTRY_VERIFY(dialog.tokenList()->hasFocus());
    QTest::keyClick(dialog.tokenList(), Qt::Key_Delete);
    box = dialog.revokeConfirmation();
    QVERIFY(box);
    auto* revoke = box->findChild<QPushButton*>(QStringLiteral("confirmRevokeButton"));
    QVERIFY(revoke);
    QTest::mouseClick(revoke, Qt::LeftButton);
    QTRY_VERIFY(!dialog.revokeConfirmation());
    QCOMPARE(backend.clientTokenRevokes, QStringList{QStringLiteral("laptop")});
    auto* status = dialog.findChild<StatusNote*>(QStringLiteral("clientTokensStatus"));
    QVERIFY(status->text().contains(QStringLiteral("Revoking")));
    Q_EMIT backend.clientTokenRevoked(QStringLiteral("laptop"));
    QVERIFY(status->text().contains(QStringLiteral("Revoked the token of laptop")));

    // The token just shown goes from view when it is revoked.
    Q_EMIT backend.clientTokenIssued(QStringLiteral("ci-runner"), Token);
    QVERIFY(!dialog.shownToken().isEmpty());
    Q_EMIT backend.clientTokenRevoked(QStringLiteral("ci-runner"));
    QVERIFY(dialog.shownToken().isEmpty());
}

void TestClientTokensDialog::refusalsShowInTheDialog()
{
    FakeOperator backend;
    ClientTokensDialog dialog(&backend);
    dialog.show();
    auto* status = dialog.findChild<StatusNote*>(QStringLiteral("clientTokensStatus"));
    QVERIFY(status);
    Q_EMIT backend.commandFailed(QStringLiteral("callTool"), QStringLiteral("not ours"));
    QVERIFY(!status->isVisible());
    Q_EMIT backend.commandFailed(
        QStringLiteral("issueClientToken"), QStringLiteral("there is a client token named ci already"));
    QVERIFY(status->isVisible());
    QVERIFY(status->text().contains(QStringLiteral("Could not issue the token: there is a client token named ci")));
    Q_EMIT backend.commandFailed(
        QStringLiteral("revokeClientToken"), QStringLiteral("there is no client token named x"));
    QVERIFY(status->text().contains(QStringLiteral("Could not revoke the token: there is no client token named x")));
    QVERIFY(dialog.shownToken().isEmpty());
}

void TestClientTokensDialog::theMainWindowOpensIt()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    QAction* action = window.findChild<QAction*>(QStringLiteral("clientTokensAction"));
    QVERIFY(action);
    QVERIFY(window.menu(MainWindow::Menu::File)->actions().contains(action));
    QVERIFY(!window.clientTokensDialog());
    action->trigger();
    ClientTokensDialog* dialog = window.clientTokensDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY(backend.clientTokenLists >= 1);
    // One dialog, brought back.
    dialog->reject();
    action->trigger();
    QCOMPARE(window.clientTokensDialog(), dialog);
    QVERIFY(dialog->isVisible());
}

QTEST_MAIN(TestClientTokensDialog)
#include "tst_clienttokensdialog.moc"
