#include "config/switchboardconfig.h"

#include <QFile>
#include <QFileInfo>

#include <yaml-cpp/yaml.h>

#include <set>

namespace {

class Reader
{
public:
    Reader(QString path, SwitchboardConfig* config)
        : m_path(std::move(path))
        , m_config(config)
    {}

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
        if (!node)
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

    void checkKeys(const YAML::Node& section, const char* sectionName, const std::set<std::string>& known)
    {
        if (!section.IsMap())
            return;
        for (const auto& entry : section) {
            const auto key = entry.first.as<std::string>();
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

    void fail(const YAML::Node& node, const char* sectionName, const char* key, const QString& message)
    {
        if (!m_error.isEmpty())
            return;
        m_error = QStringLiteral("%1:%2: %3.%4 %5")
                      .arg(m_path)
                      .arg(node.Mark().line + 1)
                      .arg(QString::fromUtf8(sectionName), QString::fromUtf8(key), message);
    }

    QString error() const { return m_error; }

private:
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
    reader.checkKeys(root, nullptr, {"server", "console", "history"});
    const YAML::Node server = root["server"];
    if (server && server.IsMap()) {
        reader.checkKeys(server, "server",
            {"port", "bind", "allowedOrigins", "allowedHosts", "maxBodyBytes", "toolsPageSize", "maxSessions"});
        int port = config->port;
        reader.read(server, "server", "port", &port, 0, 65535);
        config->port = quint16(port);
        reader.readString(server, "server", "bind", &config->bindAddress);
        reader.readList(server, "server", "allowedOrigins", &config->allowedOrigins);
        reader.readList(server, "server", "allowedHosts", &config->allowedHosts);
        reader.read<qint64>(server, "server", "maxBodyBytes", &config->maxBodyBytes, 1024, qint64(1) << 30);
        reader.read(server, "server", "toolsPageSize", &config->toolsPageSize, 1, 10'000);
        reader.read(server, "server", "maxSessions", &config->maxSessions, 1, 100'000);
    }
    const YAML::Node console = root["console"];
    if (console && console.IsMap()) {
        reader.checkKeys(console, "console", {"callLogRows"});
        reader.read(console, "console", "callLogRows", &config->callLogRows, 100, 1'000'000);
    }
    const YAML::Node history = root["history"];
    if (history && history.IsMap()) {
        reader.checkKeys(history, "history", {"maxCalls"});
        reader.read<qint64>(history, "history", "maxCalls", &config->historyMaxCalls, 1000, qint64(1) << 40);
    }
    if (!reader.error().isEmpty()) {
        *error = reader.error();
        return false;
    }
    return true;
}
