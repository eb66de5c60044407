// The menu bar (issue 13, item 9): every action the window offers sits in a menu with its shortcut,
// or is marked as deliberately without one; no two actions share a shortcut; the menus' mnemonics
// leave the question widgets' Alt letters alone; shortcuts work by key; icons come from the theme or
// the resources' fallbacks.

#include <QTest>

#include "fakeoperator.h"

#include "calllogview.h"
#include "interactionpanel.h"
#include "interactionwidget.h"
#include "mainwindow.h"
#include "shortcutsdialog.h"
#include "themeicon.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSignalSpy>
#include <QTableWidget>

class TestMenuBar : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyMenuActionHasAShortcutOrSaysWhyNot();
    void noTwoActionsShareAShortcut();
    void mnemonicsAvoidTheAnswerLetters();
    void shortcutsWorkByKey();
    void windowShortcutsWorkFromAField();
    void menuMnemonicsAreTheMenusOwn();
    void everyQuestionsLettersAreItsOwn_data();
    void everyQuestionsLettersAreItsOwn();
    void keyboardShortcutsAreListed();
    void addedFileActionsGoAboveQuit();
    void iconsHaveFallbacks();
};

namespace {

const QList<MainWindow::Menu> allMenus{MainWindow::Menu::File, MainWindow::Menu::Edit, MainWindow::Menu::View,
    MainWindow::Menu::Call, MainWindow::Menu::Help};

// The actions a person can pick in the menus, submenus included.
QList<QAction*> menuActions(QMenu* menu)
{
    QList<QAction*> found;
    const QList<QAction*> actions = menu->actions();
    for (QAction* action : actions) {
        if (action->isSeparator())
            continue;
        if (action->menu())
            found += menuActions(action->menu());
        else
            found << action;
    }
    return found;
}

QList<QAction*> allMenuActions(const MainWindow& window)
{
    QList<QAction*> found;
    for (MainWindow::Menu which : allMenus)
        found += menuActions(window.menu(which));
    return found;
}

// The Alt letter of a text ("&Call": c; "R&&D": none), lower case, or a null QChar.
QChar mnemonic(QString text)
{
    text.replace(QStringLiteral("&&"), QString());
    const qsizetype amp = text.indexOf(QLatin1Char('&'));
    return amp >= 0 && amp + 1 < text.size() ? text.at(amp + 1).toLower() : QChar();
}

} // namespace

void TestMenuBar::everyMenuActionHasAShortcutOrSaysWhyNot()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    const QList<QAction*> actions = allMenuActions(window);
    QVERIFY(actions.size() >= 12);
    QStringList texts;
    for (QAction* action : actions) {
        texts << action->text();
        const bool deliberate = action->property(MainWindow::WithoutShortcutProperty).toBool();
        QVERIFY2(!action->shortcut().isEmpty() || deliberate, qPrintable(action->text()));
        QVERIFY2(!(deliberate && !action->shortcut().isEmpty()), qPrintable(action->text()));
        // Every menu action works while the menu bar is not shown (full screen, a native menu bar).
        QVERIFY2(window.actions().contains(action), qPrintable(action->text()));
    }
    // What the issue names, in its menu.
    const auto has = [&](MainWindow::Menu which, const char* objectName) {
        const QList<QAction*> inMenu = menuActions(window.menu(which));
        return std::any_of(inMenu.begin(), inMenu.end(),
            [&](QAction* action) { return action->objectName() == QLatin1String(objectName); });
    };
    QVERIFY(has(MainWindow::Menu::File, "connectClientAction"));
    QVERIFY(has(MainWindow::Menu::File, "historyAction"));
    QVERIFY(has(MainWindow::Menu::File, "reloadConfigurationAction"));
    QVERIFY(has(MainWindow::Menu::File, "quitAction"));
    QVERIFY(has(MainWindow::Menu::Edit, "filterAction"));
    QVERIFY(has(MainWindow::Menu::View, "repositoriesAction"));
    QVERIFY(has(MainWindow::Menu::View, "adaptersAction"));
    QVERIFY(has(MainWindow::Menu::View, "healthAction"));
    QVERIFY(has(MainWindow::Menu::Call, "questionsAction"));
    QVERIFY(has(MainWindow::Menu::Help, "aboutAction"));
    QVERIFY(has(MainWindow::Menu::View, "pauseAction"));
    QVERIFY(has(MainWindow::Menu::View, "resetLayoutAction"));
    QVERIFY(has(MainWindow::Menu::Edit, "searchHistoryAction"));
    QCOMPARE(window.findChild<QAction*>(QStringLiteral("questionsAction"))->shortcut(),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
}

