#include "auth/secretstore.h"

#include "boundedjson.h"
#include "store/statefilelock.h"

#include <QAbstractEventDispatcher>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QPointer>
#include <QSaveFile>
#include <QTimer>
#include <QtConcurrent>

#include <qt6keychain/keychain.h>

#include <glib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace {

constexpr auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr int fileFormatVersion = 1;

QString remedy()
{
    return QStringLiteral("Start a keyring and unlock it (GNOME Keyring, KWallet, or KeePassXC with its Secret "
                          "Service), or keep secrets in an owner-only file instead by setting `secrets: file` in the "
                          "configuration.");
}

QString systemError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

QString octalMode(mode_t mode)
{
    return QStringLiteral("0%1").arg(uint(mode & 07777), 3, 8, QLatin1Char('0'));
}

// One lock for every file-mode operation in the process: a save is read, change, write, and two
// stores on the same file must not interleave theirs.
QMutex& fileMutex()
{
    static QMutex mutex;
    return mutex;
}

// Reads the secrets file into `secrets` (key → base64). A missing or empty file is an empty store.
// Like ssh with its keys, a file others could read or write is refused rather than tightened: its
// secrets may already have leaked, and the operator should know.
bool readSecretsFile(const QString& path, QJsonObject* secrets, QString* error)
{
    *secrets = {};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (!file.exists())
            return true;
        *error = QStringLiteral("cannot read the secrets file %1: %2").arg(path, file.errorString());
        return false;
    }
    struct stat info = {};
    if (::fstat(file.handle(), &info) != 0) {
        *error = QStringLiteral("cannot read the secrets file %1: %2").arg(path, systemError());
        return false;
    }
    if (!S_ISREG(info.st_mode)) {
        *error = QStringLiteral("the secrets file %1 is not a regular file").arg(path);
        return false;
    }
    if (info.st_uid != ::geteuid()) {
        *error = QStringLiteral("the secrets file %1 belongs to another user (uid %2); refusing to use it")
                     .arg(path)
                     .arg(info.st_uid);
        return false;
    }
    if ((info.st_mode & 077) != 0) {
        *error = QStringLiteral("the secrets file %1 has mode %2, so other users could read or change it; refusing "
                                "to use it. Check the file, consider replacing the secrets in it, then run `chmod "
                                "600 %1`.")
                     .arg(path, octalMode(info.st_mode));
        return false;
    }
    const QByteArray contents = file.readAll();
    if (file.error() != QFileDevice::NoError) {
        *error = QStringLiteral("cannot read the secrets file %1: %2").arg(path, file.errorString());
        return false;
    }
    if (contents.trimmed().isEmpty())
        return true;

    // Never repaired by overwriting: the file may hold other secrets, so the operator decides.
    const QString damaged = QStringLiteral("the secrets file %1 is damaged (%2); it was left as it is. Repair it or "
                                           "move it aside (it may hold other saved secrets).");
    const BoundedJson::Result<nlohmann::json> parsed = BoundedJson::parse(contents, BoundedJson::Limits::record());
    if (!parsed.ok) {
        // Where, not nlohmann's words: those quote what it last read, which may be part of a secret.
        *error = damaged.arg(path,
            parsed.problem == BoundedJson::Problem::Malformed
                ? QStringLiteral("not JSON at byte %1").arg(parsed.position)
                : QStringLiteral("not JSON: %1").arg(QString::fromStdString(parsed.error)));
        return false;
    }
    const nlohmann::json& root = parsed.value;
    const auto stored = root.is_object() ? root.find("secrets") : root.end();
    if (!root.is_object() || stored == root.end() || !stored->is_object()) {
        *error = damaged.arg(path, QStringLiteral("no \"secrets\" object"));
        return false;
    }
    const auto version = root.find("version");
    if (version == root.end() || !version->is_number() || version->get<double>() != fileFormatVersion) {
        *error = QStringLiteral("the secrets file %1 has format version %2, which this Switchboard does not know "
                                "(it writes version %3); it was left as it is")
                     .arg(path, version == root.end() ? QString() : QString::fromStdString(version->dump()))
                     .arg(fileFormatVersion);
        return false;
    }
    QJsonObject read;
    for (auto it = stored->begin(); it != stored->end(); ++it) {
        const QString key = QString::fromStdString(it.key());
        if (!it->is_string()) {
            *error = damaged.arg(path, QStringLiteral("the entry for %1 is not a string").arg(key));
            return false;
        }
        read.insert(key, QString::fromStdString(it->get<std::string>()));
    }
    *secrets = std::move(read);
    return true;
}

