#pragma once

// DatedTimeProxy: shows the date as well as the time in the time column, for lists of calls that
// span days (history); the live log keeps the shorter time of day.

#include <QIdentityProxyModel>

class DatedTimeProxy : public QIdentityProxyModel
{
    Q_OBJECT
public:
    using QIdentityProxyModel::QIdentityProxyModel;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
};
