// RequestStates: the HMAC-protected requestState of input_required rounds: what it binds (the
// client identity, the tool, the arguments, an expiry), each way it is refused (altered body or
// signature, another client, another call, expired, used twice, not ours at all), the bound on
// remembered answers, and its key file (made owner-only, kept across opens, refused when damaged).

#include "interaction/requeststate.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using nlohmann::json;

class TestRequestState : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aStateVerifiesForItsOwnCall();
    void refusals_data();
    void refusals();
    void aStateAnswersOnce();
    void rememberedAnswersAreBounded();
    void theKeyFileIsMadeOwnerOnlyAndKept();
    void aDamagedKeyFileIsRefused();

private:
    qint64 m_now = 1'000'000;
    RequestStates states(int maxRemembered = 100'000)
    {
        RequestStates::Settings settings;
        settings.lifetimeMs = 60'000;
        settings.maxRemembered = maxRemembered;
        settings.clock = [this] { return m_now; };
        QString error;
        return *RequestStates::open(QString(), settings, &error);
    }
    static RequestStates::Claims claims()
    {
        RequestStates::Claims claims;
        claims.identity = QStringLiteral("declared:agent");
        claims.tool = QStringLiteral("choose_branch");
        claims.argumentsDigest = RequestStates::digestOf(json{{"question", "which?"}});
        claims.callId = 7;
        claims.keys = {QStringLiteral("answer")};
        return claims;
    }
};

