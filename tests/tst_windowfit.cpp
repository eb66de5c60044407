// MainWindow on small screens, large fonts and high scaling (issue 24, item 3): with every dock open
// and a question waiting, the window's frame fits the screen's available area, its minimum size does
// too, and the status bar, the call log's Tool column, an approval's arguments and every answer button
// are in view. A layout saved on a larger screen (or at a smaller font) is fitted to the screen it is
// restored on, and one saved on a short screen comes back as it was.
//
// The scale factor comes from QT_SCALE_FACTOR, which Qt reads once when the application starts:
// CTest runs this executable once per factor (1, 1.25, 1.5 and 2; tests/CMakeLists.txt), and each
// run goes through the fonts (the platform's, 12 and 14 pt) on two offscreen screens. Up to 1.5x they
// are a 1366x768 laptop and a 1280x720 screen (screens/small-laptops.json): at 1.5x the window has
// 910x512 and 853x480 logical pixels. At 2x they are 2732x1536 and 2560x1440 panels
// (screens/hidpi-laptops.json), 1366x768 and 1280x720 logical: 2x on a 1366x768 panel would leave
// 683x384, less than desktops offer (GNOME's least logical area is 800x480).
//
// Where the log, the docks along the bottom and a question would not fit above each other (12 and
// 14 pt at 1.5x), the questions take the right side down to the status bar and the toolbar's buttons
// share the menu bar's row: the window fits there too.

#include "testpaths.h"
#include <QTest>

#include "fakeoperator.h"

#include "callinspector.h"
#include "calllogview.h"
#include "interactionpanel.h"
#include "interactionwidget.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "repositoryview.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBar>

class TestWindowFit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fitsWithEveryDockOpen_data();
    void fitsWithEveryDockOpen();
    void aLayoutFromALargerScreenIsFitted_data();
    void aLayoutFromALargerScreenIsFitted();
    void aLayoutComesBackAsItWasSaved_data();
    void aLayoutComesBackAsItWasSaved();
    void theAnswersFitTheQuestionsAtTheirLeastWidth_data();
    void theAnswersFitTheQuestionsAtTheirLeastWidth();
};

