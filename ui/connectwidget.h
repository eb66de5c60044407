#pragma once

// ConnectWidget: the connect dialog of request_connection (and other connect tools): the provider,
// why the client needs it and which scopes; an OAuth sign-in in the browser where the provider is
// configured for it, and a masked API-key field. The secret leaves only through apiKeyEntered (the
// panel hands it straight to Backend::connectWithApiKey) and the field is cleared at once; what the
// client receives never contains it. Decline and Cancel answer {"connected": false, …}.

#include "interactionwidget.h"

#include <QUrl>

class CopyButton;
class QLineEdit;
class QPushButton;

class ConnectWidget : public InteractionWidget
{
    Q_OBJECT
public:
    explicit ConnectWidget(const PendingInteraction& interaction, QWidget* parent = nullptr);

    QString provider() const { return m_provider; }
    // What the person reads for the provider: its configured title, else its name.
    QString providerTitle() const { return m_providerTitle; }
    bool offersOAuth() const { return m_offersOAuth; }
    bool offersApiKey() const { return m_offersApiKey; }
    // False once the sign-in page could not be opened in a browser (the widget says so).
    bool browserOpened() const { return m_browserOpened; }
    QWidget* initialFocusWidget() const override;

public Q_SLOTS:
    // Where the secret will be kept (Backend::secretStorage()), named under the key field.
    void setSecretStorage(const QString& description);
    // The sign-in page, shown copyable in case no browser opened; `browserOpened` false (opening it
    // failed) says so in words and selects the address.
    void showAuthorizationUrl(const QUrl& url, bool browserOpened = true);
    // Connecting failed (no keychain, the sign-in was refused): say why; the question stays open.
    void showConnectFailed(const QString& message);

Q_SIGNALS:
    void apiKeyEntered(
        const QString& interactionId, const QString& provider, const QString& account, const QByteArray& apiKey);
    void oauthRequested(const QString& interactionId, const QString& provider, const QStringList& scopes);
    void oauthCancelled(const QString& interactionId);

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    enum class State {
        Idle,
        WaitingForBrowser,
        SavingKey,
    };
    void setState(State state);
    void signIn();
    void cancelSignIn();
    void connectWithKey();
    void refuse(const QString& reason);

    QString m_provider;
    QString m_providerTitle;
    QStringList m_scopes;
    bool m_browserOpened = true;
    bool m_offersOAuth = false;
    bool m_offersApiKey = false;
    State m_state = State::Idle;

    QPushButton* m_signInButton = nullptr;
    QWidget* m_browserRow = nullptr;
    QLabel* m_browserLabel = nullptr;
    QLineEdit* m_urlEdit = nullptr;
    CopyButton* m_copyUrlButton = nullptr;
    QPushButton* m_cancelSignInButton = nullptr;
    QWidget* m_apiKeyBox = nullptr;
    QLineEdit* m_accountEdit = nullptr;
    QLineEdit* m_apiKeyEdit = nullptr;
    QPushButton* m_connectButton = nullptr;
    QLabel* m_storageLabel = nullptr;
    QLabel* m_progressLabel = nullptr;
};