// Writes atomically: QSaveFile writes a temporary file in the same directory, fdatasyncs it and
// renames it over the old one; the directory is synced after so the rename itself survives a crash.
bool writeSecretsFile(const QString& path, const QJsonObject& secrets, QString* error)
{
    const QString directory = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(directory)) {
        *error = QStringLiteral("cannot create the directory %1 for the secrets file").arg(directory);
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write the secrets file %1: %2").arg(path, file.errorString());
        return false;
    }
    // Owner-only before the first byte. On Linux Qt writes an unnamed O_TMPFILE and only links it
    // into the directory at commit, so no other user can ever open it while its mode is wider.
    if (!file.setPermissions(ownerOnly)) {
        *error = QStringLiteral("cannot make the secrets file %1 owner-only: %2").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    QJsonObject root;
    root.insert(QLatin1String("version"), fileFormatVersion);
    root.insert(QLatin1String("secrets"), secrets);
    const QByteArray contents = QJsonDocument(root).toJson(QJsonDocument::Indented);
    if (file.write(contents) != contents.size() || !file.commit()) {
        *error = QStringLiteral("cannot write the secrets file %1: %2").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    const int directoryHandle = ::open(QFile::encodeName(directory).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directoryHandle >= 0) {
        ::fsync(directoryHandle);
        ::close(directoryHandle);
    }
    return true;
}

} // namespace

QString SecretStore::defaultFilePath(const QString& stateDirectory)
{
    return QDir(stateDirectory).filePath(QStringLiteral("secrets.json"));
}

QString SecretStore::connectionPointerKey(const QString& provider)
{
    return QStringLiteral("connection/%1").arg(provider);
}

SecretStore::SecretStore(Mode mode, QString filePath, QObject* parent)
    : QObject(parent)
    , m_mode(mode)
    , m_filePath(mode == Mode::OwnerOnlyFile ? QFileInfo(filePath).absoluteFilePath() : QString())
{}

SecretStore::SecretStore(const Settings& settings, const QString& stateDirectory, QObject* parent)
    : SecretStore(settings.mode, settings.file.isEmpty() ? defaultFilePath(stateDirectory) : settings.file, parent)
{}

// Keychain jobs still running are not deleted here: QtKeychain's libsecret backend holds a raw
// pointer to them until the Secret Service answers. They delete themselves when it does.
SecretStore::~SecretStore() = default;

QString SecretStore::description() const
{
    if (m_mode == Mode::OwnerOnlyFile)
        return QStringLiteral("owner-only file %1 (0600), not encrypted").arg(m_filePath);
    return QStringLiteral("desktop keychain (Secret Service)");
}

void SecretStore::save(const QString& key, const QByteArray& secret, Done done)
{
    enqueue({Operation::Save, key, secret, std::move(done), {}});
}

void SecretStore::load(const QString& key, Loaded done)
{
    enqueue({Operation::Load, key, {}, {}, std::move(done)});
}

void SecretStore::remove(const QString& key, Done done)
{
    enqueue({Operation::Remove, key, {}, std::move(done), {}});
}

void SecretStore::enqueue(Request request)
{
    m_queue.push_back(std::move(request));
    // Started from the event loop, never inside the call, so callers see one behaviour.
    if (!m_running)
        QMetaObject::invokeMethod(this, &SecretStore::startNext, Qt::QueuedConnection);
}

void SecretStore::startNext()
{
    if (m_running || m_queue.empty())
        return;
    m_running = true;
    ++m_generation;
    const Request& request = m_queue.front();
    if (request.key.isEmpty()) {
        finish({false, std::nullopt, QStringLiteral("a secret needs a non-empty key")});
        return;
    }
    if (m_mode == Mode::OwnerOnlyFile)
        runInFile(request);
    else
        runInKeychain(request);
}