namespace {

// The application font at a point size while a test runs (0: the platform's own).
struct ApplicationFont
{
    explicit ApplicationFont(int pointSize)
        : before(QApplication::font())
    {
        if (pointSize <= 0)
            return;
        QFont font = before;
        font.setPointSize(pointSize);
        QApplication::setFont(font);
    }
    ~ApplicationFont() { QApplication::setFont(before); }
    const QFont before;
};

PendingInteraction approval()
{
    PendingInteraction question;
    question.id = QStringLiteral("ia-1");
    question.kind = InteractionKind::Approval;
    question.render = RenderHint::Approval;
    question.tool = QStringLiteral("notes.write");
    question.route = ToolRoute::builtin();
    question.arguments = R"({"path":"/home/ada/notes/today.md","content":"Buy milk"})";
    question.renderSpec = R"({"render":"approval","rule":"built-in default","description":"Writes a note"})";
    question.clientName = QStringLiteral("claude-code");
    question.key = question.id;
    question.waiting = true;
    return question;
}

// The largest connect question: sign in or an API key, four answers.
PendingInteraction connectQuestion()
{
    PendingInteraction question = approval();
    question.kind = InteractionKind::ClientTool;
    question.render = RenderHint::Connect;
    question.tool = QStringLiteral("request_connection");
    question.route = ToolRoute::client();
    question.arguments = "{}";
    question.renderSpec = R"({"render":"connect","provider":"github","kind":"either","oauthAvailable":true,)"
                          R"("reason":"Open the release issues"})";
    return question;
}

ToolCall call(qint64 id)
{
    ToolCall c;
    c.id = id;
    c.tool = QStringLiteral("mcp__github__create_issue");
    c.route = ToolRoute::builtin();
    c.clientName = QStringLiteral("claude-code");
    c.status = CallStatus::Ok;
    c.startedAtMs = 1'700'000'000'000 + id;
    return c;
}

// The screen of the row: "laptop" for 1366x768, "small" for 1280x720 (device pixels up to 1.5x,
// logical ones at 2x).
QScreen* screenOfSize(const QSize& size)
{
    const QString name = size.width() == 1366 ? QStringLiteral("laptop") : QStringLiteral("small");
    for (QScreen* screen : QGuiApplication::screens()) {
        if (screen->name() == name)
            return screen;
    }
    return nullptr;
}

QString describe(const QRect& rect)
{
    return QStringLiteral("%1x%2+%3+%4").arg(rect.width()).arg(rect.height()).arg(rect.x()).arg(rect.y());
}

// Whether `widget` can be seen in `window`: shown, of some size, inside the window's rectangle and
// not hidden behind a tab or scrolled out of its scroll area.
bool inView(const QWidget* widget, const QWidget* window, QString* why)
{
    if (!widget->isVisible()) {
        *why = widget->objectName() + QStringLiteral(" is hidden");
        return false;
    }
    if (widget->width() <= 0 || widget->height() <= 0) {
        *why = widget->objectName() + QStringLiteral(" has no size");
        return false;
    }
    const QRect inWindow(widget->mapTo(window, QPoint(0, 0)), widget->size());
    if (!window->rect().contains(inWindow)) {
        *why = QStringLiteral("%1 at %2 is outside the window's %3")
                   .arg(widget->objectName(), describe(inWindow), describe(window->rect()));
        return false;
    }
    // A widget cut off by its parents (a scroll area's viewport, a tab in front) shows less of itself.
    if (widget->visibleRegion().boundingRect() != widget->rect()) {
        *why = QStringLiteral("%1 shows only %2 of %3")
                   .arg(widget->objectName(), describe(widget->visibleRegion().boundingRect()),
                       describe(widget->rect()));
        return false;
    }
    return true;
}

// The screens and fonts; with `questions`, each with an approval and then with a connect question
// (its API key field in view with its answers).
void addRows(bool questions = false)
{
    QTest::addColumn<QSize>("screenSize");
    QTest::addColumn<int>("pointSize");
    QTest::addColumn<bool>("connectQuestion");
    for (const QSize& screen : {QSize(1366, 768), QSize(1280, 720)}) {
        for (const int points : {0, 12, 14}) {
            for (const bool connect : questions ? QList<bool>{false, true} : QList<bool>{false}) {
                const QString name
                    = QStringLiteral("%1x%2 %3%4")
                          .arg(screen.width())
                          .arg(screen.height())
                          .arg(points ? QStringLiteral("%1 pt").arg(points) : QStringLiteral("default font"),
                              connect ? QStringLiteral(" connect") : QString());
                QTest::newRow(qPrintable(name)) << screen << points << connect;
            }
        }
    }
}

} // namespace

void TestWindowFit::fitsWithEveryDockOpen_data()
{
    addRows(true);
}

