#include "statusfilterbox.h"

#include "statuscolours.h"

StatusFilterBox::StatusFilterBox(QWidget* parent)
    : QComboBox(parent)
{
    // The item data is the status as an int; "All statuses" has none.
    addItem(tr("All statuses"));
    const StatusColours& colours = StatusColours::forApplication();
    for (const CallStatus status : allCallStatuses()) {
        addItem(colours.icon(status), callStatusLabel(status), int(status));
        setItemData(count() - 1, callStatusDescription(status), Qt::ToolTipRole);
    }
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    setToolTip(tr("Show only calls with this status"));
    connect(this, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT statusFilterChanged(status()); });
}

std::optional<CallStatus> StatusFilterBox::status() const
{
    const QVariant value = currentData();
    if (!value.isValid())
        return std::nullopt;
    return CallStatus(value.toInt());
}

void StatusFilterBox::setStatus(std::optional<CallStatus> status)
{
    setCurrentIndex(status ? findData(int(*status)) : 0);
}