void TestMenuBar::noTwoActionsShareAShortcut()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    // Every action of the window and its children: an ambiguous shortcut fires neither.
    QHash<QKeySequence, QString> seen;
    const QList<QAction*> actions = window.findChildren<QAction*>();
    for (QAction* action : actions) {
        const QList<QKeySequence> shortcuts = action->shortcuts();
        for (const QKeySequence& shortcut : shortcuts) {
            if (shortcut.isEmpty() || action->shortcutContext() != Qt::WindowShortcut)
                continue;
            QVERIFY2(!seen.contains(shortcut) || seen.value(shortcut) == action->text(),
                qPrintable(shortcut.toString() + QStringLiteral(": ") + seen.value(shortcut) + QStringLiteral(" and ")
                    + action->text()));
            seen.insert(shortcut, action->text());
        }
    }
}

void TestMenuBar::mnemonicsAvoidTheAnswerLetters()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    const QString answerLetters = QStringLiteral("aswdrh");
    QStringList letters;
    const QList<QAction*> titles = window.menuBar()->actions();
    QCOMPARE(titles.size(), allMenus.size());
    for (QAction* title : titles) {
        const QString text = title->text();
        const qsizetype amp = text.indexOf(QLatin1Char('&'));
        QVERIFY2(amp >= 0 && amp + 1 < text.size(), qPrintable(text));
        const QString letter = text.mid(amp + 1, 1).toLower();
        QVERIFY2(!answerLetters.contains(letter), qPrintable(text));
        QVERIFY2(!letters.contains(letter), qPrintable(text));
        letters << letter;
    }
}

