#pragma once

// GitUrlPolicy: which remotes git tools may reach. A URL passes an allow-list of schemes (https,
// ssh and git by default; file:// and plain local paths only when the configuration allows local
// remotes); everything else (ext::, fd::, unknown schemes, a host or path that begins with '-'
// and so could be taken for an option, control characters) is refused with a message a model can
// act on. Credentials embedded in a URL are split off, so the URL that is stored (in .git/config)
// and shown never carries them.
//
// Also: the redaction of URL credentials in any text (messages, call records, logs).

#include <QString>
#include <QStringList>

#include <optional>

class GitUrlPolicy
{
public:
    struct Remote
    {
        QString url; // the URL without user info (scp-like ssh URLs keep their user: git@host:path)
        QString scheme; // https, http, ssh, git, file; "ssh" for scp-like, "file" for a local path
        QString host; // lower case; empty for local remotes
        int port = -1;
        QString username; // from the URL's user info (also for scp-like ssh URLs), may be empty
        QString password; // from the URL's user info; never shown anywhere
        bool isLocal() const { return scheme == QLatin1String("file"); }
        bool hasCredentials() const
        {
            return !password.isEmpty() || (!username.isEmpty() && scheme.startsWith(QLatin1String("http")));
        }
    };

    static QStringList defaultSchemes()
    {
        return {QStringLiteral("https"), QStringLiteral("ssh"), QStringLiteral("git")};
    }

    explicit GitUrlPolicy(QStringList schemes = defaultSchemes(), bool allowLocal = false);

    // Checks `url` (a URL, an scp-like "user@host:path", or, when local remotes are allowed, an
    // absolute local path). On refusal returns nothing and sets `error` (which never repeats the
    // credentials). A local path is returned as a file:// URL's path in `url`, unchanged.
    std::optional<Remote> check(const QString& url, QString* error) const;

    const QStringList& schemes() const { return m_schemes; }
    bool allowsLocal() const { return m_allowLocal; }

    // `text` with the credentials of every URL in it replaced by "***": the whole user info of
    // http(s) URLs (https://token@host, https://user:secret@host → https://***@host) and the
    // password of any other (ssh://git:secret@host → ssh://git:***@host; ssh://git@host stays).
    // Text without "://" and "@" is returned as it is, cheaply. Used wherever a URL may show:
    // results, messages, call records, logs. Also catches URLs inside JSON strings (escaped "\/"),
    // and takes "%40" in an authority for its '@' (a client may have meant one; no host holds it).
    // For JSON text with \u escapes use TokenRedactor::jsonText, which compares decoded values.
    static QString redact(const QString& text);
    static QByteArray redact(const QByteArray& text);

private:
    std::optional<Remote> checkUrl(const QString& url, const QString& allowed, QString* error) const;
    std::optional<Remote> checkLocalPath(const QString& url, const QString& allowed, QString* error) const;
    std::optional<Remote> checkScpLike(const QString& url, const QString& allowed, QString* error) const;

    QStringList m_schemes; // lower case
    bool m_allowLocal = false;
};