void SecretStore::finish(const Outcome& outcome)
{
    Request request = std::move(m_queue.front());
    m_queue.pop_front();
    m_running = false;
    if (m_keychainTimer)
        m_keychainTimer->stop();
    // The caller hears from a clean stack (not from inside QtKeychain or a GLib dispatch), so it may
    // start another operation or even delete this store from its callback.
    QMetaObject::invokeMethod(
        this,
        [this, request = std::move(request), outcome] {
            const QPointer<SecretStore> alive(this);
            if (request.operation == Operation::Load) {
                if (request.loaded)
                    request.loaded(outcome.secret, outcome.error);
            } else if (request.done) {
                request.done(outcome.ok, outcome.error);
            }
            if (alive)
                startNext();
        },
        Qt::QueuedConnection);
}

void SecretStore::runInFile(const Request& request)
{
    // Reading, changing and fsyncing the file is blocking work: it runs on the thread pool.
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher] {
        watcher->deleteLater();
        finish(watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([path = m_filePath, operation = request.operation, key = request.key,
                                             secret = request.secret, lockTimeout = m_fileLockTimeout]() -> Outcome {
        const QMutexLocker lock(&fileMutex());
        QJsonObject secrets;
        QString error;
        // A change reads the whole file and writes it back: under the file's lock, so that another
        // process changing another key meanwhile (the console and a one-shot runner) loses nothing.
        // Re-read under the lock, only this key changes: a merge per key. Reading needs no lock: the
        // file is always replaced whole.
        std::optional<StateFileLock> fileLock;
        if (operation != Operation::Load) {
            fileLock = StateFileLock::acquire(
                StateFileLock::lockPathFor(path), lockTimeout, &error, QStringLiteral("the secrets file"));
            if (!fileLock)
                return {false, std::nullopt, QStringLiteral("cannot write the secrets file %1: %2").arg(path, error)};
        }
        if (!readSecretsFile(path, &secrets, &error))
            return {false, std::nullopt, error};
        switch (operation) {
        case Operation::Load: {
            if (!secrets.contains(key))
                return {true, std::nullopt, {}};
            auto decoded = QByteArray::fromBase64Encoding(
                secrets.value(key).toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
            if (!decoded)
                return {false, std::nullopt,
                    QStringLiteral("the secrets file %1 is damaged: the entry for %2 is not base64").arg(path, key)};
            return {true, std::move(*decoded), {}};
        }
        case Operation::Save:
            secrets.insert(key, QString::fromLatin1(secret.toBase64()));
            break;
        case Operation::Remove:
            if (!secrets.contains(key))
                return {true, std::nullopt, {}};
            secrets.remove(key);
            break;
        }
        if (!writeSecretsFile(path, secrets, &error))
            return {false, std::nullopt, error};
        return {true, std::nullopt, {}};
    }));
}

QString SecretStore::keychainFailure(const Request& request, const QString& problem) const
{
    switch (request.operation) {
    case Operation::Save:
        return QStringLiteral("Cannot save the secret %1 in the desktop keychain: %2. %3")
            .arg(request.key, problem, remedy());
    case Operation::Load:
        return QStringLiteral("Cannot read the secret %1 from the desktop keychain: %2. %3")
            .arg(request.key, problem, remedy());
    case Operation::Remove:
        return QStringLiteral("Cannot remove the secret %1 from the desktop keychain: %2. %3")
            .arg(request.key, problem, remedy());
    }
    return problem;
}

void SecretStore::runInKeychain(const Request& request)
{
    // QtKeychain has no timeout of its own, and a Secret Service that wants to show an unlock
    // prompt waits for it however long it takes.
    if (!m_keychainTimer) {
        m_keychainTimer = new QTimer(this);
        m_keychainTimer->setSingleShot(true);
        connect(m_keychainTimer, &QTimer::timeout, this, [this] {
            if (!m_running)
                return;
            finish({false, std::nullopt,
                keychainFailure(m_queue.front(),
                    QStringLiteral("it did not answer within %1 s (a locked keyring may be waiting for its unlock "
                                   "prompt)")
                        .arg(std::chrono::duration_cast<std::chrono::seconds>(m_keychainTimeout).count()))});
        });
    }
    m_keychainTimer->start(m_keychainTimeout);

    // Without a session bus libsecret would try to autolaunch one and fail with "Cannot autolaunch
    // D-Bus without X11 $DISPLAY", which says nothing useful to the operator; say what is missing.
    const QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) {
        const QString reason = bus.lastError().message();
        finish({false, std::nullopt,
            keychainFailure(request,
                QStringLiteral("no keychain is reachable because there is no D-Bus session bus (%1)")
                    .arg(reason.isEmpty() ? QStringLiteral("DBUS_SESSION_BUS_ADDRESS is not set") : reason))});
        return;
    }

    // A bus without a keychain on it (running or activatable) makes QtKeychain fail with a
    // low-level D-Bus error; check first and name the problem. Asked asynchronously so a slow bus
    // never blocks the event loop.
    static const QStringList keychainNames = {QStringLiteral("org.freedesktop.secrets"),
        QStringLiteral("org.kde.kwalletd6"), QStringLiteral("org.kde.kwalletd5")};
    const quint64 generation = m_generation;
    auto ask = [this, bus, generation](const QString& method, std::function<void(const QStringList&)> answered) {
        const QDBusMessage call = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.DBus"),
            QStringLiteral("/org/freedesktop/DBus"), QStringLiteral("org.freedesktop.DBus"), method);
        auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(call, 10'000), this);
        connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, generation, answered = std::move(answered)](QDBusPendingCallWatcher* self) {
                self->deleteLater();
                if (!m_running || generation != m_generation)
                    return; // this operation timed out meanwhile
                const QDBusPendingReply<QStringList> reply = *self;
                if (reply.isError()) {
                    finish({false, std::nullopt,
                        keychainFailure(m_queue.front(),
                            QStringLiteral("the D-Bus session bus did not answer (%1)").arg(reply.error().message()))});
                    return;
                }
                answered(reply.value());
            });
    };
    auto offersKeychain = [](const QStringList& names) {
        for (const QString& name : keychainNames) {
            if (names.contains(name))
                return true;
        }
        return false;
    };
    ask(QStringLiteral("ListNames"), [this, ask, offersKeychain](const QStringList& running) {
        if (offersKeychain(running)) {
            startKeychainJob(m_queue.front());
            return;
        }
        ask(QStringLiteral("ListActivatableNames"), [this, offersKeychain](const QStringList& activatable) {
            if (offersKeychain(activatable)) {
                startKeychainJob(m_queue.front());
                return;
            }
            finish({false, std::nullopt,
                keychainFailure(m_queue.front(),
                    QStringLiteral("there is a D-Bus session bus but no keychain on it (no Secret Service, "
                                   "org.freedesktop.secrets, and no KWallet is running or can be started)"))});
        });
    });
}