void TestWindowFit::fitsWithEveryDockOpen()
{
    QFETCH(QSize, screenSize);
    QFETCH(int, pointSize);
    QFETCH(bool, connectQuestion);
    const ApplicationFont font(pointSize);
    QScreen* screen = screenOfSize(screenSize);
    QVERIFY(screen);
    const QRect available = screen->availableGeometry();

    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.setScreen(screen);
    window.resetLayout(); // the first layout, for this screen
    window.move(available.topLeft());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (QDockWidget* dock : window.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
        if (!dock->toggleViewAction()->isChecked())
            dock->toggleViewAction()->trigger();
        QTRY_VERIFY2(dock->isVisible(), qPrintable(dock->objectName()));
    }
    Q_EMIT backend.callsUpdated({call(1), call(2), call(3)});
    Q_EMIT backend.interactionPending(connectQuestion ? ::connectQuestion() : approval());
    QTRY_VERIFY(window.interactionPanel()->currentWidget());
    if (qEnvironmentVariableIsSet("SWITCHBOARD_LAYOUT_DEBUG")) {
        qDebug() << "central" << window.centralWidget()->minimumSizeHint() << "status"
                 << window.statusBar()->minimumSizeHint() << "menu" << window.menuWidget()->minimumSizeHint();
        for (QDockWidget* dock : window.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly))
            qDebug() << dock->objectName() << window.dockWidgetArea(dock) << dock->minimumSizeHint()
                     << dock->geometry();
        qDebug() << "log" << window.callLogView()->minimumSizeHint() << "inspector"
                 << window.inspector()->minimumSizeHint() << "essential"
                 << window.callLogView()->essentialColumnsWidth() << "card"
                 << window.interactionPanel()->currentWidget()->minimumSizeHint();
        for (QWidget* child : window.statusBar()->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            qDebug() << "  status" << child->objectName() << child->metaObject()->className() << child->isVisible()
                     << child->minimumSizeHint();
        for (QWidget* bar : window.findChildren<QToolBar*>())
            qDebug() << bar->objectName() << bar->minimumSizeHint();
    }

    const QString sizes = QStringLiteral("screen %1 (scale %2), window frame %3, minimum %4x%5")
                              .arg(describe(available))
                              .arg(screen->devicePixelRatio())
                              .arg(describe(window.frameGeometry()))
                              .arg(window.minimumSizeHint().width())
                              .arg(window.minimumSizeHint().height());
    QVERIFY2(window.minimumSizeHint().width() <= available.width(), qPrintable(sizes));
    QVERIFY2(window.minimumSizeHint().height() <= available.height(), qPrintable(sizes));
    QTRY_VERIFY2(available.contains(window.frameGeometry()), qPrintable(sizes));

    QString why;
    QTRY_VERIFY2(inView(window.statusBar(), &window, &why), qPrintable(why + QStringLiteral("; ") + sizes));

    // The log's Tool column: its header section starts inside the viewport and has a width.
    QTableView* table = window.callLogView()->tableView();
    QVERIFY2(inView(table, &window, &why), qPrintable(why + QStringLiteral("; ") + sizes));
    const QHeaderView* header = table->horizontalHeader();
    const int toolAt = header->sectionViewportPosition(CallColumns::ToolColumn);
    const QString toolColumn = QStringLiteral("Tool column at %1, %2 wide, viewport %3 wide; ")
                                   .arg(toolAt)
                                   .arg(header->sectionSize(CallColumns::ToolColumn))
                                   .arg(table->viewport()->width());
    QVERIFY2(!header->isSectionHidden(CallColumns::ToolColumn), qPrintable(toolColumn + sizes));
    QVERIFY2(header->sectionSize(CallColumns::ToolColumn) > 0, qPrintable(toolColumn + sizes));
    QVERIFY2(toolAt >= 0 && toolAt < table->viewport()->width(), qPrintable(toolColumn + sizes));

    // Every answer button of the question, in view without scrolling.
    InteractionWidget* question = window.interactionPanel()->currentWidget();
    const auto buttons = question->findChild<QWidget*>(QStringLiteral("answerButtons"))->findChildren<QPushButton*>();
    QVERIFY(buttons.size() >= 4);
    for (const QPushButton* button : buttons)
        QTRY_VERIFY2(inView(button, &window, &why), qPrintable(why + QStringLiteral("; ") + sizes));
    // And what it asks, whole, above them: an approval's arguments, a connect question's key field.
    const QWidget* asked = connectQuestion
        ? static_cast<QWidget*>(question->findChild<QLineEdit*>(QStringLiteral("apiKeyEdit")))
        : question->findChild<QPlainTextEdit*>(QStringLiteral("argumentsText"));
    QVERIFY(asked);
    QTRY_VERIFY2(inView(asked, &window, &why), qPrintable(why + QStringLiteral("; ") + sizes));
}

void TestWindowFit::aLayoutFromALargerScreenIsFitted_data()
{
    addRows();
}

