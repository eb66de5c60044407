#include "connectwidget.h"

#include "clientanswer.h"
#include "copybutton.h"

#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

using nlohmann::json;

ConnectWidget::ConnectWidget(const PendingInteraction& interaction, QWidget* parent)
    : InteractionWidget(interaction, parent)
{
    m_provider = specString("provider");
    // The title the operator configured for the provider ("GitHub"), else its name.
    m_providerTitle = specString("providerTitle").isEmpty() ? m_provider : specString("providerTitle");
    if (const auto it = renderSpec().find("scopes"); it != renderSpec().end() && it->is_array()) {
        for (const json& scope : *it) {
            if (scope.is_string())
                m_scopes.append(QString::fromStdString(scope.get<std::string>()));
        }
    }
    const QString kind = specString("kind").isEmpty() ? QStringLiteral("either") : specString("kind");
    const bool oauthConfigured = renderSpec().value("oauthAvailable", false);
    const bool asksForOAuth = kind == QStringLiteral("oauth") || kind == QStringLiteral("either");
    m_offersOAuth = asksForOAuth && oauthConfigured;
    m_offersApiKey = kind == QStringLiteral("api_key") || kind == QStringLiteral("either");

    QVBoxLayout* body = bodyLayout();
    addQuestionLabels();

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    int row = 0;
    QLabel* provider = valueLabel(m_providerTitle, QStringLiteral("providerLabel"));
    if (m_providerTitle != m_provider)
        provider->setToolTip(tr("Provider %1").arg(m_provider));
    QFont providerFont = provider->font();
    providerFont.setBold(true);
    provider->setFont(providerFont);
    grid->addWidget(captionLabel(tr("Provider")), row, 0);
    grid->addWidget(provider, row++, 1);
    QLabel* reason = valueLabel(specString("reason"), QStringLiteral("reasonLabel"));
    reason->setWordWrap(true);
    grid->addWidget(captionLabel(tr("Reason")), row, 0);
    grid->addWidget(reason, row++, 1);
    if (!m_scopes.isEmpty()) {
        QLabel* scopes = valueLabel(m_scopes.join(QStringLiteral(", ")), QStringLiteral("scopesLabel"));
        scopes->setWordWrap(true);
        grid->addWidget(captionLabel(tr("Scopes")), row, 0);
        grid->addWidget(scopes, row++, 1);
    }
    grid->setColumnStretch(1, 1);
    body->addLayout(grid);

    if (asksForOAuth && !oauthConfigured) {
        QLabel* note = valueLabel(m_offersApiKey
                ? tr("OAuth sign-in is not configured for %1 in Switchboard (oauthProviders); connect with an API key "
                     "instead.")
                      .arg(m_providerTitle)
                : tr("OAuth sign-in is not configured for %1 in Switchboard (oauthProviders), so this cannot be "
                     "connected here; decline, or add the provider to the configuration.")
                      .arg(m_providerTitle),
            QStringLiteral("oauthUnavailableLabel"));
        note->setWordWrap(true);
        body->addWidget(note);
    }

    if (m_offersOAuth) {
        m_signInButton = addAnswerButton(tr("Sign &in with %1").arg(withoutMnemonic(m_providerTitle)),
            QStringLiteral("signInButton"), ButtonPlace::Leading);
        m_signInButton->setToolTip(tr("Opens the provider's sign-in page in the browser (authorization code with "
                                      "PKCE); the token is kept by Switchboard, never sent to the client"));
        connect(m_signInButton, &QPushButton::clicked, this, &ConnectWidget::signIn);

        m_browserRow = new QWidget;
        auto* browser = new QGridLayout(m_browserRow);
        browser->setContentsMargins(0, 0, 0, 0);
        auto* waiting = new QLabel(tr("Waiting for the browser…"));
        waiting->setObjectName(QStringLiteral("waitingForBrowserLabel"));
        waiting->setWordWrap(true);
        m_browserLabel = waiting;
        m_urlEdit = new QLineEdit;
        m_urlEdit->setObjectName(QStringLiteral("authorizationUrlEdit"));
        m_urlEdit->setReadOnly(true);
        m_urlEdit->setPlaceholderText(tr("The sign-in page's address appears here"));
        m_urlEdit->setToolTip(tr("If no browser opened, open this address yourself"));
        m_copyUrlButton = new CopyButton(tr("Cop&y"));
        m_copyUrlButton->setObjectName(QStringLiteral("copyUrlButton"));
        m_copyUrlButton->setAutoDefault(true); // Return on it copies, never answers
        m_copyUrlButton->setEnabled(false);
        m_cancelSignInButton = new QPushButton(tr("Cancel si&gn-in"));
        m_cancelSignInButton->setObjectName(QStringLiteral("cancelSignInButton"));
        m_cancelSignInButton->setAutoDefault(true);
        connect(m_cancelSignInButton, &QPushButton::clicked, this, &ConnectWidget::cancelSignIn);
        browser->addWidget(waiting, 0, 0, 1, 3);
        browser->addWidget(m_urlEdit, 1, 0);
        browser->addWidget(m_copyUrlButton, 1, 1);
        browser->addWidget(m_cancelSignInButton, 1, 2);
        browser->setColumnStretch(0, 1);
        m_browserRow->hide();
        addAboveAnswers(m_browserRow); // the address to copy never scrolls out of sight
    }

    if (m_offersApiKey) {
        // Named with the provider: when the card is short, what is above it scrolls and this box,
        // by the answers, says what the key is for.
        auto* box
            = new QGroupBox(m_offersOAuth ? tr("Or connect %1 with an API key").arg(withoutMnemonic(m_providerTitle))
                                          : tr("Connect %1 with an API key").arg(withoutMnemonic(m_providerTitle)));
        m_apiKeyBox = box;
        m_apiKeyBox->setObjectName(QStringLiteral("apiKeyBox"));
        auto* form = new QFormLayout(box);
        m_accountEdit = new QLineEdit;
        m_accountEdit->setObjectName(QStringLiteral("accountEdit"));
        m_accountEdit->setPlaceholderText(tr("Optional: your login or e-mail; the client sees it"));
        m_apiKeyEdit = new QLineEdit;
        m_apiKeyEdit->setObjectName(QStringLiteral("apiKeyEdit"));
        m_apiKeyEdit->setEchoMode(QLineEdit::Password);
        m_apiKeyEdit->setPlaceholderText(tr("Paste the key (never sent to the client)"));
        // A stored key has no business in an input method's history or suggestions.
        m_apiKeyEdit->setInputMethodHints(Qt::ImhHiddenText | Qt::ImhSensitiveData | Qt::ImhNoPredictiveText);
        m_connectButton = addAnswerButton(m_offersOAuth ? tr("Co&nnect with the key") : tr("Co&nnect"),
            QStringLiteral("connectButton"), ButtonPlace::Leading);
        m_connectButton->setToolTip(
            tr("Save the key and tell the client %1 is connected (Return in the key field)").arg(m_providerTitle));
        m_connectButton->setEnabled(false);
        m_storageLabel = valueLabel(QString(), QStringLiteral("secretStorageLabel"));
        m_storageLabel->setWordWrap(true);
        m_storageLabel->hide();
        form->addRow(tr("Acc&ount"), m_accountEdit);
        form->addRow(tr("&API key"), m_apiKeyEdit); // Alt+K is the Permissions view's Revoke
        form->addRow(m_storageLabel);
        // Out of the scrolling part, right above the answers: a key is never typed into a field out
        // of sight, however short the card.
        addAboveAnswers(box);

        connect(m_apiKeyEdit, &QLineEdit::textChanged, this, [this](const QString& text) {
            m_connectButton->setEnabled(m_state == State::Idle && !text.trimmed().isEmpty());
        });
        // Return in either field connects (once a key is typed); never a sign-in or a refusal.
        setReturnButton(m_apiKeyBox, m_connectButton);
        connect(m_connectButton, &QPushButton::clicked, this, &ConnectWidget::connectWithKey);
    }

    m_progressLabel = new QLabel;
    m_progressLabel->setObjectName(QStringLiteral("connectProgressLabel"));
    m_progressLabel->setForegroundRole(QPalette::PlaceholderText);
    m_progressLabel->hide();
    addAboveAnswers(m_progressLabel);
    setBodyExpands(false);

    auto* decline = addAnswerButton(tr("&Decline"), QStringLiteral("declineButton"), ButtonPlace::Trailing);
    decline->setToolTip(tr("Do not connect %1; the client is told you declined").arg(m_providerTitle));
    auto* cancel = addAnswerButton(tr("Cance&l"), QStringLiteral("cancelButton"), ButtonPlace::Trailing);
    cancel->setToolTip(tr("Dismiss the question; the client is told it was cancelled"));
    // Return connects with the key typed, or else signs in: the question's own action.
    setDefaultButton(m_offersApiKey ? m_connectButton : m_signInButton);
    connect(decline, &QPushButton::clicked, this, [this] { refuse(QStringLiteral("declined")); });
    connect(cancel, &QPushButton::clicked, this, [this] { refuse(QStringLiteral("cancelled")); });
}

