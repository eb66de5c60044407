#pragma once

// Waits for SecretStore's callbacks: each helper starts one operation and spins the event loop
// until it answers (or `timeoutMs` passes, and then `answered` is false).

#include "auth/secretstore.h"

#include <QTest>

#include <memory>

struct SecretStoreAnswer
{
    bool answered = false;
    bool ok = false;
    std::optional<QByteArray> secret;
    QString error;
};

namespace SecretStoreWait {

inline SecretStoreAnswer wait(const std::shared_ptr<SecretStoreAnswer>& answer, int timeoutMs)
{
    // A timeout leaves `answered` and `ok` false, which the tests see.
    (void)QTest::qWaitFor([&] { return answer->answered; }, timeoutMs);
    return *answer;
}

inline SecretStoreAnswer save(SecretStore& store, const QString& key, const QByteArray& secret, int timeoutMs = 20'000)
{
    // Shared: a callback arriving after a timed-out wait must not write into a dead stack frame.
    auto answer = std::make_shared<SecretStoreAnswer>();
    store.save(key, secret, [answer](bool ok, const QString& error) {
        answer->answered = true;
        answer->ok = ok;
        answer->error = error;
    });
    return wait(answer, timeoutMs);
}

inline SecretStoreAnswer load(SecretStore& store, const QString& key, int timeoutMs = 20'000)
{
    auto answer = std::make_shared<SecretStoreAnswer>();
    store.load(key, [answer](std::optional<QByteArray> secret, const QString& error) {
        answer->answered = true;
        answer->ok = error.isEmpty();
        answer->secret = std::move(secret);
        answer->error = error;
    });
    return wait(answer, timeoutMs);
}

inline SecretStoreAnswer remove(SecretStore& store, const QString& key, int timeoutMs = 20'000)
{
    auto answer = std::make_shared<SecretStoreAnswer>();
    store.remove(key, [answer](bool ok, const QString& error) {
        answer->answered = true;
        answer->ok = ok;
        answer->error = error;
    });
    return wait(answer, timeoutMs);
}

} // namespace SecretStoreWait