void TestWindowFit::aLayoutFromALargerScreenIsFitted()
{
    // Saved at the platform's font on a window larger than the screen (a desktop monitor's layout),
    // restored on the laptop at this font: the window shrinks to the screen and its minimum fits it.
    QFETCH(QSize, screenSize);
    QFETCH(int, pointSize);
    QScreen* screen = screenOfSize(screenSize);
    QVERIFY(screen);
    const QRect available = screen->availableGeometry();
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("console.conf"));
    FakeOperator backend;
    {
        MainWindow window(&backend, 100, false);
        window.setScreen(screen);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.setGeometry(QRect(available.topLeft() + QPoint(40, 40), available.size() * 3 / 2));
        QTRY_COMPARE(window.size(), available.size() * 3 / 2);
        window.close();
        QSettings settings(path, QSettings::IniFormat);
        window.saveLayout(settings);
    }
    const ApplicationFont font(pointSize);
    MainWindow window(&backend, 100, false);
    window.setScreen(screen);
    QSettings settings(path, QSettings::IniFormat);
    window.restoreLayout(settings); // false when it starts over, laid out for this screen and font
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    Q_EMIT backend.interactionPending(approval());
    QTRY_VERIFY(window.interactionPanel()->currentWidget());
    const QString sizes = QStringLiteral("screen %1, window frame %2, minimum %3x%4")
                              .arg(describe(available), describe(window.frameGeometry()))
                              .arg(window.minimumSizeHint().width())
                              .arg(window.minimumSizeHint().height());
    QVERIFY2(window.minimumSizeHint().width() <= available.width(), qPrintable(sizes));
    QVERIFY2(window.minimumSizeHint().height() <= available.height(), qPrintable(sizes));
    QTRY_VERIFY2(available.contains(window.frameGeometry()), qPrintable(sizes));
    QString why;
    QTRY_VERIFY2(inView(window.statusBar(), &window, &why), qPrintable(why + QStringLiteral("; ") + sizes));
}

void TestWindowFit::aLayoutComesBackAsItWasSaved_data()
{
    addRows();
}

void TestWindowFit::aLayoutComesBackAsItWasSaved()
{
    // Saved and restored on the same screen at the same font (short or not), and then Reset layout:
    // the toolbar's buttons are in view each time, in their own row or in the menu bar's.
    QFETCH(QSize, screenSize);
    QFETCH(int, pointSize);
    const ApplicationFont font(pointSize);
    QScreen* screen = screenOfSize(screenSize);
    QVERIFY(screen);
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("console.conf"));
    FakeOperator backend;
    const auto toolBarInView = [](MainWindow& window) {
        auto* toolBar = window.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        QString why;
        const bool shown = toolBar && inView(toolBar, &window, &why);
        const bool placed = toolBar
            && (window.isShort() ? window.menuBar()->cornerWidget(Qt::TopRightCorner) == toolBar
                                 : window.toolBarArea(toolBar) == Qt::TopToolBarArea);
        return shown && placed;
    };
    bool wasShort = false;
    {
        MainWindow window(&backend, 100, false);
        window.setScreen(screen);
        window.resetLayout();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        wasShort = window.isShort();
        QTRY_VERIFY(toolBarInView(window));
        // The bottom tabs show the Repositories, as they start (not the tab a move between layouts
        // left in front), and with no call selected the inspector says how to fill it, in view
        // where the inspector scrolls too.
        if (!window.isCompact()) // narrow, the Questions tab is in front there
            QTRY_VERIFY(!window.repositoryView()->visibleRegion().isEmpty());
        auto* placeholder = window.findChild<QLabel*>(QStringLiteral("inspectorPlaceholder"));
        QVERIFY(placeholder && placeholder->isVisible());
        const QRect text(
            0, 0, placeholder->width(), placeholder->contentsMargins().top() + placeholder->fontMetrics().height());
        const auto textShows = [&] {
            const QRect shown = placeholder->visibleRegion().boundingRect();
            return shown.top() <= text.top() && shown.bottom() >= text.bottom() && shown.width() > text.width() / 2;
        };
        QTRY_VERIFY2(textShows(),
            qPrintable(QStringLiteral("the placeholder shows %1 of %2")
                           .arg(describe(placeholder->visibleRegion().boundingRect()), describe(placeholder->rect()))));
        window.close();
        QSettings settings(path, QSettings::IniFormat);
        window.saveLayout(settings);
    }
    // At 1.5x, 12 and 14 pt are short (853x480 and 910x512 logical pixels); nothing at 1x is.
    const double scale = qEnvironmentVariable("QT_SCALE_FACTOR", QStringLiteral("1")).toDouble();
    if (scale == 1.5 && pointSize >= 12)
        QVERIFY(wasShort);
    if (scale == 1)
        QVERIFY(!wasShort);
    MainWindow window(&backend, 100, false);
    window.setScreen(screen);
    QSettings settings(path, QSettings::IniFormat);
    QVERIFY(window.restoreLayout(settings));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.isShort(), wasShort);
    QTRY_VERIFY(toolBarInView(window));
    QVERIFY(screen->availableGeometry().contains(window.frameGeometry()));
    window.resetLayout();
    QCOMPARE(window.isShort(), wasShort);
    QTRY_VERIFY(toolBarInView(window));
}