void SecretStore::startKeychainJob(const Request& request)
{
    QKeychain::Job* job = nullptr;
    switch (request.operation) {
    case Operation::Save: {
        auto* write = new QKeychain::WritePasswordJob(keychainService());
        write->setBinaryData(request.secret);
        job = write;
        break;
    }
    case Operation::Load:
        job = new QKeychain::ReadPasswordJob(keychainService());
        break;
    case Operation::Remove:
        job = new QKeychain::DeletePasswordJob(keychainService());
        break;
    }
    // No parent: a job must outlive this store if the keychain has not answered yet (see the
    // destructor). It deletes itself once finished.
    job->setAutoDelete(true);
    // Never QtKeychain's plaintext QSettings store: the only file fallback is the one the operator
    // chose, and it is named in the window.
    job->setInsecureFallback(false);
    job->setKey(request.key);

    const quint64 generation = m_generation;
    const Operation operation = request.operation;
    keepGlibTurning(+1);
    connect(job, &QKeychain::Job::finished, this, [this, generation, operation](QKeychain::Job* finished) {
        keepGlibTurning(-1);
        if (!m_running || generation != m_generation)
            return; // timed out earlier; the caller has had its answer
        const QKeychain::Error error = finished->error();
        if (error == QKeychain::NoError && operation != Operation::Remove) {
            if (operation == Operation::Load)
                finish({true, static_cast<QKeychain::ReadPasswordJob*>(finished)->binaryData(), {}});
            else
                finish({true, std::nullopt, {}});
            return;
        }
        if ((error == QKeychain::EntryNotFound && operation == Operation::Load)
            || (operation == Operation::Remove && (error == QKeychain::NoError || error == QKeychain::EntryNotFound))) {
            finishUnlessLocked(generation, {true, std::nullopt, {}});
            return;
        }
        QString problem;
        switch (error) {
        case QKeychain::AccessDeniedByUser:
            problem = QStringLiteral("the request was dismissed");
            break;
        case QKeychain::AccessDenied:
            problem = QStringLiteral("access was denied (%1); the keyring may be locked").arg(finished->errorString());
            break;
        case QKeychain::NoBackendAvailable:
            problem = QStringLiteral("no keychain service is available (%1)").arg(finished->errorString());
            break;
        default:
            problem = finished->errorString();
            break;
        }
        finish({false, std::nullopt, keychainFailure(m_queue.front(), problem)});
    });
    job->start();
}

