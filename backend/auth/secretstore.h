#pragma once

// SecretStore: where the console keeps the credentials a person enters (API keys, OAuth tokens).
// By default the desktop keychain, through QtKeychain (the Secret Service, or KWallet on KDE);
// where no keychain is reachable, saving fails with a message saying so and how to fix it. Only
// when the operator chose it (secrets.store: file) do secrets go to an owner-only (0600) JSON file
// instead, which is not encrypted and which description() names so the window can say so.
//
// Every operation is asynchronous and answers through its callback, always later on the thread
// the store lives on (never from inside the call), in the order the operations were started. A
// store destroyed before an operation finishes never calls back. Secrets never appear in errors
// or logs; keys (names such as "oauth/github/alice") may.
//
// In the keychain a secret is stored as QtKeychain stores binary data: service "switchboard",
// the key as account, base64 (libsecret attributes user=<key>, server=switchboard, type=base64).
// A locked keyring whose unlock prompt cannot be shown makes every operation fail with "the
// keyring is locked", never a false "not found". In the file (JSON: {"version": 1, "secrets":
// {key: base64}}), a file others may read or write, or one that cannot be parsed, is refused
// rather than repaired or overwritten. Processes share the file (the console and one-shot runners):
// a save or remove changes its one key under the file's lock (StateFileLock on `<file>.lock`), so
// no process's key is lost to another's write.

#include <QByteArray>
#include <QObject>
#include <QString>

#include <chrono>
#include <deque>
#include <functional>
#include <optional>

class QTimer;

class SecretStore : public QObject
{
    Q_OBJECT
public:
    enum class Mode {
        Keychain, // the desktop keychain; fails clearly where there is none
        OwnerOnlyFile, // an unencrypted JSON file only the owner may read (0600)
    };

    // The keychain's service name: every secret is stored under it, keyed by the operation's key.
    static QString keychainService() { return QStringLiteral("switchboard"); }
    // Where the file fallback lives unless configured otherwise.
    static QString defaultFilePath(const QString& stateDirectory);
    // The key that names the newest connection of `provider` (its value is the key of the secret
    // itself: "apikey/PROVIDER/ACCOUNT" or "oauth/PROVIDER/ACCOUNT"), written whenever a person
    // connects and read by whatever uses the connection (ConnectionCredentialSource).
    static QString connectionPointerKey(const QString& provider);

    // Where secrets go, as the configuration's `secrets:` section says (the core reads it).
    struct Settings
    {
        Mode mode = Mode::Keychain;
        QString file; // used in OwnerOnlyFile mode; empty: defaultFilePath(stateDirectory)
    };

    using Done = std::function<void(bool ok, const QString& error)>;
    // A missing key is not an error: no secret and an empty error. A failure has an error.
    using Loaded = std::function<void(std::optional<QByteArray> secret, const QString& error)>;

    // `filePath` is used in OwnerOnlyFile mode only.
    explicit SecretStore(Mode mode = Mode::Keychain, QString filePath = {}, QObject* parent = nullptr);
    // The store the settings ask for (secrets.store, secrets.file), the file defaulting to
    // defaultFilePath(stateDirectory).
    SecretStore(const Settings& settings, const QString& stateDirectory, QObject* parent = nullptr);
    ~SecretStore() override;

    Mode mode() const { return m_mode; }
    QString filePath() const { return m_filePath; }
    // One line for the window: where secrets go, and in file mode that the file is not encrypted.
    QString description() const;

    // A keychain that neither answers nor fails (a locked keyring waiting on an unlock prompt no
    // one sees) ends the operation with an error after this long. Default 60 s.
    void setKeychainTimeout(std::chrono::milliseconds timeout) { m_keychainTimeout = timeout; }
    // In file mode, a save or remove waits this long for another process's lock on the file (it
    // holds it for one read and write), then fails naming that process. Default 5 s.
    void setFileLockTimeout(std::chrono::milliseconds timeout) { m_fileLockTimeout = timeout; }

    void save(const QString& key, const QByteArray& secret, Done done);
    void load(const QString& key, Loaded done);
    // Removing a key that is not there succeeds.
    void remove(const QString& key, Done done);

private:
    enum class Operation {
        Save,
        Load,
        Remove,
    };
    struct Request
    {
        Operation operation;
        QString key;
        QByteArray secret; // Save only
        Done done; // Save, Remove
        Loaded loaded; // Load
    };
    struct Outcome
    {
        bool ok = false;
        std::optional<QByteArray> secret;
        QString error;
    };

    void enqueue(Request request);
    void startNext();
    void finish(const Outcome& outcome);

    void runInFile(const Request& request);
    void runInKeychain(const Request& request);
    void startKeychainJob(const Request& request);
    void finishUnlessLocked(quint64 generation, const Outcome& outcome);
    QString keychainFailure(const Request& request, const QString& problem) const;
    void keepGlibTurning(int jobDelta);

    Mode m_mode;
    QString m_filePath;
    std::chrono::milliseconds m_keychainTimeout{60'000};
    std::chrono::milliseconds m_fileLockTimeout{5'000};
    std::deque<Request> m_queue; // the front is running while m_running
    bool m_running = false;
    quint64 m_generation = 0; // tells a late answer from the current operation's
    QTimer* m_keychainTimer = nullptr;
    QTimer* m_glibPump = nullptr;
    int m_keychainJobsInFlight = 0;
};
