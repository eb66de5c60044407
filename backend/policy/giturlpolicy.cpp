#include "policy/giturlpolicy.h"

#include <QUrl>

#include <algorithm>

namespace {

// The schemes libgit2 speaks (besides file): a scheme named in the configuration but not here
// would reach a remote helper or fail obscurely, so it is refused with a clear message instead.
// git+ssh and ssh+git are libgit2's aliases for ssh.
bool isSpokenScheme(const QString& scheme)
{
    static const QStringList spoken{QStringLiteral("https"), QStringLiteral("http"), QStringLiteral("ssh"),
        QStringLiteral("git"), QStringLiteral("git+ssh"), QStringLiteral("ssh+git")};
    return spoken.contains(scheme);
}

QString policyScheme(const QString& scheme)
{
    if (scheme == QLatin1String("git+ssh") || scheme == QLatin1String("ssh+git"))
        return QStringLiteral("ssh");
    return scheme;
}

// git's is_urlschemechar: a letter first, then letters, digits, '+', '-' and '.'.
bool isSchemeCharacter(char16_t c, bool first)
{
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (first)
        return letter;
    return letter || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

// Format characters (bidi overrides, zero-width spaces) too: they make a URL read as another.
bool isControlOrSpace(QChar c)
{
    return c.unicode() < 0x20 || c.unicode() == 0x7f || c.category() == QChar::Other_Control
        || c.category() == QChar::Other_Format || c.isSpace();
}

bool hasControlOrSpace(const QString& text)
{
    return std::any_of(text.cbegin(), text.cend(), isControlOrSpace);
}

// A host name, an IPv4 address, or an IPv6 address (QUrl gives it without brackets, an scp-like
// URL in brackets).
bool isHostText(const QString& host)
{
    return std::all_of(host.cbegin(), host.cend(), [](QChar c) {
        const char16_t u = c.unicode();
        return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '.' || u == '-'
            || u == '_' || u == ':' || u == '%';
    });
}

// What a model is shown of a refused URL: not endless, and without anything that may be a secret.
// Stricter than redact() (whose rules are for URLs that passed): the whole user info goes, whatever
// the scheme, and for text without "://" everything before an '@' that precedes the first '/'.
QString shown(const QString& url)
{
    constexpr qsizetype MaximumShown = 200;
    QString text = url;
    const qsizetype separator = text.indexOf(QLatin1String("://"));
    const qsizetype authority = separator >= 0 ? separator + 3 : 0;
    qsizetype end = authority;
    while (end < text.size() && text.at(end) != QLatin1Char('/') && text.at(end) != QLatin1Char('?')
        && text.at(end) != QLatin1Char('#'))
        ++end;
    const qsizetype at = text.lastIndexOf(QLatin1Char('@'), end - 1);
    if (at >= authority && end > authority)
        text.replace(authority, at - authority, QStringLiteral("***"));
    if (text.size() > MaximumShown)
        text = text.left(MaximumShown) + QStringLiteral("...");
    return QLatin1Char('\'') + text + QLatin1Char('\'');
}

std::nullopt_t refused(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return std::nullopt;
}

QString firstSegment(QString path)
{
    while (path.startsWith(QLatin1Char('/')))
        path.remove(0, 1);
    return path.section(QLatin1Char('/'), 0, 0);
}

// The text-type-independent parts of redact(), for QString and QByteArray alike.
char16_t unit(QChar c)
{
    return c.unicode();
}

char16_t unit(char c)
{
    return static_cast<unsigned char>(c);
}

// Also git+https and the like, and what a stray character glued to the scheme makes of it.
bool isHttpScheme(const QString& scheme)
{
    return scheme.endsWith(QLatin1String("http")) || scheme.endsWith(QLatin1String("https"));
}

qsizetype colonAt(const QString& text, qsizetype from)
{
    return text.indexOf(QLatin1Char(':'), from);
}

qsizetype colonAt(const QByteArray& text, qsizetype from)
{
    return text.indexOf(':', from);
}

template<typename Text>
bool spells(const Text& text, qsizetype at, const char* ascii)
{
    for (qsizetype i = 0; ascii[i] != 0; ++i) {
        if (at + i >= text.size() || unit(text.at(at + i)) != static_cast<unsigned char>(ascii[i]))
            return false;
    }
    return true;
}

template<typename Text>
Text redactedUrls(const Text& text, const Text& mask)
{
    Text result;
    qsizetype copied = 0;
    const qsizetype size = text.size();
    for (qsizetype colon = colonAt(text, 0); colon >= 0; colon = colonAt(text, colon + 1)) {
        // "://", or ":\/\/" as JSON may escape it.
        qsizetype authority = -1;
        if (spells(text, colon + 1, "//"))
            authority = colon + 3;
        else if (spells(text, colon + 1, "\\/\\/"))
            authority = colon + 5;
        if (authority < 0)
            continue;
        qsizetype schemeStart = colon;
        while (schemeStart > 0 && isSchemeCharacter(unit(text.at(schemeStart - 1)), false))
            --schemeStart;
        while (schemeStart < colon && !isSchemeCharacter(unit(text.at(schemeStart)), true))
            ++schemeStart;
        if (schemeStart == colon)
            continue;
        // The authority ends where a path, query or fragment begins, or where the text around the
        // URL resumes (a quote, a space, a bracket). The user info ends at its last '@'.
        qsizetype end = authority;
        qsizetype at = -1;
        for (; end < size; ++end) {
            const char16_t c = unit(text.at(end));
            if (c == '\\') {
                // JSON's escapes, read as what they stand for: "\/" ends the authority, "\"" and "\\"
                // are characters of it, and the others (\n, \t, \u...) stand for characters that end
                // it. Replacing only whole escapes keeps JSON text valid.
                const char16_t next = end + 1 < size ? unit(text.at(end + 1)) : 0;
                if (next != '"' && next != '\\')
                    break;
                ++end;
                continue;
            }
            if (c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`'
                || c <= 0x20 || c == 0x7f)
                break;
            // "%40" too: not the separator to a URL parser, but a client may have meant one, and a
            // host never holds it.
            if (c == '@' || (c == '%' && spells(text, end + 1, "40")))
                at = end;
        }
        if (at <= authority)
            continue; // not skipped past: the authority may hold the next URL's scheme ("x,https://...")
        QString scheme;
        for (qsizetype i = schemeStart; i < colon; ++i)
            scheme.append(QChar(unit(text.at(i))).toLower());
        qsizetype from = authority;
        if (!isHttpScheme(scheme)) {
            // Other schemes keep their user (ssh://git@host is no secret); only a password goes.
            from = -1;
            for (qsizetype i = authority; i < at; ++i) {
                if (unit(text.at(i)) == ':') {
                    from = i + 1;
                    break;
                }
            }
        }
        colon = at;
        if (from < 0 || from == at || (at - from == mask.size() && text.mid(from, at - from) == mask))
            continue;
        result.append(text.constData() + copied, from - copied);
        result.append(mask);
        copied = at;
    }
    if (copied == 0)
        return text;
    result.append(text.constData() + copied, size - copied);
    return result;
}

} // namespace

GitUrlPolicy::GitUrlPolicy(QStringList schemes, bool allowLocal)
    : m_allowLocal(allowLocal)
{
    for (const QString& scheme : schemes) {
        const QString lower = scheme.trimmed().toLower();
        if (!lower.isEmpty() && !m_schemes.contains(lower))
            m_schemes.append(lower);
    }
}

std::optional<GitUrlPolicy::Remote> GitUrlPolicy::check(const QString& url, QString* error) const
{
    const QString allowed = QStringLiteral("allowed: ") + m_schemes.join(QStringLiteral(", "))
        + (m_allowLocal ? QStringLiteral(", file:// and absolute local paths") : QString());
    if (url.isEmpty()) {
        return refused(error,
            QStringLiteral("url is empty; give a remote URL such as https://host/owner/repo.git or "
                           "git@host:owner/repo.git (")
                + allowed + QStringLiteral(")."));
    }
    // git's <transport>::<address> runs a remote helper (ext:: runs any command): never.
    qsizetype schemeEnd = 0;
    while (schemeEnd < url.size() && isSchemeCharacter(url.at(schemeEnd).unicode(), schemeEnd == 0))
        ++schemeEnd;
    if (schemeEnd > 0 && url.mid(schemeEnd, 2) == QLatin1String("::")) {
        return refused(error,
            QStringLiteral("url uses git's <transport>::<address> form (transport '") + url.left(schemeEnd)
                + QStringLiteral("'), which runs a helper program; it is refused. Give a plain URL (") + allowed
                + QStringLiteral(")."));
    }
    for (qsizetype i = 0; i < url.size(); ++i) {
        if (isControlOrSpace(url.at(i))) {
            return refused(error,
                QStringLiteral("url contains whitespace or a control character (at position ") + QString::number(i)
                    + QStringLiteral("); give the URL alone, with spaces percent-encoded."));
        }
    }
    if (url.startsWith(QLatin1Char('-'))) {
        return refused(error,
            QStringLiteral("url ") + shown(url)
                + QStringLiteral(" begins with '-' and could be taken for an option; it is refused."));
    }
    if (url.contains(QLatin1String("://")))
        return checkUrl(url, allowed, error);
    if (url.startsWith(QLatin1Char('/')))
        return checkLocalPath(url, allowed, error);
    // git's rule: without "://", a colon before any slash makes an scp-like ssh URL (host:path).
    const qsizetype colon = url.indexOf(QLatin1Char(':'));
    const qsizetype slash = url.indexOf(QLatin1Char('/'));
    if (colon > 0 && (slash < 0 || colon < slash))
        return checkScpLike(url, allowed, error);
    return refused(error,
        QStringLiteral("url ") + shown(url)
            + QStringLiteral(" is neither a URL nor an absolute local path (a relative path is never taken); give a "
                             "URL such as https://host/owner/repo.git (")
            + allowed + QStringLiteral(")."));
}

std::optional<GitUrlPolicy::Remote> GitUrlPolicy::checkUrl(
    const QString& url, const QString& allowed, QString* error) const
{
    const QString scheme = url.left(url.indexOf(QLatin1String("://"))).toLower();
    const bool validScheme = !scheme.isEmpty() && isSchemeCharacter(scheme.at(0).unicode(), true)
        && std::all_of(scheme.cbegin(), scheme.cend(), [](QChar c) { return isSchemeCharacter(c.unicode(), false); });
    if (!validScheme)
        return refused(error,
            QStringLiteral("url ") + shown(url) + QStringLiteral(" has no valid scheme (") + allowed
                + QStringLiteral(")."));
    const bool local = scheme == QLatin1String("file");
    if (local && !m_allowLocal) {
        return refused(error,
            QStringLiteral("url ") + shown(url)
                + QStringLiteral(" is a local (file://) remote, and the configuration does not allow local remotes (")
                + allowed + QStringLiteral(")."));
    }
    if (!local && !m_schemes.contains(policyScheme(scheme))) {
        QString message = QStringLiteral("url ") + shown(url) + QStringLiteral(" uses the scheme '") + scheme
            + QStringLiteral("', which is not allowed (") + allowed + QStringLiteral(").");
        if (scheme == QLatin1String("http"))
            message += QStringLiteral(" Use https; plain http is taken only when the configuration lists it.");
        return refused(error, message);
    }
    if (!local && !isSpokenScheme(scheme)) {
        return refused(error,
            QStringLiteral("url ") + shown(url) + QStringLiteral(" uses the scheme '") + scheme
                + QStringLiteral("', which git tools cannot speak (https, http, ssh and git only)."));
    }
    // Before QUrl, which may refuse such a host for another reason and so hide the real one.
    const qsizetype authority = url.indexOf(QLatin1String("://")) + 3;
    qsizetype authorityEnd = authority;
    while (authorityEnd < url.size() && url.at(authorityEnd) != QLatin1Char('/')
        && url.at(authorityEnd) != QLatin1Char('?') && url.at(authorityEnd) != QLatin1Char('#'))
        ++authorityEnd;
    const qsizetype at = url.lastIndexOf(QLatin1Char('@'), authorityEnd - 1);
    const qsizetype hostStart = at >= authority ? at + 1 : authority;
    if ((hostStart < url.size() && url.at(hostStart) == QLatin1Char('-'))
        || (at >= authority && authority < url.size() && url.at(authority) == QLatin1Char('-'))) {
        return refused(error,
            QStringLiteral("url ") + shown(url)
                + QStringLiteral(
                    " has a user or host beginning with '-', which could be taken for an option; it is refused."));
    }
    const QUrl parsed(url, QUrl::StrictMode);
    // QUrl's own message quotes the URL, credentials and all: not repeated.
    if (!parsed.isValid())
        return refused(error, QStringLiteral("url ") + shown(url) + QStringLiteral(" is not a valid URL."));

    Remote remote;
    remote.scheme = local ? scheme : policyScheme(scheme);
    remote.host = parsed.host(QUrl::FullyDecoded).toLower();
    remote.port = parsed.port();
    remote.username = parsed.userName(QUrl::FullyDecoded);
    remote.password = parsed.password(QUrl::FullyDecoded);
    const QString path = parsed.path(QUrl::FullyDecoded);
    if (hasControlOrSpace(remote.host) || hasControlOrSpace(remote.username)
        || std::any_of(path.cbegin(), path.cend(), [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; })) {
        return refused(error,
            QStringLiteral("url ") + shown(url)
                + QStringLiteral(
                    " spells a control character or whitespace in its host, user or path; it is refused."));
    }
    if (remote.username.startsWith(QLatin1Char('-')) || firstSegment(path).startsWith(QLatin1Char('-'))) {
        return refused(error,
            QStringLiteral("url ") + shown(url)
                + QStringLiteral(
                    " has a user or path beginning with '-', which could be taken for an option; it is refused."));
    }
    if (local) {
        if (!remote.host.isEmpty() && remote.host != QLatin1String("localhost")) {
            return refused(error,
                QStringLiteral("url ") + shown(url)
                    + QStringLiteral(" names a host; a file:// URL names a local path (file:///path/to/repo)."));
        }
        if (!path.startsWith(QLatin1Char('/')) || path.size() < 2)
            return refused(
                error, QStringLiteral("url ") + shown(url) + QStringLiteral(" names no absolute local path."));
        remote.host.clear();
    } else {
        if (remote.host.isEmpty()) {
            return refused(error,
                QStringLiteral("url ") + shown(url) + QStringLiteral(" names no host; give one, as in ") + scheme
                    + QStringLiteral("://host/owner/repo.git."));
        }
        if (remote.host.startsWith(QLatin1Char('-'))) {
            return refused(error,
                QStringLiteral("url ") + shown(url)
                    + QStringLiteral(
                        " has a host beginning with '-', which could be taken for an option; it is refused."));
        }
        if (!isHostText(remote.host)) {
            return refused(error,
                QStringLiteral("url ") + shown(url)
                    + QStringLiteral(" has a host that is not a host name or an IP address; it is refused."));
        }
    }
    // What is stored and shown carries no secret: http(s) lose their whole user info (a token often
    // stands where the user would), the others only a password.
    QUrl stored = parsed;
    if (isHttpScheme(scheme))
        stored.setUserInfo(QString());
    else
        stored.setPassword(QString());
    remote.url = stored.toString(QUrl::FullyEncoded);
    return remote;
}

std::optional<GitUrlPolicy::Remote> GitUrlPolicy::checkLocalPath(
    const QString& url, const QString& allowed, QString* error) const
{
    if (!m_allowLocal) {
        return refused(error,
            QStringLiteral("url ") + shown(url)
                + QStringLiteral(" is a local path, and the configuration does not allow local remotes (") + allowed
                + QStringLiteral(")."));
    }
    Remote remote;
    remote.url = url;
    remote.scheme = QStringLiteral("file");
    return remote;
}

std::optional<GitUrlPolicy::Remote> GitUrlPolicy::checkScpLike(
    const QString& url, const QString& allowed, QString* error) const
{
    if (!m_schemes.contains(QLatin1String("ssh"))) {
        return refused(error,
            QStringLiteral("url ") + shown(url) + QStringLiteral(" is an scp-like ssh URL, and ssh is not allowed (")
                + allowed + QStringLiteral(")."));
    }
    // As git reads it (connect.c): a host may be bracketed ([::1] or user@[host]); the path begins
    // after the first colon past the brackets; the user is what comes before the last '@'.
    Remote remote;
    remote.scheme = QStringLiteral("ssh");
    remote.url = url;
    qsizetype searchFrom = 0;
    const qsizetype userBracket = url.indexOf(QLatin1String("@["));
    const qsizetype bracketStart = userBracket >= 0 ? userBracket + 1 : 0;
    qsizetype separator = -1;
    if (url.at(bracketStart) == QLatin1Char('[')) {
        const qsizetype close = url.indexOf(QLatin1Char(']'), bracketStart + 1);
        if (close > 0) {
            searchFrom = close;
            separator = url.indexOf(QLatin1Char(':'), close);
            if (separator == close + 1) {
                remote.host = url.mid(bracketStart + 1, close - bracketStart - 1).toLower();
                if (userBracket >= 0)
                    remote.username = url.left(userBracket);
            } else {
                separator = -1;
            }
        }
    }
    if (separator < 0) {
        separator = url.indexOf(QLatin1Char(':'), searchFrom);
        const QString userHost = url.left(separator);
        const qsizetype at = userHost.lastIndexOf(QLatin1Char('@'));
        remote.username = at >= 0 ? userHost.left(at) : QString();
        remote.host = userHost.mid(at + 1).toLower();
    }
    const QString path = url.mid(separator + 1);
    if (remote.host.isEmpty())
        return refused(error, QStringLiteral("url ") + shown(url) + QStringLiteral(" names no host (user@host:path)."));
    if (remote.host.startsWith(QLatin1Char('-')) || remote.username.startsWith(QLatin1Char('-'))
        || path.startsWith(QLatin1Char('-'))) {
        return refused(error,
            QStringLiteral("url ") + shown(url)
                + QStringLiteral(
                    " has a user, host or path beginning with '-', which could be taken for an option; it is "
                    "refused."));
    }
    if (!isHostText(remote.host)) {
        return refused(error,
            QStringLiteral("url ") + shown(url)
                + QStringLiteral(" has a host that is not a host name or an IP address; it is refused."));
    }
    if (path.isEmpty())
        return refused(error, QStringLiteral("url ") + shown(url) + QStringLiteral(" names no path (user@host:path)."));
    // "user:secret@host:path" reads, to git, as host "user" and path "secret@host:path": a mistake
    // that would store the secret. ssh takes no password in a URL.
    const qsizetype pathAt = path.indexOf(QLatin1Char('@'));
    const qsizetype pathSlash = path.indexOf(QLatin1Char('/'));
    if (pathAt >= 0 && (pathSlash < 0 || pathAt < pathSlash) && path.indexOf(QLatin1Char(':'), pathAt) > pathAt) {
        return refused(error,
            QStringLiteral("url looks like user:password@host:path; an scp-like ssh URL takes no password (use an ssh "
                           "key, or https with a token)."));
    }
    return remote;
}

QString GitUrlPolicy::redact(const QString& text)
{
    if (!text.contains(QLatin1Char('@')) && !text.contains(QLatin1String("%40")))
        return text;
    if (!text.contains(QLatin1String("://")) && !text.contains(QLatin1String(":\\/\\/")))
        return text;
    return redactedUrls(text, QStringLiteral("***"));
}

QByteArray GitUrlPolicy::redact(const QByteArray& text)
{
    if (!text.contains('@') && !text.contains("%40"))
        return text;
    if (!text.contains("://") && !text.contains(":\\/\\/"))
        return text;
    return redactedUrls(text, QByteArray("***"));
}