void ConnectWidget::setSecretStorage(const QString& description)
{
    if (!m_storageLabel)
        return;
    m_storageLabel->setText(tr("Saved to: %1").arg(description));
    m_storageLabel->setVisible(!description.isEmpty());
}

void ConnectWidget::setState(State state)
{
    m_state = state;
    if (m_signInButton) {
        m_signInButton->setEnabled(state == State::Idle);
        m_browserRow->setVisible(state == State::WaitingForBrowser);
    }
    if (m_apiKeyBox) {
        m_apiKeyBox->setEnabled(state == State::Idle);
        m_connectButton->setEnabled(state == State::Idle && !m_apiKeyEdit->text().trimmed().isEmpty());
    }
    m_progressLabel->setVisible(state == State::SavingKey);
    if (state != State::WaitingForBrowser && m_urlEdit) {
        m_urlEdit->clear();
        m_copyUrlButton->setEnabled(false);
        m_browserOpened = true;
        m_browserLabel->setText(tr("Waiting for the browser…"));
        m_browserLabel->setStyleSheet(QString());
    }
}

void ConnectWidget::signIn()
{
    if (m_state != State::Idle)
        return;
    clearError();
    const bool focused = focusIsWithin();
    setState(State::WaitingForBrowser);
    if (focused)
        m_cancelSignInButton->setFocus(Qt::OtherFocusReason); // the sign-in button is disabled now
    Q_EMIT oauthRequested(interactionId(), m_provider, m_scopes);
}

