#pragma once

// ConfirmWidget: a yes/no question from a client tool (render "confirm"); the client receives
// {"confirmed": true} or {"confirmed": false}.

#include "interactionwidget.h"

class ConfirmWidget : public InteractionWidget
{
    Q_OBJECT
public:
    explicit ConfirmWidget(const PendingInteraction& interaction, QWidget* parent = nullptr);
};
