#pragma once

// StatusFilterBox: a combo box offering "All statuses" and each CallStatus, shared by the live call
// log and the history browser so both filter the same way.

#include "toolcall.h"

#include <QComboBox>

#include <optional>

class StatusFilterBox : public QComboBox
{
    Q_OBJECT
public:
    explicit StatusFilterBox(QWidget* parent = nullptr);

    // The chosen status, or nothing for "All statuses".
    std::optional<CallStatus> status() const;
    void setStatus(std::optional<CallStatus> status);

Q_SIGNALS:
    void statusFilterChanged(std::optional<CallStatus> status);
};
