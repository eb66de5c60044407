// The menu bar (issue 13, item 9): every action the window offers sits in a menu with its shortcut,
// or is marked as deliberately without one; no two actions share a shortcut; the menus' mnemonics
// leave the question widgets' Alt letters alone; shortcuts work by key; icons come from the theme or
// the resources' fallbacks.

#include <QTest>

#include "fakeoperator.h"

#include "calllogview.h"
#include "mainwindow.h"
#include "themeicon.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>

class TestMenuBar : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyMenuActionHasAShortcutOrSaysWhyNot();
    void noTwoActionsShareAShortcut();
    void mnemonicsAvoidTheAnswerLetters();
    void shortcutsWorkByKey();
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