void TestMenuBar::shortcutsWorkByKey()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QApplication::setActiveWindow(&window);
    QTRY_VERIFY(window.isActiveWindow());

    auto* health = window.findChild<QDockWidget*>(QStringLiteral("healthDock"));
    QVERIFY(health);
    // A tab behind Repositories at first: Ctrl+4 brings it forward, then closes it, then shows it.
    QVERIFY(health->isVisible());
    QTRY_VERIFY(health->visibleRegion().isEmpty());
    QTest::keyClick(&window, Qt::Key_4, Qt::ControlModifier);
    QTRY_VERIFY(!health->visibleRegion().isEmpty());
    QTest::keyClick(&window, Qt::Key_4, Qt::ControlModifier);
    QTRY_VERIFY(!health->isVisible());
    QTest::keyClick(&window, Qt::Key_4, Qt::ControlModifier);
    QTRY_VERIFY(health->isVisible());

    QTest::keyClick(&window, Qt::Key_R, Qt::ControlModifier);
    QCOMPARE(backend.configurationReloads, 1);

    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(window.callLogView()->filterEdit()->hasFocus());

    QTest::keyClick(&window, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(window.callLogView()->isPaused());
    QTest::keyClick(&window, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(!window.callLogView()->isPaused());
}

// Every key of the window's actions works while a field has the focus: a line edit claims Ctrl+E
// (end of line) and other Ctrl keys where the platform binds them (X11 desktops), and the window's
// shortcut then did nothing. The field keeps its editing keys (Ctrl+A selects all in it).
void TestMenuBar::windowShortcutsWorkFromAField()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QApplication::setActiveWindow(&window);
    QTRY_VERIFY(window.isActiveWindow());
    QLineEdit* filter = window.callLogView()->filterEdit();

    int tried = 0;
    const QList<QAction*> actions = window.actions();
    for (QAction* action : actions) {
        const QKeySequence shortcut = action->shortcut();
        if (shortcut.count() != 1 || action->shortcutContext() != Qt::WindowShortcut || !action->isEnabled())
            continue;
        const QKeyCombination key = shortcut[0];
        if (!(key.keyboardModifiers() & (Qt::ControlModifier | Qt::AltModifier)))
            continue;
        // What the action does (a file dialog, quitting) is not the point: only that it fires.
        QObject::disconnect(action, &QAction::triggered, nullptr, nullptr);
        QObject::disconnect(action, &QAction::toggled, nullptr, nullptr);
        QSignalSpy fired(action, &QAction::triggered);
        filter->setFocus();
        QTRY_VERIFY(filter->hasFocus());
        QTest::keyClick(filter, key.key(), key.keyboardModifiers());
        QVERIFY2(fired.size() == 1, qPrintable(action->text() + QStringLiteral(" by ") + shortcut.toString()));
        ++tried;
    }
    QVERIFY(tried >= 10);
    auto* exportAction = window.findChild<QAction*>(QStringLiteral("exportAction"));
    QVERIFY(exportAction);
    QCOMPARE(exportAction->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));

    // Select all stays the field's.
    filter->setText(QStringLiteral("abc"));
    filter->setFocus();
    filter->deselect();
    QTest::keyClick(filter, Qt::Key_A, Qt::ControlModifier);
    QCOMPARE(filter->selectedText(), QStringLiteral("abc"));
}

// No button or label of the window has a menu's Alt letter: Alt+C opened the Tools view's "&Call"
// button or the Call menu, whichever Qt picked.
void TestMenuBar::menuMnemonicsAreTheMenusOwn()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    QString menuLetters;
    const QList<QAction*> titles = window.menuBar()->actions();
    for (QAction* title : titles)
        menuLetters += mnemonic(title->text());
    QCOMPARE(menuLetters.size(), allMenus.size());
    const QList<QAbstractButton*> buttons = window.findChildren<QAbstractButton*>();
    QVERIFY(!buttons.isEmpty());
    for (const QAbstractButton* button : buttons) {
        const QChar letter = mnemonic(button->text());
        QVERIFY2(letter.isNull() || !menuLetters.contains(letter),
            qPrintable(button->objectName() + QStringLiteral(": ") + button->text()));
    }
    const QList<QLabel*> labels = window.findChildren<QLabel*>();
    for (const QLabel* label : labels) {
        if (!label->buddy())
            continue;
        const QChar letter = mnemonic(label->text());
        QVERIFY2(letter.isNull() || !menuLetters.contains(letter), qPrintable(label->text()));
    }
}

void TestMenuBar::everyQuestionsLettersAreItsOwn_data()
{
    QTest::addColumn<QString>("render");
    QTest::addColumn<QByteArray>("renderSpec");
    QTest::newRow("approval") << QStringLiteral("approval")
                              << QByteArray(R"({"render":"approval","rule":"ask","description":"Writes"})");
    QTest::newRow("choice") << QStringLiteral("choice")
                            << QByteArray(R"({"render":"choice","prompt":"Which?","choices":["a","b"]})");
    QTest::newRow("confirm") << QStringLiteral("confirm") << QByteArray(R"({"render":"confirm","prompt":"Sure?"})");
    QTest::newRow("connect: API key, sign-in offered")
        << QStringLiteral("connect")
        << QByteArray(R"({"render":"connect","provider":"github","kind":"api_key","scopes":[],"reason":"issues",)"
                      R"("oauthAvailable":true})");
    QTest::newRow("connect: API key")
        << QStringLiteral("connect")
        << QByteArray(R"({"render":"connect","provider":"github","kind":"api_key","scopes":[],"reason":"issues",)"
                      R"("oauthAvailable":false})");
    QTest::newRow("form") << QStringLiteral("form")
                          << QByteArray(R"({"render":"form","prompt":"Details","schema":{"type":"object",)"
                                        R"("properties":{"title":{"type":"string","title":"Title"}}}})");
}

