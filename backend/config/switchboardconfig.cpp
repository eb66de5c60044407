#include "config/switchboardconfig.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace {

// Bounds on the document as read. yaml-cpp shares an aliased node rather than copying it, so a file
// of a few lines can stand for billions of values (each alias of an alias multiplies), and an
// anchor used inside itself makes a cycle. Reader::checkStructure walks the whole document once,
// counting every value each time an alias brings it in, before anything else reads it.
constexpr int MaxDepth = 64;
constexpr int MaxValues = 100'000;

// YAML → JSON for the parts of the configuration that are JSON by nature (schemas). Scalars keep
// their YAML type: true/false become booleans, numbers numbers, everything else a string.
// Json is nlohmann::json, or nlohmann::ordered_json where the operator's key order is shown to a
// person (a form lists its fields in the order the schema gives them). Only called on a document
// that passed Reader::checkStructure: acyclic, at most MaxDepth deep and MaxValues large.
template<typename Json>
Json yamlToJson(const YAML::Node& node)
{
    switch (node.Type()) {
    case YAML::NodeType::Map: {
        Json object = Json::object();
        for (const auto& entry : node)
            object[entry.first.Scalar()] = yamlToJson<Json>(entry.second);
        return object;
    }
    case YAML::NodeType::Sequence: {
        Json array = Json::array();
        for (const auto& item : node)
            array.push_back(yamlToJson<Json>(item));
        return array;
    }
    case YAML::NodeType::Scalar: {
        const std::string text = node.Scalar();
        if (node.Tag() == "!")
            return text; // quoted in the YAML: always a string
        bool boolean = false;
        if (YAML::convert<bool>::decode(node, boolean) && text != "y" && text != "n" && text != "Y" && text != "N")
            return boolean;
        long long integer = 0;
        if (YAML::convert<long long>::decode(node, integer))
            return integer;
        double number = 0;
        if (YAML::convert<double>::decode(node, number))
            return number;
        return text;
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
        break;
    }
    return nullptr;
}

class Reader
{
public:
    Reader(QString path, SwitchboardConfig* config)
        : m_path(std::move(path))
        , m_config(config)
    {}

    // Refuses a document that is cyclic, too deep, too large once aliases are expanded, or that
    // has a key that is not a plain string (`? [a, b]`). Returns false with the error set.
    bool checkStructure(const YAML::Node& root)
    {
        int budget = MaxValues;
        std::vector<YAML::Node> ancestors;
        return checkNode(root, QString(), &ancestors, &budget);
    }

    template<typename T>
    void read(const YAML::Node& section, const char* sectionName, const char* key, T* target, T min, T max)
    {
        const YAML::Node node = section[key];
        if (!node)
            return;
        try {
            const T value = node.as<T>();
            if (value < min || value > max)
                fail(node, sectionName, key, QStringLiteral("must be between %1 and %2").arg(min).arg(max));
            else
                *target = value;
        } catch (const YAML::Exception&) {
            fail(node, sectionName, key, QStringLiteral("must be a number"));
        }
    }

    void readString(const YAML::Node& section, const char* sectionName, const char* key, QString* target)
    {
        const YAML::Node node = section[key];
        if (!node)
            return;
        if (!node.IsScalar()) {
            fail(node, sectionName, key, QStringLiteral("must be a string"));
            return;
        }
        *target = QString::fromStdString(node.as<std::string>());
    }

    void readList(const YAML::Node& section, const char* sectionName, const char* key, QStringList* target)
    {
        const YAML::Node node = section[key];
        if (!node || node.IsNull())
            return;
        if (!node.IsSequence()) {
            fail(node, sectionName, key, QStringLiteral("must be a list of strings"));
            return;
        }
        for (const auto& item : node) {
            if (!item.IsScalar()) {
                fail(item, sectionName, key, QStringLiteral("must be a list of strings"));
                return;
            }
            target->append(QString::fromStdString(item.as<std::string>()));
        }
    }

    // A string that must be one of `allowed`.
    void readChoice(const YAML::Node& section, const char* sectionName, const char* key, const QStringList& allowed,
        QString* target)
    {
        QString value;
        readString(section, sectionName, key, &value);
        if (value.isEmpty())
            return;
        if (!allowed.contains(value))
            fail(section[key], sectionName, key,
                QStringLiteral("must be one of %1").arg(allowed.join(QStringLiteral(", "))));
        else
            *target = value;
    }

    // A mapping of names to whole numbers between min and max.
    void readNumberMap(const YAML::Node& section, const char* sectionName, const char* key, int min, int max,
        QMap<QString, int>* target)
    {
        const YAML::Node node = section[key];
        if (!node)
            return;
        if (!node.IsMap()) {
            fail(node, sectionName, key, QStringLiteral("must be a mapping of names to numbers"));
            return;
        }
        for (const auto& entry : node) {
            const QString name = QString::fromStdString(entry.first.Scalar());
            try {
                const int value = entry.second.as<int>();
                if (value < min || value > max) {
                    fail(entry.second, sectionName, key,
                        QStringLiteral("%1 must be between %2 and %3").arg(name).arg(min).arg(max));
                    return;
                }
                target->insert(name, value);
            } catch (const YAML::Exception&) {
                fail(entry.second, sectionName, key, QStringLiteral("%1 must be a number").arg(name));
                return;
            }
        }
    }

    // A mapping of names to one of `allowed`.
    void readChoiceMap(const YAML::Node& section, const char* sectionName, const char* key, const QStringList& allowed,
        QMap<QString, QString>* target)
    {
        const YAML::Node node = section[key];
        if (!node)
            return;
        if (!node.IsMap()) {
            fail(node, sectionName, key,
                QStringLiteral("must be a mapping of names to %1").arg(allowed.join(QStringLiteral(" | "))));
            return;
        }
        for (const auto& entry : node) {
            const QString value = entry.second.IsScalar() ? QString::fromStdString(entry.second.Scalar()) : QString();
            const QString name = QString::fromStdString(entry.first.Scalar());
            if (!allowed.contains(value)) {
                fail(entry.second, sectionName, key,
                    QStringLiteral("%1 must be one of %2").arg(name, allowed.join(QStringLiteral(", "))));
                return;
            }
            target->insert(name, value);
        }
    }

    // A mapping of names to non-empty strings.
    void readStringMap(
        const YAML::Node& section, const char* sectionName, const char* key, QMap<QString, QString>* target)
    {
        const YAML::Node node = section[key];
        if (!node || node.IsNull())
            return;
        if (!node.IsMap()) {
            fail(node, sectionName, key, QStringLiteral("must be a mapping of names to strings"));
            return;
        }
        for (const auto& entry : node) {
            const QString name = QString::fromStdString(entry.first.Scalar());
            if (!entry.second.IsScalar() || entry.second.Scalar().empty()) {
                fail(entry.second, sectionName, key, QStringLiteral("%1 must be a non-empty string").arg(name));
                return;
            }
            target->insert(name, QString::fromStdString(entry.second.Scalar()));
        }
    }

    void readBool(const YAML::Node& section, const char* sectionName, const char* key, bool* target)
    {
        const YAML::Node node = section[key];
        if (!node)
            return;
        try {
            *target = node.as<bool>();
        } catch (const YAML::Exception&) {
            fail(node, sectionName, key, QStringLiteral("must be true or false"));
        }
    }

    void readClientTools(const YAML::Node& node, std::vector<ClientToolConfig>* target)
    {
        if (!node || node.IsNull())
            return;
        if (!node.IsSequence()) {
            fail(node, "clientTools", "", QStringLiteral("must be a list of tools"));
            return;
        }
        const QStringList renders
            = {QStringLiteral("connect"), QStringLiteral("confirm"), QStringLiteral("choice"), QStringLiteral("form")};
        for (const auto& item : node) {
            if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) {
                fail(item, "clientTools", "", QStringLiteral("each entry needs a name"));
                return;
            }
            checkKeys(item, "clientTools[]",
                {"name", "title", "description", "inputSchema", "input_schema", "render", "prompt", "choices",
                    "responseSchema", "answeredBy"});
            ClientToolConfig tool;
            tool.spec = yamlToJson<nlohmann::json>(item);
            for (const char* own : {"render", "prompt", "choices", "responseSchema", "answeredBy"})
                tool.spec.erase(own);
            tool.render = QStringLiteral("confirm");
            readChoice(item, "clientTools[]", "render", renders, &tool.render);
            readChoice(item, "clientTools[]", "answeredBy", {QStringLiteral("console"), QStringLiteral("client")},
                &tool.answeredBy);
            readString(item, "clientTools[]", "prompt", &tool.prompt);
            readList(item, "clientTools[]", "choices", &tool.choices);
            if (const YAML::Node schema = item["responseSchema"]) {
                if (!schema.IsMap()) {
                    fail(schema, "clientTools[]", "responseSchema", QStringLiteral("must be a JSON schema object"));
                    return;
                }
                tool.responseSchema = yamlToJson<nlohmann::ordered_json>(schema);
            }
            if (tool.render == QStringLiteral("form") && tool.responseSchema.is_null()) {
                fail(item, "clientTools[]", "responseSchema",
                    QStringLiteral("is required for render: form (the fields the person fills in)"));
                return;
            }
            target->push_back(std::move(tool));
        }
    }

    // oauthProviders: each needs a name, a client id and both endpoints; URLs must be https (or
    // http to a loopback host), so a typo cannot send codes or tokens across a network in clear.
    // operator: {maxStreams, tokens: [{name, role, sha256}]}
    void readOperator(
        const YAML::Node& node, QList<OperatorTokenConfig>* tokens, int* maxStreams, std::optional<quint16>* port)
    {
        if (!isSection(node, "operator"))
            return;
        checkKeys(node, "operator", {"maxStreams", "tokens", "port"});
        read(node, "operator", "maxStreams", maxStreams, 1, 10'000);
        if (node["port"]) {
            int value = 0;
            read(node, "operator", "port", &value, 0, 65535);
            *port = quint16(value);
        }
        const YAML::Node list = node["tokens"];
        if (!list || list.IsNull())
            return;
        if (!list.IsSequence()) {
            fail(list, "operator", "tokens", QStringLiteral("must be a list of {name, role, sha256}"));
            return;
        }
        static const QRegularExpression names(QStringLiteral("\\A[A-Za-z0-9][A-Za-z0-9._-]{0,63}\\z"));
        for (const YAML::Node& item : list) {
            if (!item.IsMap()) {
                fail(item, "operator", "tokens", QStringLiteral("must be a list of {name, role, sha256}"));
                return;
            }
            checkKeys(item, "operator.tokens[]", {"name", "role", "sha256"});
            OperatorTokenConfig token;
            QString digest;
            readString(item, "operator.tokens[]", "name", &token.name);
            readChoice(item, "operator.tokens[]", "role",
                {QStringLiteral("viewer"), QStringLiteral("answerer"), QStringLiteral("admin")}, &token.role);
            readString(item, "operator.tokens[]", "sha256", &digest);
            if (!names.match(token.name).hasMatch()) {
                fail(item, "operator.tokens[]", "name",
                    QStringLiteral("must be letters, digits, '.', '_' or '-' (at most 64), starting with a letter "
                                   "or digit"));
                return;
            }
            if (token.role.isEmpty()) {
                fail(item, "operator.tokens[]", "role", QStringLiteral("is required (viewer, answerer or admin)"));
                return;
            }
            // fromHex skips what is not a digit: only a round trip says the digest is what was written.
            token.sha256 = QByteArray::fromHex(digest.toLatin1());
            if (token.sha256.size() != 32 || token.sha256.toHex() != digest.toLower().toLatin1()) {
                fail(item, "operator.tokens[]", "sha256",
                    QStringLiteral("must be the 64 hex digits of the token's SHA-256 (sha256sum prints them)"));
                return;
            }
            for (const OperatorTokenConfig& other : std::as_const(*tokens)) {
                if (other.name == token.name || other.sha256 == token.sha256) {
                    fail(item, "operator.tokens[]", "name",
                        QStringLiteral("%1 is taken, or its token is (names and tokens are unique)").arg(token.name));
                    return;
                }
            }
            if (token.name == QStringLiteral("default")) {
                fail(item, "operator.tokens[]", "name", QStringLiteral("\"default\" is the built-in operator token"));
                return;
            }
            tokens->append(token);
        }
    }

    void readOAuthProviders(const YAML::Node& node, QList<OAuthProvider>* target)
    {
        if (!node || node.IsNull())
            return;
        if (!node.IsSequence()) {
            fail(node, "oauthProviders", "", QStringLiteral("must be a list of providers"));
            return;
        }
        for (const auto& item : node) {
            if (!item.IsMap() || !item["name"] || !item["name"].IsScalar() || item["name"].Scalar().empty()) {
                fail(item, "oauthProviders", "", QStringLiteral("each entry needs a name"));
                return;
            }
            const std::string section = "oauthProviders[" + item["name"].Scalar() + "]";
            const char* where = section.c_str();
            checkKeys(item, where,
                {"name", "title", "authorizationUrl", "tokenUrl", "clientId", "clientSecret", "scopes", "userinfoUrl",
                    "accountField", "authorizationParameters"});
            OAuthProvider provider;
            readString(item, where, "name", &provider.name);
            readString(item, where, "title", &provider.title);
            readString(item, where, "clientId", &provider.clientId);
            readString(item, where, "clientSecret", &provider.clientSecret);
            readList(item, where, "scopes", &provider.scopes);
            readString(item, where, "accountField", &provider.accountField);
            for (const auto& [key, url, required] : {std::tuple{"authorizationUrl", &provider.authorizationUrl, true},
                     std::tuple{"tokenUrl", &provider.tokenUrl, true},
                     std::tuple{"userinfoUrl", &provider.userinfoUrl, false}}) {
                QString text;
                readString(item, where, key, &text);
                if (text.isEmpty()) {
                    if (required)
                        fail(item, where, key, QStringLiteral("is required"));
                    continue;
                }
                *url = QUrl(text, QUrl::StrictMode);
                const QString problem = OAuthProvider::checkEndpoint(*url);
                if (!problem.isEmpty())
                    fail(item[key], where, key, problem);
            }
            if (provider.clientId.isEmpty())
                fail(item, where, "clientId", QStringLiteral("is required"));
            if (const YAML::Node parameters = item["authorizationParameters"]) {
                if (!parameters.IsMap()) {
                    fail(parameters, where, "authorizationParameters", QStringLiteral("must be a mapping of strings"));
                    return;
                }
                for (const auto& entry : parameters) {
                    if (!entry.second.IsScalar()) {
                        fail(entry.second, where, "authorizationParameters",
                            QStringLiteral("must be a mapping of strings"));
                        return;
                    }
                    const QString key = QString::fromStdString(entry.first.Scalar());
                    if (OAuthProvider::isReservedAuthorizationParameter(key)) {
                        fail(entry.first, where, "authorizationParameters",
                            QStringLiteral("must not set %1 (the flow sets it)").arg(key));
                        return;
                    }
                    provider.authorizationParameters.insert(key, QString::fromStdString(entry.second.Scalar()));
                }
            }
            for (const OAuthProvider& earlier : std::as_const(*target)) {
                if (earlier.name == provider.name)
                    fail(item["name"], where, "name", QStringLiteral("is used by an earlier provider"));
            }
            target->append(provider);
        }
    }

    // A string with ${VAR} replaced from the environment; an unset variable is an error naming it.
    // `$${` stays a literal `${`.
    bool expandEnvironment(const YAML::Node& node, const char* sectionName, const char* key, QString* text)
    {
        static const QRegularExpression variable(QStringLiteral("\\$(\\$?)\\{([^}]*)\\}"));
        static const QRegularExpression validName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
        QString result;
        qsizetype last = 0;
        for (auto it = variable.globalMatch(*text); it.hasNext();) {
            const QRegularExpressionMatch match = it.next();
            result += QStringView(*text).mid(last, match.capturedStart() - last);
            last = match.capturedEnd();
            if (!match.captured(1).isEmpty()) { // $${...}: the text as written, one '$' fewer
                result += match.captured(0).mid(1);
                continue;
            }
            const QString name = match.captured(2);
            if (!validName.match(name).hasMatch()) {
                fail(node, sectionName, key, QStringLiteral("refers to ${%1}, which is not a variable name").arg(name));
                return false;
            }
            const QByteArray nameBytes = name.toUtf8();
            if (!qEnvironmentVariableIsSet(nameBytes.constData())) {
                fail(node, sectionName, key,
                    QStringLiteral("uses the environment variable %1, which is not set").arg(name));
                return false;
            }
            result += qEnvironmentVariable(nameBytes.constData());
        }
        result += QStringView(*text).mid(last);
        *text = result;
        return true;
    }

    // A number of seconds (fractions allowed) between min and max, as milliseconds.
    void readSeconds(const YAML::Node& section, const char* sectionName, const char* key, double min, double max,
        std::chrono::milliseconds* target)
    {
        const YAML::Node node = section[key];
        if (!node)
            return;
        try {
            const double value = node.as<double>();
            if (!(value >= min && value <= max))
                fail(node, sectionName, key, QStringLiteral("must be between %1 and %2 seconds").arg(min).arg(max));
            else
                *target = std::chrono::milliseconds(qint64(value * 1000 + 0.5));
        } catch (const YAML::Exception&) {
            fail(node, sectionName, key, QStringLiteral("must be a number of seconds"));
        }
    }

    // An entry of mcp_endpoints or sinks: its name prefixes its tools' names (`name.tool`), so it
    // is required, valid for that and unique in its list. Sets `name` and returns "list[name]" for
    // messages, or an empty string with the error set.
    template<typename Entries>
    std::string namedEntry(const YAML::Node& item, const char* list, bool (*isValidName)(const QString&),
        const Entries& earlier, const char* what, QString* name)
    {
        if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) {
            fail(item, list, "", QStringLiteral("each entry needs a name"));
            return {};
        }
        *name = QString::fromStdString(item["name"].Scalar());
        std::string section = std::string(list) + "[" + item["name"].Scalar() + "]";
        if (!isValidName(*name)) {
            fail(item["name"], section.c_str(), "name",
                QStringLiteral("must be 1 to 64 letters, digits, '_' or '-' (a '.' would split its tools' names)"));
            return {};
        }
        for (const auto& entry : earlier) {
            if (entry.name == *name) {
                fail(item["name"], section.c_str(), "name",
                    QStringLiteral("is used by an earlier %1").arg(QLatin1String(what)));
                return {};
            }
        }
        return section;
    }

    // A required http:// or https:// URL with a host, ${VAR} expanded. Returns false with the error set.
    bool readHttpUrl(const YAML::Node& item, const char* where, const char* key, QUrl* target)
    {
        QString text;
        readString(item, where, key, &text);
        if (text.isEmpty()) {
            fail(item, where, key, QStringLiteral("is required"));
            return false;
        }
        if (!expandEnvironment(item[key], where, key, &text))
            return false;
        *target = QUrl(text, QUrl::StrictMode);
        const QString scheme = target->scheme().toLower();
        if (!target->isValid() || target->host().isEmpty()
            || (scheme != QLatin1String("http") && scheme != QLatin1String("https"))) {
            fail(item[key], where, key, QStringLiteral("must be an http:// or https:// URL"));
            return false;
        }
        return true;
    }

    // mcp_endpoints: the upstream adapters.
    void readAdapters(const YAML::Node& node, QList<AdapterConfig>* target)
    {
        if (!node || node.IsNull())
            return;
        if (!node.IsSequence()) {
            fail(node, "mcp_endpoints", "", QStringLiteral("must be a list of endpoints"));
            return;
        }
        for (const auto& item : node) {
            AdapterConfig adapter;
            const std::string section
                = namedEntry(item, "mcp_endpoints", &AdapterConfig::isValidName, *target, "endpoint", &adapter.name);
            if (section.empty())
                return;
            const char* where = section.c_str();
            checkKeys(item, where,
                {"name", "endpoint", "auth_token", "read_only", "enabled", "timeout", "circuit_breaker",
                    "elicitation"});
            if (!readHttpUrl(item, where, "endpoint", &adapter.endpoint))
                return;
            readString(item, where, "auth_token", &adapter.authToken);
            if (item["auth_token"] && !expandEnvironment(item["auth_token"], where, "auth_token", &adapter.authToken))
                return;
            readBool(item, where, "read_only", &adapter.readOnly);
            readBool(item, where, "enabled", &adapter.enabled);
            QString elicitation = QStringLiteral("console");
            readChoice(item, where, "elicitation", {QStringLiteral("console"), QStringLiteral("client")}, &elicitation);
            adapter.elicitationByClient = elicitation == QStringLiteral("client");
            readSeconds(item, where, "timeout", 0.001, 24 * 3600, &adapter.timeout);
            if (const YAML::Node breaker = item["circuit_breaker"]; breaker && !breaker.IsNull()) {
                const std::string breakerSection = section + ".circuit_breaker";
                const char* breakerWhere = breakerSection.c_str();
                if (!breaker.IsMap()) {
                    fail(breaker, where, "circuit_breaker", QStringLiteral("must be a mapping"));
                    return;
                }
                checkKeys(breaker, breakerWhere, {"failure_threshold", "recovery_timeout", "half_open_max_calls"});
                read(breaker, breakerWhere, "failure_threshold", &adapter.breaker.failureThreshold, 1, 1'000'000);
                readSeconds(breaker, breakerWhere, "recovery_timeout", 0, 24 * 3600, &adapter.breaker.recoveryTimeout);
                read(breaker, breakerWhere, "half_open_max_calls", &adapter.breaker.halfOpenMaxCalls, 1, 10'000);
            }
            if (!m_error.isEmpty())
                return;
            target->append(adapter);
        }
    }

    // A string value of a sink, with ${VAR} expanded; empty when absent (or after an error).
    QString readExpanded(const YAML::Node& item, const char* where, const char* key)
    {
        QString text;
        readString(item, where, key, &text);
        if (!text.isEmpty() && !expandEnvironment(item[key], where, key, &text))
            return QString();
        return text;
    }

    // sinks: where tools can send output (see SinkConfig). Unlike other sections, a key a sink's
    // type does not know is an error: a misspelt max_bytes or a url on a file sink would otherwise
    // leave a sink quietly unbounded or pointed elsewhere than the operator thinks.
    void readSinks(const YAML::Node& node, std::vector<SinkConfig>* target)
    {
        if (!node || node.IsNull())
            return;
        if (!node.IsSequence()) {
            fail(node, "sinks", "", QStringLiteral("must be a list of sinks"));
            return;
        }
        const QStringList types = {QStringLiteral("file"), QStringLiteral("jsonl"), QStringLiteral("webhook")};
        const std::map<QString, std::vector<std::string>> typeKeys = {
            {QStringLiteral("file"), {"root", "roots"}},
            {QStringLiteral("jsonl"), {"path", "add_timestamp", "max_file_bytes"}},
            {QStringLiteral("webhook"), {"url", "headers", "timeout"}},
        };
        for (const auto& item : node) {
            SinkConfig sink;
            const std::string section
                = namedEntry(item, "sinks", &SinkConfig::isValidName, *target, "sink", &sink.name);
            if (section.empty())
                return;
            const char* where = section.c_str();
            QString type;
            readString(item, where, "type", &type);
            if (type.isEmpty()) {
                fail(item, where, "type",
                    QStringLiteral("is required: one of %1").arg(types.join(QStringLiteral(", "))));
                return;
            }
            if (!types.contains(type)) {
                fail(item["type"], where, "type",
                    QStringLiteral("must be one of %1").arg(types.join(QStringLiteral(", "))));
                return;
            }
            sink.type = type == QLatin1String("file") ? SinkConfig::Type::File
                : type == QLatin1String("jsonl")      ? SinkConfig::Type::Jsonl
                                                      : SinkConfig::Type::Webhook;
            std::vector<std::string> known = {"name", "type", "description", "max_bytes"};
            const std::vector<std::string>& own = typeKeys.at(type);
            known.insert(known.end(), own.begin(), own.end());
            for (const auto& entry : item) {
                const std::string& key = entry.first.Scalar();
                if (std::find(known.begin(), known.end(), key) == known.end()) {
                    QStringList names;
                    for (const std::string& name : known)
                        names << QString::fromStdString(name);
                    fail(entry.first, where, key.c_str(),
                        QStringLiteral("is not a key of a %1 sink (its keys: %2)")
                            .arg(type, names.join(QStringLiteral(", "))));
                    return;
                }
            }
            sink.description = readExpanded(item, where, "description");
            sink.maxBytes = SinkConfig::defaultMaxBytes(sink.type);
            read<qint64>(item, where, "max_bytes", &sink.maxBytes, 1, qint64(1) << 30);
            const auto requireAbsolute = [&](const YAML::Node& at, const char* key, const QString& path) {
                if (!path.isEmpty() && QFileInfo(path).isRelative())
                    fail(at, where, key, QStringLiteral("must be an absolute path (\"%1\" is not)").arg(path));
            };
            switch (sink.type) {
            case SinkConfig::Type::File:
                if (item["root"] && item["roots"]) {
                    fail(item["roots"], where, "roots", QStringLiteral("and root cannot both be given"));
                    return;
                }
                if (item["root"]) {
                    sink.roots << readExpanded(item, where, "root");
                } else {
                    readList(item, where, "roots", &sink.roots);
                    for (QString& root : sink.roots) {
                        if (!expandEnvironment(item["roots"], where, "roots", &root))
                            return;
                    }
                }
                if (sink.roots.isEmpty() || sink.roots.contains(QString())) {
                    fail(item, where, "root", QStringLiteral("is required: the directory the sink writes below"));
                    return;
                }
                for (const QString& root : std::as_const(sink.roots))
                    requireAbsolute(item[item["root"] ? "root" : "roots"], item["root"] ? "root" : "roots", root);
                break;
            case SinkConfig::Type::Jsonl:
                sink.path = readExpanded(item, where, "path");
                if (sink.path.isEmpty()) {
                    fail(item, where, "path", QStringLiteral("is required: the log file records are appended to"));
                    return;
                }
                requireAbsolute(item["path"], "path", sink.path);
                readBool(item, where, "add_timestamp", &sink.addTimestamp);
                read<qint64>(item, where, "max_file_bytes", &sink.maxFileBytes, 0, qint64(1) << 50);
                break;
            case SinkConfig::Type::Webhook: {
                if (!readHttpUrl(item, where, "url", &sink.url))
                    return;
                readSeconds(item, where, "timeout", 0.001, 3600, &sink.timeout);
                readHeaders(item, where, &sink.headers);
                break;
            }
            }
            if (!m_error.isEmpty())
                return;
            target->push_back(std::move(sink));
        }
    }

    // command_tools: tools backed by an executable (see CommandToolConfig). As with sinks, a key the
    // entry does not know is an error: a misspelt timeout or env would run the command otherwise
    // than the operator thinks.
    void readCommandTools(const YAML::Node& node, std::vector<CommandToolConfig>* target)
    {
        if (!node || node.IsNull())
            return;
        if (!node.IsSequence()) {
            fail(node, "command_tools", "", QStringLiteral("must be a list of tools"));
            return;
        }
        const std::vector<std::string> known = {"name", "description", "command", "args", "env", "cwd", "timeout",
            "max_concurrent", "inputSchema", "input_schema", "annotations"};
        for (const auto& item : node) {
            struct Named
            {
                QString name;
            };
            std::vector<Named> earlier;
            for (const CommandToolConfig& tool : std::as_const(*target))
                earlier.push_back({tool.spec.name});
            CommandToolConfig tool;
            const std::string section
                = namedEntry(item, "command_tools", &CommandToolConfig::isValidName, earlier, "tool", &tool.spec.name);
            if (section.empty())
                return;
            const char* where = section.c_str();
            for (const auto& entry : item) {
                const std::string& key = entry.first.Scalar();
                if (std::find(known.begin(), known.end(), key) == known.end()) {
                    QStringList names;
                    for (const std::string& name : known)
                        names << QString::fromStdString(name);
                    fail(entry.first, where, key.c_str(),
                        QStringLiteral("is not a key of a command tool (its keys: %1)")
                            .arg(names.join(QStringLiteral(", "))));
                    return;
                }
            }
            if (item["inputSchema"] && item["input_schema"]) {
                fail(item["input_schema"], where, "input_schema",
                    QStringLiteral("and inputSchema cannot both be given"));
                return;
            }
            // The spec as ToolSpec reads it: name, description, the schema and the annotations.
            nlohmann::json spec{{"name", tool.spec.name.toStdString()}};
            if (const YAML::Node description = item["description"]) {
                if (!description.IsScalar()) {
                    fail(description, where, "description", QStringLiteral("must be a string"));
                    return;
                }
                spec["description"] = description.Scalar();
            }
            for (const char* key : {"inputSchema", "input_schema"}) {
                if (const YAML::Node schema = item[key]) {
                    if (!schema.IsMap()) {
                        fail(schema, where, key, QStringLiteral("must be a JSON schema object"));
                        return;
                    }
                    spec["inputSchema"] = yamlToJson<nlohmann::json>(schema);
                }
            }
            if (const YAML::Node annotations = item["annotations"]) {
                if (!annotations.IsMap()) {
                    fail(annotations, where, "annotations",
                        QStringLiteral("must be a mapping (readOnlyHint, destructiveHint, …)"));
                    return;
                }
                spec["annotations"] = yamlToJson<nlohmann::json>(annotations);
            }
            QString problem;
            if (!ToolSpec::fromJson(spec, &tool.spec, &problem)) {
                fail(item, where, "", problem);
                return;
            }

            tool.command = readExpanded(item, where, "command");
            if (!m_error.isEmpty())
                return;
            if (tool.command.isEmpty()) {
                fail(item, where, "command", QStringLiteral("is required: the executable each call starts"));
                return;
            }
            if (tool.command.contains(QLatin1Char('/')) && QFileInfo(tool.command).isRelative()) {
                fail(item["command"], where, "command",
                    QStringLiteral("must be an absolute path or a bare name looked up in PATH (\"%1\" is neither)")
                        .arg(tool.command));
                return;
            }
            readList(item, where, "args", &tool.args);
            for (QString& arg : tool.args) {
                if (!expandEnvironment(item["args"], where, "args", &arg))
                    return;
            }
            static const QRegularExpression variableName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
            const bool envRead = readStringMap(
                item, where, "env", QStringLiteral("must be a mapping of variable names to strings"), variableName,
                QStringLiteral("a variable name"),
                [](const QString& name) {
                    return name == QLatin1String("TOOL_NAME")
                        ? QStringLiteral("must not set TOOL_NAME (each call sets it)")
                        : QString();
                },
                [](const QString& name, const QString& value) {
                    return value.contains(QChar(0)) ? QStringLiteral("%1 has a NUL in its value").arg(name) : QString();
                },
                [&tool](const QString& name, const QString& value) {
                    tool.env.append({name, value});
                });
            if (!envRead)
                return;
            tool.workingDirectory = readExpanded(item, where, "cwd");
            if (!m_error.isEmpty())
                return;
            if (tool.workingDirectory.isEmpty()) {
                tool.workingDirectory = QFileInfo(m_path).absolutePath();
            } else if (QFileInfo(tool.workingDirectory).isRelative()) {
                fail(item["cwd"], where, "cwd",
                    QStringLiteral("must be an absolute path (\"%1\" is not)").arg(tool.workingDirectory));
                return;
            }
            readSeconds(item, where, "timeout", 0.001, 24 * 3600, &tool.timeout);
            read(item, where, "max_concurrent", &tool.maxConcurrent, 1, 1000);
            if (!m_error.isEmpty())
                return;
            target->push_back(std::move(tool));
        }
    }

    // A mapping of names to strings under `key` (a command's env, a webhook's headers): each name
    // must match `namePattern` (else "which is not <nameKind>") and pass `refuseName`; each value
    // must be a scalar, is ${VAR}-expanded, then must pass `refuseValue`. The refusals return the
    // message, empty when allowed. `add` takes each pair; false after the first failure.
    bool readStringMap(const YAML::Node& item, const char* where, const char* key, const QString& notAMapping,
        const QRegularExpression& namePattern, const QString& nameKind,
        const std::function<QString(const QString& name)>& refuseName,
        const std::function<QString(const QString& name, const QString& value)>& refuseValue,
        const std::function<void(const QString& name, const QString& value)>& add)
    {
        const YAML::Node map = item[key];
        if (!map || map.IsNull())
            return true;
        if (!map.IsMap()) {
            fail(map, where, key, notAMapping);
            return false;
        }
        for (const auto& entry : map) {
            const QString name = QString::fromStdString(entry.first.Scalar());
            if (!namePattern.match(name).hasMatch()) {
                fail(entry.first, where, key, QStringLiteral("has \"%1\", which is not %2").arg(name, nameKind));
                return false;
            }
            if (const QString refusal = refuseName(name); !refusal.isEmpty()) {
                fail(entry.first, where, key, refusal);
                return false;
            }
            if (!entry.second.IsScalar()) {
                fail(entry.second, where, key, QStringLiteral("%1 must be a string").arg(name));
                return false;
            }
            QString value = QString::fromStdString(entry.second.Scalar());
            if (!expandEnvironment(entry.second, where, key, &value))
                return false;
            if (const QString refusal = refuseValue(name, value); !refusal.isEmpty()) {
                fail(entry.second, where, key, refusal);
                return false;
            }
            add(name, value);
        }
        return true;
    }

    // A webhook's headers: names as HTTP allows them, values without line breaks (after ${VAR}
    // expansion, so a variable cannot smuggle in a header of its own). Host, Content-Length,
    // Transfer-Encoding and Connection belong to the HTTP client.
    void readHeaders(const YAML::Node& item, const char* where, QList<QPair<QByteArray, QByteArray>>* target)
    {
        static const QRegularExpression token(QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"));
        readStringMap(
            item, where, "headers", QStringLiteral("must be a mapping of header names to values"), token,
            QStringLiteral("a header name"),
            [](const QString& name) {
                static const QStringList reserved = {QStringLiteral("host"), QStringLiteral("content-length"),
                    QStringLiteral("transfer-encoding"), QStringLiteral("connection")};
                return reserved.contains(name.toLower())
                    ? QStringLiteral("must not set %1 (the HTTP client sets it)").arg(name)
                    : QString();
            },
            [](const QString& name, const QString& value) {
                return value.contains(QLatin1Char('\r')) || value.contains(QLatin1Char('\n'))
                        || value.contains(QChar(0))
                    ? QStringLiteral("%1 has a line break or NUL in its value (after ${VAR} expansion)").arg(name)
                    : QString();
            },
            [target](const QString& name, const QString& value) {
                target->append({name.toLatin1(), value.toUtf8()});
            });
    }

    void checkKeys(const YAML::Node& section, const char* sectionName, const std::set<std::string>& known)
    {
        if (!section.IsMap())
            return;
        for (const auto& entry : section) {
            const std::string& key = entry.first.Scalar();
            if (!known.count(key)) {
                m_config->warnings << QStringLiteral("%1:%2: unknown key %3%4 (ignored)")
                                          .arg(m_path)
                                          .arg(entry.first.Mark().line + 1)
                                          .arg(sectionName ? QString::fromUtf8(sectionName) + QLatin1Char('.')
                                                           : QString(),
                                              QString::fromStdString(key));
            }
        }
    }

    // A section that must be a mapping (`server: 5` is an error, `server:` an empty section).
    bool isSection(const YAML::Node& node, const char* sectionName)
    {
        if (!node || node.IsNull())
            return false;
        if (node.IsMap())
            return true;
        fail(node, sectionName, "", QStringLiteral("must be a mapping of keys to values"));
        return false;
    }

    void fail(const YAML::Node& node, const char* sectionName, const char* key, const QString& message)
    {
        if (!m_error.isEmpty())
            return;
        const QString where = *key ? QString::fromUtf8(sectionName) + QLatin1Char('.') + QString::fromUtf8(key)
                                   : QString::fromUtf8(sectionName);
        m_error = QStringLiteral("%1:%2: %3 %4").arg(m_path).arg(node.Mark().line + 1).arg(where, message);
    }

    QString error() const { return m_error; }

private:
    bool checkNode(const YAML::Node& node, const QString& where, std::vector<YAML::Node>* ancestors, int* budget)
    {
        const QString what = where.isEmpty() ? QStringLiteral("the document") : where;
        if (--*budget < 0) {
            failAt(node,
                QStringLiteral("%1: the file holds more than %2 values once aliases are expanded (each use of an "
                               "alias counts its whole content)")
                    .arg(what)
                    .arg(MaxValues));
            return false;
        }
        for (const YAML::Node& ancestor : std::as_const(*ancestors)) {
            if (ancestor.is(node)) {
                failAt(node, QStringLiteral("%1 contains itself (an alias used inside its own anchor)").arg(what));
                return false;
            }
        }
        if (!node.IsMap() && !node.IsSequence())
            return true;
        if (int(ancestors->size()) >= MaxDepth) {
            failAt(node, QStringLiteral("%1 is nested deeper than %2 levels").arg(what).arg(MaxDepth));
            return false;
        }
        ancestors->push_back(node);
        bool ok = true;
        if (node.IsMap()) {
            for (const auto& entry : node) {
                if (!entry.first.IsScalar()) {
                    failAt(entry.first,
                        QStringLiteral("%1 has a key that is a %2; keys must be plain strings")
                            .arg(what, entry.first.IsSequence() ? QStringLiteral("list") : QStringLiteral("mapping")));
                    ok = false;
                    break;
                }
                const QString key = QString::fromStdString(entry.first.Scalar());
                if (!checkNode(
                        entry.second, where.isEmpty() ? key : where + QLatin1Char('.') + key, ancestors, budget)) {
                    ok = false;
                    break;
                }
            }
        } else {
            int index = 0;
            for (const auto& item : node) {
                if (!checkNode(item, where + QStringLiteral("[%1]").arg(index++), ancestors, budget)) {
                    ok = false;
                    break;
                }
            }
        }
        ancestors->pop_back();
        return ok;
    }

    void failAt(const YAML::Node& node, const QString& message)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1:%2: %3").arg(m_path).arg(node.Mark().line + 1).arg(message);
    }

    QString m_path;
    SwitchboardConfig* m_config;
    QString m_error;
};

} // namespace