void TestRequestState::aStateVerifiesForItsOwnCall()
{
    RequestStates signer = states();
    const QByteArray state = signer.issue(claims());
    QVERIFY(!state.isEmpty());
    QVERIFY(!state.contains("declared:agent")); // opaque to the eye, though not secret
    // The same arguments in another key order are the same call.
    const auto verified = signer.verify(state, QStringLiteral("declared:agent"), QStringLiteral("choose_branch"),
        RequestStates::digestOf(json::parse(R"({"question":"which?"})")));
    QVERIFY2(std::holds_alternative<RequestStates::Claims>(verified),
        qPrintable(std::get_if<QString>(&verified) ? *std::get_if<QString>(&verified) : QString()));
    const RequestStates::Claims& read = std::get<RequestStates::Claims>(verified);
    QCOMPARE(read.callId, qint64(7));
    QCOMPARE(read.round, 1);
    QCOMPARE(read.keys, QStringList{QStringLiteral("answer")});
    QCOMPARE(read.expiresAtMs, m_now + 60'000);
}

void TestRequestState::refusals_data()
{
    QTest::addColumn<QString>("attack");
    QTest::addColumn<QString>("expected");
    QTest::newRow("flipped byte in the body") << "body"
                                              << "altered";
    QTest::newRow("flipped byte in the signature") << "mac"
                                                   << "altered";
    QTest::newRow("signature cut short") << "short"
                                         << "altered";
    QTest::newRow("another client's") << "client"
                                      << "another client";
    QTest::newRow("another tool") << "tool"
                                  << "another call";
    QTest::newRow("other arguments") << "arguments"
                                     << "another call";
    QTest::newRow("expired") << "expired"
                             << "expired";
    QTest::newRow("not ours at all") << "garbage"
                                     << "not one this server gave out";
    QTest::newRow("oversized") << "huge"
                               << "not one this server gave out";
    QTest::newRow("another server's key") << "foreign"
                                          << "altered";
}

void TestRequestState::refusals()
{
    QFETCH(QString, attack);
    QFETCH(QString, expected);
    RequestStates signer = states();
    QByteArray state = signer.issue(claims());
    QString identity = QStringLiteral("declared:agent");
    QString tool = QStringLiteral("choose_branch");
    QByteArray digest = RequestStates::digestOf(json{{"question", "which?"}});
    const qsizetype dot = state.indexOf('.');
    if (attack == QLatin1String("body"))
        state[dot / 2] = state[dot / 2] == 'A' ? 'B' : 'A';
    else if (attack == QLatin1String("mac"))
        state[dot + 3] = state[dot + 3] == 'A' ? 'B' : 'A';
    else if (attack == QLatin1String("short"))
        state.chop(4);
    else if (attack == QLatin1String("client"))
        identity = QStringLiteral("declared:someone-else");
    else if (attack == QLatin1String("tool"))
        tool = QStringLiteral("delete_branch");
    else if (attack == QLatin1String("arguments"))
        digest = RequestStates::digestOf(json{{"question", "which one?"}});
    else if (attack == QLatin1String("expired"))
        m_now += 60'000;
    else if (attack == QLatin1String("garbage"))
        state = "eyJ2IjoxfQ";
    else if (attack == QLatin1String("huge"))
        state = QByteArray(100'000, 'a') + ".b";
    else if (attack == QLatin1String("foreign"))
        state = states().issue(claims());
    const auto verified = signer.verify(state, identity, tool, digest);
    const QString* refusal = std::get_if<QString>(&verified);
    QVERIFY2(refusal, "a hostile state was accepted");
    QVERIFY2(refusal->contains(expected), qPrintable(*refusal));
}

void TestRequestState::aStateAnswersOnce()
{
    RequestStates signer = states();
    const QByteArray state = signer.issue(claims());
    const QString identity = QStringLiteral("declared:agent");
    const QString tool = QStringLiteral("choose_branch");
    const QByteArray digest = RequestStates::digestOf(json{{"question", "which?"}});
    auto first = signer.verify(state, identity, tool, digest);
    QVERIFY(std::holds_alternative<RequestStates::Claims>(first));
    signer.consume(std::get<RequestStates::Claims>(first));
    const auto replay = signer.verify(state, identity, tool, digest);
    QVERIFY(std::get_if<QString>(&replay) && std::get_if<QString>(&replay)->contains(QStringLiteral("used already")));
    // Forgotten once it has expired: it is refused as expired then, not remembered for ever.
    m_now += 60'000;
    const auto late = signer.verify(state, identity, tool, digest);
    QVERIFY(std::get_if<QString>(&late) && std::get_if<QString>(&late)->contains(QStringLiteral("expired")));
}

void TestRequestState::rememberedAnswersAreBounded()
{
    RequestStates signer = states(3);
    for (int i = 0; i < 3; ++i) {
        const QByteArray state = signer.issue(claims());
        auto verified = signer.verify(state, claims().identity, claims().tool, claims().argumentsDigest);
        signer.consume(std::get<RequestStates::Claims>(verified));
    }
    QVERIFY(signer.issue(claims()).isEmpty()); // full: the caller asks at the console instead
    m_now += 60'000; // they expire, and room comes back
    QVERIFY(!signer.issue(claims()).isEmpty());
}

void TestRequestState::theKeyFileIsMadeOwnerOnlyAndKept()
{
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("request-state.key"));
    QString error;
    std::optional<RequestStates> first = RequestStates::open(path, {}, &error);
    QVERIFY2(first, qPrintable(error));
    QCOMPARE(QFile::permissions(path)
            & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup | QFileDevice::WriteOther),
        QFileDevice::Permissions());
    const QByteArray state = first->issue(claims());
    // Another process (or a restart) with the same key accepts what the first gave out.
    std::optional<RequestStates> second = RequestStates::open(path, {}, &error);
    QVERIFY2(second, qPrintable(error));
    QVERIFY(std::holds_alternative<RequestStates::Claims>(
        second->verify(state, claims().identity, claims().tool, claims().argumentsDigest)));
}

void TestRequestState::aDamagedKeyFileIsRefused()
{
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("request-state.key"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not a key\n");
    file.close();
    QString error;
    QVERIFY(!RequestStates::open(path, {}, &error));
    QVERIFY2(error.contains(QStringLiteral("is not a request-state key")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestRequestState)
#include "tst_requeststate.moc"