// With a question of each kind waiting and every dock open, an Alt letter does one thing: none of
// the question's buttons and labels shares one with a menu, with another of its own, or with
// anything else in view (Alt+C was both "Connect" and the Call menu, Alt+S both "Allow for this
// session" and the Health dock's "Show", Alt+P both "Copy" and Help).
void TestMenuBar::everyQuestionsLettersAreItsOwn()
{
    QFETCH(QString, render);
    QFETCH(QByteArray, renderSpec);
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (QDockWidget* dock : window.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
        if (!dock->toggleViewAction()->isChecked())
            dock->toggleViewAction()->trigger();
    }
    PendingInteraction question;
    question.id = QStringLiteral("ia-1");
    question.kind = render == QStringLiteral("approval") ? InteractionKind::Approval : InteractionKind::ClientTool;
    question.render = *renderHintFromName(render);
    question.tool = render == QStringLiteral("connect") ? QStringLiteral("request_connection") : QStringLiteral("ask");
    question.route = render == QStringLiteral("approval") ? ToolRoute::builtin() : ToolRoute::client();
    question.arguments = "{}";
    question.renderSpec = renderSpec;
    question.sessionId = QStringLiteral("s1");
    question.clientName = QStringLiteral("claude-code");
    question.callId = 7;
    question.waiting = true;
    question.key = question.id;
    Q_EMIT backend.interactionPending(question);
    QTRY_VERIFY(window.interactionPanel()->currentWidget());
    QWidget* widget = window.interactionPanel()->currentWidget();

    // Every letter in view, with what has it.
    QMultiHash<QChar, QString> owners;
    for (QAction* title : window.menuBar()->actions())
        owners.insert(mnemonic(title->text()), QStringLiteral("menu ") + title->text());
    for (const QAbstractButton* button : window.findChildren<QAbstractButton*>()) {
        const QChar letter = mnemonic(button->text());
        if (!letter.isNull() && button->isVisibleTo(&window))
            owners.insert(letter, button->objectName() + QStringLiteral(" ") + button->text());
    }
    for (const QLabel* label : window.findChildren<QLabel*>()) {
        const QChar letter = mnemonic(label->text());
        if (!letter.isNull() && label->buddy() && label->isVisibleTo(&window))
            owners.insert(letter, QStringLiteral("label ") + label->text());
    }
    int checked = 0;
    const auto ownLetters = [&](const QString& text) {
        const QChar letter = mnemonic(text);
        if (letter.isNull())
            return;
        ++checked;
        const QStringList all = owners.values(letter);
        QVERIFY2(all.size() == 1, qPrintable(QStringLiteral("Alt+%1: %2").arg(letter, all.join(QStringLiteral(", ")))));
    };
    for (const QAbstractButton* button : widget->findChildren<QAbstractButton*>()) {
        if (button->isVisibleTo(&window))
            ownLetters(button->text());
    }
    for (const QLabel* label : widget->findChildren<QLabel*>()) {
        if (label->buddy() && label->isVisibleTo(&window))
            ownLetters(label->text());
    }
    QVERIFY2(checked >= 2, "the question showed fewer than two letters: nothing was compared");
}

