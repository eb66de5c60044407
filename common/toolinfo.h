#pragma once

// ToolInfo: one tool the backend offers now, as the console's Tools view shows it: its name, where
// its calls go, what it says about itself, its schemas and annotations (compact JSON text, as
// tools/list has them). A value type with its JSON form, so a remote console can receive it too.

#include "toolroute.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

struct ToolInfo
{
    QString name;
    QString title;
    ToolRoute route;
    QString description;
    QByteArray inputSchema; // a JSON Schema object
    QByteArray outputSchema; // empty when the tool declares none
    QByteArray annotations; // {"readOnlyHint": …, "destructiveHint": …}; "{}" when it has none

    // An annotation hint (e.g. "readOnlyHint"): true or false when the tool says, nullopt when not.
    std::optional<bool> hint(const char* key) const;

    nlohmann::json toJson() const;
    static std::optional<ToolInfo> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const ToolInfo&, const ToolInfo&) = default;
};

using ToolInfoList = QList<ToolInfo>;

Q_DECLARE_METATYPE(ToolInfo)
Q_DECLARE_METATYPE(ToolInfoList)
