// ConnectClientDialog: the token is masked on screen, copied whole, and left out with --no-auth.

#include "connectclientdialog.h"
#include "copybutton.h"
#include "snippetwidget.h"

#include <QCheckBox>
#include <QClipboard>
#include <QGuiApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTest>

namespace {

const QByteArray token = "sb_Secret0123456789abcdefghijklmnopqrstuvwxyzAB";
const QUrl url(QStringLiteral("http://127.0.0.1:4567/mcp"));

// Every piece of text a person can see in the dialog.
QString visibleText(const QWidget& dialog)
{
    QStringList texts;
    const auto labels = dialog.findChildren<QLabel*>();
    for (const QLabel* label : labels)
        texts << label->text();
    const auto edits = dialog.findChildren<QPlainTextEdit*>();
    for (const QPlainTextEdit* edit : edits)
        texts << edit->toPlainText();
    return texts.join(QLatin1Char('\n'));
}

SnippetWidget* snippet(const QWidget& dialog, const char* name)
{
    auto* widget = dialog.findChild<SnippetWidget*>(QLatin1String(name));
    if (!widget)
        qFatal("no snippet %s", name);
    return widget;
}

} // namespace

class TestConnectClientDialog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void masksTheTokenButCopiesItWhole()
    {
        ConnectClientDialog dialog(url, token);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));

        const QString shown = visibleText(dialog);
        QVERIFY(!shown.contains(QLatin1String(token)));
        QVERIFY(!shown.contains(QStringLiteral("Secret0123")));
        QVERIFY(shown.contains(url.toString()));
        QVERIFY(snippet(dialog, "claudeCodeSnippet")->displayText().contains(QStringLiteral("Bearer sb_…")));

        SnippetWidget* claude = snippet(dialog, "claudeCodeSnippet");
        QTest::mouseClick(claude->copyButton(), Qt::LeftButton);
        QCOMPARE(QGuiApplication::clipboard()->text(),
            QStringLiteral("claude mcp add --transport http switchboard http://127.0.0.1:4567/mcp "
                           "--header \"Authorization: Bearer ")
                + QLatin1String(token) + QLatin1Char('"'));
        QCOMPARE(claude->copyButton()->text(), QStringLiteral("Copied"));

        QTest::mouseClick(snippet(dialog, "mcpServersSnippet")->copyButton(), Qt::LeftButton);
        const QJsonObject server = QJsonDocument::fromJson(QGuiApplication::clipboard()->text().toUtf8())
                                       .object()[QLatin1String("mcpServers")]
                                       .toObject()[QLatin1String("switchboard")]
                                       .toObject();
        QCOMPARE(server[QLatin1String("type")].toString(), QStringLiteral("http"));
        QCOMPARE(server[QLatin1String("url")].toString(), url.toString());
        QCOMPARE(server[QLatin1String("headers")].toObject()[QLatin1String("Authorization")].toString(),
            QStringLiteral("Bearer ") + QLatin1String(token));

        QTest::mouseClick(snippet(dialog, "inspectorHeaderSnippet")->copyButton(), Qt::LeftButton);
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("Bearer ") + QLatin1String(token));
        QTest::mouseClick(snippet(dialog, "inspectorUrlSnippet")->copyButton(), Qt::LeftButton);
        QCOMPARE(QGuiApplication::clipboard()->text(), url.toString());
    }

    void showTokenReveals()
    {
        ConnectClientDialog dialog(url, token);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto* check = dialog.findChild<QCheckBox*>(QStringLiteral("showTokenCheck"));
        QVERIFY(check);
        QVERIFY(!check->isChecked());
        // Click the box itself: the check box is as wide as the dialog, its centre is empty space.
        const QPoint box(check->height() / 2, check->height() / 2);
        QTest::mouseClick(check, Qt::LeftButton, Qt::NoModifier, box);
        QVERIFY(dialog.isTokenShown());
        QVERIFY(snippet(dialog, "claudeCodeSnippet")->displayText().contains(QLatin1String(token)));
        QVERIFY(snippet(dialog, "mcpServersSnippet")->displayText().contains(QLatin1String(token)));
        QTest::mouseClick(check, Qt::LeftButton, Qt::NoModifier, box);
        QVERIFY(!visibleText(dialog).contains(QLatin1String(token)));
    }

    void noAuthLeavesTheHeaderOut()
    {
        ConnectClientDialog dialog(url, QByteArray());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(!dialog.findChild<QCheckBox*>(QStringLiteral("showTokenCheck")));
        QVERIFY(!dialog.findChild<SnippetWidget*>(QStringLiteral("inspectorHeaderSnippet")));
        QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("noAuthWarning")));
        QCOMPARE(snippet(dialog, "claudeCodeSnippet")->copyText(),
            QStringLiteral("claude mcp add --transport http switchboard http://127.0.0.1:4567/mcp"));
        QVERIFY(!snippet(dialog, "mcpServersSnippet")->copyText().contains(QStringLiteral("Authorization")));
        QVERIFY(!snippet(dialog, "mcpServersSnippet")->copyText().contains(QStringLiteral("headers")));
    }

    void maskKeepsOnlyThePrefix()
    {
        QCOMPARE(ConnectClientDialog::maskToken("sb_abcdef"), QStringLiteral("sb_…") + QString(12, QChar(0x2022)));
        // A token without a short prefix shows nothing of itself.
        QVERIFY(!ConnectClientDialog::maskToken("averylongcustomtoken").contains(QStringLiteral("ave")));
    }

    void snippetsShowWhole()
    {
        // Every snippet is tall enough for its wrapped text, with the token shown (the longest case).
        ConnectClientDialog dialog(url, token);
        dialog.setTokenShown(true);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const auto snippets = dialog.findChildren<SnippetWidget*>();
        QCOMPARE(snippets.size(), 5);
        for (const SnippetWidget* snippet : snippets) {
            const QLabel* label = snippet->textLabel();
            QVERIFY(label->height() >= label->heightForWidth(label->width()));
        }
        if (qEnvironmentVariableIsSet("SB_GRAB"))
            dialog.grab().save(QString::fromLocal8Bit(qgetenv("SB_GRAB")));
    }
};

QTEST_MAIN(TestConnectClientDialog)
#include "tst_connectclientdialog.moc"