// Help ▸ Keyboard Shortcuts (Ctrl+/ or F1) lists every key of the menus with its action, and closes
// by Escape and by Ctrl+W.
void TestMenuBar::keyboardShortcutsAreListed()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QApplication::setActiveWindow(&window);
    QTRY_VERIFY(window.isActiveWindow());
    auto* action = window.findChild<QAction*>(QStringLiteral("keyboardShortcutsAction"));
    QVERIFY(action);
    QVERIFY(menuActions(window.menu(MainWindow::Menu::Help)).contains(action));

    for (const QKeySequence& key : {QKeySequence(Qt::CTRL | Qt::Key_Slash), QKeySequence(Qt::Key_F1)}) {
        QApplication::setActiveWindow(&window); // again after the dialog closed
        QTRY_VERIFY(window.isActiveWindow());
        window.callLogView()->filterEdit()->setFocus();
        QTest::keyClick(window.callLogView()->filterEdit(), key[0].key(), key[0].keyboardModifiers());
        ShortcutsDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<ShortcutsDialog*>()) && dialog->isVisible());
        QTableWidget* table = dialog->table();
        QStringList rows;
        for (int row = 0; row < table->rowCount(); ++row) {
            rows << (table->item(row, 0) ? table->item(row, 0)->text() : QString()) + QStringLiteral(" = ")
                    + (table->item(row, 1) ? table->item(row, 1)->text() : QString());
        }
        const QString all = rows.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("Export… = ")
                     + QKeySequence(Qt::CTRL | Qt::Key_E).toString(QKeySequence::NativeText)),
            qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Filter calls = ")), qPrintable(all));
        QVERIFY2(rows.contains(QStringLiteral("File = ")), qPrintable(all)); // the menus as headings
        // Every menu action with a key is there.
        for (QAction* menuAction : allMenuActions(window)) {
            if (menuAction->shortcut().isEmpty())
                continue;
            QString text = menuAction->text();
            text.remove(QLatin1Char('&'));
            QVERIFY2(all.contains(text + QStringLiteral(" = ")), qPrintable(text));
        }
        const QSize screen = window.screen()->availableGeometry().size();
        QVERIFY(dialog->width() <= screen.width() && dialog->height() <= screen.height());
        QApplication::setActiveWindow(dialog);
        if (key[0].key() == Qt::Key_Slash)
            QTest::keyClick(dialog, Qt::Key_Escape);
        else
            QTest::keyClick(dialog, Qt::Key_W, Qt::ControlModifier);
        QTRY_VERIFY(!window.findChild<ShortcutsDialog*>());
    }
}

void TestMenuBar::addedFileActionsGoAboveQuit()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    auto* added = new QAction(QStringLiteral("Export…"), &window);
    window.addMenuAction(MainWindow::Menu::File, added);
    const QList<QAction*> actions = window.menu(MainWindow::Menu::File)->actions();
    QCOMPARE(actions.last()->objectName(), QStringLiteral("quitAction"));
    QVERIFY(actions.at(actions.size() - 2)->isSeparator());
    QCOMPARE(actions.at(actions.size() - 3), added);
    QVERIFY(window.actions().contains(added));
}

void TestMenuBar::iconsHaveFallbacks()
{
    for (const char* name : {"insert-link", "document-open-recent", "edit-find", "application-exit",
             "media-playback-pause", "media-playback-start", "view-refresh", "help-about", "dialog-question",
             "document-open", "document-save-as"}) {
        QVERIFY2(ThemeIcon::hasFallback(QLatin1String(name)), name);
        QVERIFY2(!ThemeIcon::icon(QLatin1String(name)).pixmap(16, 16).isNull(), name);
    }
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    for (const char* objectName : {"connectClientAction", "historyAction", "filterAction", "quitAction",
             "reloadConfigurationAction", "questionsAction", "aboutAction", "exportAction", "openNdjsonAction"}) {
        auto* action = window.findChild<QAction*>(QLatin1String(objectName));
        QVERIFY2(action, objectName);
        QVERIFY2(!action->icon().isNull(), objectName);
    }
}

QTEST_MAIN(TestMenuBar)
#include "tst_menubar.moc"