void TestWindowFit::theAnswersFitTheQuestionsAtTheirLeastWidth_data()
{
    QTest::addColumn<int>("pointSize");
    QTest::addColumn<QString>("render");
    for (const int points : {0, 12, 14, 20, 28}) {
        for (const QString& render :
            {QStringLiteral("approval"), QStringLiteral("connect"), QStringLiteral("connect with a long title")}) {
            const QString font = points ? QStringLiteral("%1 pt").arg(points) : QStringLiteral("default font");
            QTest::newRow(qPrintable(render + QLatin1Char(' ') + font)) << points << render;
        }
    }
}

void TestWindowFit::theAnswersFitTheQuestionsAtTheirLeastWidth()
{
    // The Questions dock as narrow as it goes, at a font: every answer button of the question is
    // whole in it (they wrap onto rows, but one that is wider than the dock would be cut). At the
    // platform's font the dock is no wider than the fixed 380 pixels it had before it followed the font
    // (unless an answer is wider: a provider's long title on its sign-in button).
    QFETCH(int, pointSize);
    QFETCH(QString, render);
    const ApplicationFont font(pointSize);
    FakeOperator backend;
    InteractionPanel panel;
    PendingInteraction question = approval();
    if (render.startsWith(QLatin1String("connect"))) {
        question = connectQuestion();
        // A provider's title from the configuration, on the sign-in button: wider than the list needs.
        if (render.endsWith(QLatin1String("long title")))
            question.renderSpec.replace(R"("provider":"github",)",
                R"("provider":"github","providerTitle":"GitHub Enterprise Server of the Example Corporation",)");
    }
    panel.addInteraction(question);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.resize(1, 700); // as narrow as its minimum allows
    InteractionWidget* card = panel.currentWidget();
    QVERIFY(card);
    QTRY_VERIFY(card->isVisible());
    QTRY_COMPARE(panel.width(), panel.minimumSizeHint().width());
    if (pointSize == 0 && !render.endsWith(QLatin1String("long title")))
        QVERIFY2(panel.width() <= 380, qPrintable(QString::number(panel.width())));
    const auto buttons = card->findChild<QWidget*>(QStringLiteral("answerButtons"))->findChildren<QPushButton*>();
    QVERIFY(buttons.size() >= 2);
    QString why;
    for (const QPushButton* button : buttons) {
        if (button->isHidden())
            continue;
        // Whole, and not squeezed below its size (which cuts its text inside it).
        QTRY_VERIFY2(inView(button, &panel, &why) && button->width() >= button->sizeHint().width(),
            qPrintable(why
                + QStringLiteral("; dock %1 wide, %2 %3 wide for %4")
                      .arg(panel.width())
                      .arg(button->objectName())
                      .arg(button->width())
                      .arg(button->sizeHint().width())));
    }
}

int main(int argc, char** argv)
{
    const bool hidpi = qEnvironmentVariable("QT_SCALE_FACTOR").toDouble() >= 2;
    qputenv("QT_QPA_PLATFORM",
        QByteArray("offscreen:configfile=") + TestPaths::sourceDir().toUtf8()
            + (hidpi ? "/screens/hidpi-laptops.json" : "/screens/small-laptops.json"));
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestWindowFit test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_windowfit.moc"