// With its unlock prompt dismissed or impossible (no display), libsecret skips locked items: QtKeychain
// then reports a secret in a locked keyring as not found, and removing one as done. Before
// believing either, ask the Secret Service whether its default collection (where QtKeychain
// writes) is locked. Where there is no Secret Service (KWallet), there is nothing to ask.
void SecretStore::finishUnlessLocked(quint64 generation, const Outcome& outcome)
{
    QDBusMessage call = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.secrets"),
        QStringLiteral("/org/freedesktop/secrets/aliases/default"), QStringLiteral("org.freedesktop.DBus.Properties"),
        QStringLiteral("Get"));
    call << QStringLiteral("org.freedesktop.Secret.Collection") << QStringLiteral("Locked");
    call.setAutoStartService(false); // a question, not a reason to start a keyring
    auto* watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call, 10'000), this);
    connect(
        watcher, &QDBusPendingCallWatcher::finished, this, [this, generation, outcome](QDBusPendingCallWatcher* self) {
            self->deleteLater();
            if (!m_running || generation != m_generation)
                return;
            const QDBusPendingReply<QDBusVariant> reply = *self;
            if (!reply.isError() && reply.value().variant().toBool()) {
                finish({false, std::nullopt,
                    keychainFailure(m_queue.front(),
                        QStringLiteral("the keyring is locked (its unlock prompt was dismissed or could not be "
                                       "shown)"))});
                return;
            }
            finish(outcome);
        });
}

// QtKeychain's libsecret backend answers through GLib's main context. Qt's GLib event dispatcher
// turns that context, but Switchboard runs with QT_NO_GLIB (Qt's own poll dispatcher is faster for
// the server), and then no one does: every keychain job would wait forever. While jobs are in
// flight on such a thread, turn the context from a short timer.
void SecretStore::keepGlibTurning(int jobDelta)
{
    m_keychainJobsInFlight += jobDelta;
    if (m_keychainJobsInFlight <= 0) {
        if (m_glibPump)
            m_glibPump->stop();
        return;
    }
    if (m_glibPump) {
        m_glibPump->start();
        return;
    }
    const QAbstractEventDispatcher* dispatcher = QAbstractEventDispatcher::instance(thread());
    if (dispatcher && dispatcher->inherits("QEventDispatcherGlib"))
        return;
    m_glibPump = new QTimer(this);
    m_glibPump->setInterval(10);
    connect(m_glibPump, &QTimer::timeout, this, [] {
        // The context libsecret captured when the job started: the thread's default.
        GMainContext* context = g_main_context_ref_thread_default();
        for (int i = 0; i < 100 && g_main_context_iteration(context, FALSE); ++i) {}
        g_main_context_unref(context);
    });
    m_glibPump->start();
}