void ConnectWidget::cancelSignIn()
{
    if (m_state != State::WaitingForBrowser)
        return;
    const bool focused = focusIsWithin();
    setState(State::Idle);
    if (focused)
        m_signInButton->setFocus(Qt::OtherFocusReason);
    Q_EMIT oauthCancelled(interactionId());
}

void ConnectWidget::showAuthorizationUrl(const QUrl& url, bool browserOpened)
{
    if (m_state != State::WaitingForBrowser || !m_urlEdit)
        return;
    const QString address = url.toString(QUrl::FullyEncoded);
    m_urlEdit->setText(address);
    m_urlEdit->setCursorPosition(0);
    m_copyUrlButton->setCopyText(address);
    m_copyUrlButton->setEnabled(true);
    m_browserOpened = browserOpened;
    if (browserOpened) {
        m_browserLabel->setText(tr("Waiting for the browser… (if the sign-in page did not open, open this address):"));
        m_browserLabel->setStyleSheet(QString());
        return;
    }
    m_browserLabel->setText(tr("No browser could be opened. Copy this address into a browser to sign in with %1; "
                               "Switchboard waits for it:")
                                .arg(m_providerTitle));
    m_browserLabel->setStyleSheet(QStringLiteral("QLabel { font-weight: bold; }"));
    // The address is what the person needs now: selected, ready to copy with Ctrl+C.
    m_urlEdit->selectAll();
    moveFocusWithin(m_copyUrlButton);
}

void ConnectWidget::keyPressEvent(QKeyEvent* event)
{
    // Escape stops a sign-in in the browser (the question stays open); it never answers.
    if (event->key() == Qt::Key_Escape && m_state == State::WaitingForBrowser) {
        cancelSignIn();
        event->accept();
        return;
    }
    InteractionWidget::keyPressEvent(event);
}

QWidget* ConnectWidget::initialFocusWidget() const
{
    if (m_apiKeyEdit)
        return m_apiKeyEdit;
    return InteractionWidget::initialFocusWidget();
}

void ConnectWidget::connectWithKey()
{
    const QByteArray key = m_apiKeyEdit->text().trimmed().toUtf8();
    if (m_state != State::Idle || key.isEmpty())
        return;
    // The field is cleared before anything else happens: the key is held only by this call.
    m_apiKeyEdit->clear();
    clearError();
    parkFocus();
    m_progressLabel->setText(tr("Saving the key and connecting %1…").arg(m_providerTitle));
    setState(State::SavingKey);
    Q_EMIT apiKeyEntered(interactionId(), m_provider, m_accountEdit->text().trimmed(), key);
}

void ConnectWidget::showConnectFailed(const QString& message)
{
    setState(State::Idle);
    // The backend's message already says what failed and how to fix it; the key field is ready for
    // another try.
    showError(message);
    if (m_apiKeyEdit)
        moveFocusWithin(m_apiKeyEdit);
}

void ConnectWidget::refuse(const QString& reason)
{
    // A sign-in still open in the browser must not complete after the person said no.
    if (m_state == State::WaitingForBrowser) {
        setState(State::Idle);
        Q_EMIT oauthCancelled(interactionId());
    }
    respond(ClientAnswer::notConnected(reason));
}