bool SwitchboardConfig::load(const QString& path, SwitchboardConfig* config, QString* error)
{
    *config = SwitchboardConfig();
    if (!QFileInfo::exists(path))
        return true;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read configuration %1: %2").arg(path, file.errorString());
        return false;
    }
    YAML::Node root;
    try {
        root = YAML::Load(file.readAll().toStdString());
    } catch (const YAML::Exception& e) {
        *error = QStringLiteral("%1:%2:%3: %4")
                     .arg(path)
                     .arg(e.mark.line + 1)
                     .arg(e.mark.column + 1)
                     .arg(QString::fromStdString(e.msg));
        return false;
    }
    if (root.IsNull())
        return true;
    if (!root.IsMap()) {
        *error = QStringLiteral("%1: the configuration must be a mapping of sections (server, console, history)")
                     .arg(path);
        return false;
    }

    Reader reader(path, config);
    if (!reader.checkStructure(root)) {
        *error = reader.error();
        return false;
    }
    reader.checkKeys(root, nullptr,
        {"server", "console", "history", "interaction", "tasks", "execution", "permissions", "clientTools",
            "oauthProviders", "secrets", "git", "mcp_endpoints", "sinks", "command_tools", "operator"});
    const YAML::Node server = root["server"];
    if (reader.isSection(server, "server")) {
        reader.checkKeys(server, "server",
            {"port", "bind", "allowedOrigins", "allowedHosts", "maxBodyBytes", "toolsPageSize", "maxSessions", "tls"});
        int port = config->port;
        reader.read(server, "server", "port", &port, 0, 65535);
        config->port = quint16(port);
        reader.readString(server, "server", "bind", &config->bindAddress);
        reader.readList(server, "server", "allowedOrigins", &config->allowedOrigins);
        reader.readList(server, "server", "allowedHosts", &config->allowedHosts);
        reader.read<qint64>(server, "server", "maxBodyBytes", &config->maxBodyBytes, 1024, qint64(1) << 30);
        reader.read(server, "server", "toolsPageSize", &config->toolsPageSize, 1, 10'000);
        reader.read(server, "server", "maxSessions", &config->maxSessions, 1, 100'000);
        if (const YAML::Node tls = server["tls"]; reader.isSection(tls, "server.tls")) {
            reader.checkKeys(tls, "server.tls", {"certificate", "key"});
            reader.readString(tls, "server.tls", "certificate", &config->tlsCertificate);
            reader.readString(tls, "server.tls", "key", &config->tlsKey);
            if (config->tlsCertificate.isEmpty() || config->tlsKey.isEmpty())
                reader.fail(tls, "server.tls", "", QStringLiteral("needs both certificate and key (PEM files)"));
        }
    }
    const YAML::Node console = root["console"];
    if (reader.isSection(console, "console")) {
        reader.checkKeys(console, "console", {"callLogRows", "callLogBytes"});
        reader.read(console, "console", "callLogRows", &config->callLogRows, 100, 1'000'000);
        reader.read<qint64>(
            console, "console", "callLogBytes", &config->callLogBytes, qint64(1) << 20, qint64(16) << 30);
    }
    const YAML::Node history = root["history"];
    if (reader.isSection(history, "history")) {
        reader.checkKeys(history, "history", {"maxCalls", "maxBytes"});
        reader.read<qint64>(history, "history", "maxCalls", &config->historyMaxCalls, 1000, qint64(1) << 40);
        reader.read<qint64>(
            history, "history", "maxBytes", &config->historyMaxBytes, qint64(16) << 20, qint64(1) << 40);
    }
    const YAML::Node interaction = root["interaction"];
    if (reader.isSection(interaction, "interaction")) {
        reader.checkKeys(interaction, "interaction",
            {"mode", "clients", "maxWaitSeconds", "progressIntervalSeconds", "maxPendingQuestions"});
        const QStringList modes = {QStringLiteral("hold"), QStringLiteral("park"), QStringLiteral("task")};
        reader.readChoice(interaction, "interaction", "mode", modes, &config->interactionMode);
        reader.readChoiceMap(interaction, "interaction", "clients", modes, &config->clientModes);
        reader.read(interaction, "interaction", "maxWaitSeconds", &config->maxWaitSeconds, 1, 7 * 24 * 3600);
        reader.read(interaction, "interaction", "progressIntervalSeconds", &config->progressIntervalSeconds, 1, 3600);
        reader.read(interaction, "interaction", "maxPendingQuestions", &config->maxPendingQuestions, 1, 100'000);
    }
    const YAML::Node tasks = root["tasks"];
    if (reader.isSection(tasks, "tasks")) {
        reader.checkKeys(tasks, "tasks", {"promoteAfterMs", "ttlSeconds", "pollIntervalMs", "maxTasks", "maxBytes"});
        reader.read(tasks, "tasks", "promoteAfterMs", &config->taskPromoteAfterMs, 0, 3'600'000);
        reader.read(tasks, "tasks", "ttlSeconds", &config->taskTtlSeconds, 10, 30 * 24 * 3600);
        reader.read(tasks, "tasks", "pollIntervalMs", &config->taskPollIntervalMs, 100, 600'000);
        reader.read(tasks, "tasks", "maxTasks", &config->maxTasks, 1, 1'000'000);
        reader.read<qint64>(tasks, "tasks", "maxBytes", &config->maxTaskBytes, qint64(1) << 20, qint64(16) << 30);
    }
    const YAML::Node execution = root["execution"];
    if (reader.isSection(execution, "execution")) {
        reader.checkKeys(execution, "execution",
            {"workers", "maxQueuedCalls", "defaultDeadlineSeconds", "heartbeatSeconds", "deadlines"});
        reader.read(execution, "execution", "workers", &config->executionWorkers, 1, 1024);
        reader.read(execution, "execution", "maxQueuedCalls", &config->executionMaxQueuedCalls, 0, 100'000);
        reader.read(
            execution, "execution", "defaultDeadlineSeconds", &config->defaultDeadlineSeconds, 1, 7 * 24 * 3600);
        reader.read(execution, "execution", "heartbeatSeconds", &config->heartbeatSeconds, 1, 3600);
        reader.readNumberMap(execution, "execution", "deadlines", 1, 7 * 24 * 3600, &config->toolDeadlineSeconds);
    }
    const YAML::Node permissions = root["permissions"];
    if (reader.isSection(permissions, "permissions")) {
        reader.checkKeys(permissions, "permissions", {"default", "tools", "adapters", "sinks"});
        const QStringList values = {QStringLiteral("allow"), QStringLiteral("ask"), QStringLiteral("deny")};
        reader.readChoice(permissions, "permissions", "default", values, &config->defaultPermission);
        reader.readChoiceMap(permissions, "permissions", "tools", values, &config->toolPermissions);
        reader.readChoiceMap(permissions, "permissions", "adapters", values, &config->adapterPermissions);
        reader.readChoiceMap(permissions, "permissions", "sinks", values, &config->sinkPermissions);
    }
    const YAML::Node git = root["git"];
    if (reader.isSection(git, "git")) {
        reader.checkKeys(git, "git", {"roots", "schemes", "allowLocalRemotes", "timeoutSeconds", "credentials"});
        reader.readList(git, "git", "roots", &config->git.roots);
        for (const QString& gitRoot : std::as_const(config->git.roots)) {
            if (gitRoot.isEmpty() || QFileInfo(gitRoot).isRelative())
                reader.fail(git["roots"], "git", "roots",
                    QStringLiteral("must be absolute paths (\"%1\" is not)").arg(gitRoot));
        }
        QStringList schemes;
        reader.readList(git, "git", "schemes", &schemes);
        const QStringList knownSchemes
            = {QStringLiteral("https"), QStringLiteral("http"), QStringLiteral("ssh"), QStringLiteral("git")};
        for (const QString& scheme : std::as_const(schemes)) {
            if (!knownSchemes.contains(scheme.toLower()))
                reader.fail(git["schemes"], "git", "schemes",
                    QStringLiteral("may hold only %1 (\"%2\" is not one; file:// is allowLocalRemotes)")
                        .arg(knownSchemes.join(QStringLiteral(", ")), scheme));
        }
        if (git["schemes"])
            config->git.schemes = schemes;
        reader.readBool(git, "git", "allowLocalRemotes", &config->git.allowLocalRemotes);
        reader.read(git, "git", "timeoutSeconds", &config->git.timeoutSeconds, 1, 24 * 3600);
        QMap<QString, QString> credentials;
        reader.readStringMap(git, "git", "credentials", &credentials);
        for (auto it = credentials.cbegin(); it != credentials.cend(); ++it)
            config->git.credentialProviders.insert(it.key().toLower(), it.value());
    }
    reader.readOperator(root["operator"], &config->operatorTokens, &config->operatorMaxStreams, &config->operatorPort);
    reader.readAdapters(root["mcp_endpoints"], &config->adapters);
    reader.readSinks(root["sinks"], &config->sinks);
    reader.readCommandTools(root["command_tools"], &config->commandTools);
    reader.readClientTools(root["clientTools"], &config->clientTools);
    reader.readOAuthProviders(root["oauthProviders"], &config->oauthProviders);
    // secrets: {store: keychain | file, file: path}, or just `secrets: file`.
    const YAML::Node secrets = root["secrets"];
    if (secrets && !secrets.IsNull()) {
        const QStringList stores = {QStringLiteral("keychain"), QStringLiteral("file")};
        QString store = QStringLiteral("keychain");
        if (secrets.IsScalar()) {
            store = QString::fromStdString(secrets.Scalar());
            if (!stores.contains(store))
                reader.fail(secrets, "secrets", "store", QStringLiteral("must be one of keychain, file"));
        } else if (secrets.IsMap()) {
            reader.checkKeys(secrets, "secrets", {"store", "file"});
            reader.readChoice(secrets, "secrets", "store", stores, &store);
            reader.readString(secrets, "secrets", "file", &config->secretsFile);
            if (!config->secretsFile.isEmpty() && QFileInfo(config->secretsFile).isRelative())
                reader.fail(secrets["file"], "secrets", "file", QStringLiteral("must be an absolute path"));
            else if (!config->secretsFile.isEmpty() && store != QStringLiteral("file"))
                config->warnings << QStringLiteral("%1:%2: secrets.file is ignored unless secrets.store is file")
                                        .arg(path)
                                        .arg(secrets["file"].Mark().line + 1);
        } else {
            reader.fail(secrets, "secrets", "store", QStringLiteral("must be keychain or file"));
        }
        if (store == QStringLiteral("file"))
            config->secretStorage = SecretStorage::OwnerOnlyFile;
    }
    if (!reader.error().isEmpty()) {
        *error = reader.error();
        return false;
    }
    return true;
}
