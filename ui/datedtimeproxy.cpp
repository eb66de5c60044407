#include "datedtimeproxy.h"

#include "callcolumns.h"
#include "modelroles.h"

QVariant DatedTimeProxy::data(const QModelIndex& index, int role) const
{
    if (role == Qt::DisplayRole && index.column() == CallColumns::TimeColumn) {
        const ToolCall call = QIdentityProxyModel::data(index, CallRole).value<ToolCall>();
        return CallColumns::formatLocalTime(call.startedAtMs, QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
    }
    return QIdentityProxyModel::data(index, role);
}
