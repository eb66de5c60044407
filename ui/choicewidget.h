#pragma once

// ChoiceWidget: pick one of the options a client tool offers (render "choice"; the options are the
// configured choices or the call's "options"); the client receives {"choice": "…"}, or
// {"choice": null, "reason": "declined"}.

#include "interactionwidget.h"

class QButtonGroup;
class QPushButton;

class ChoiceWidget : public InteractionWidget
{
    Q_OBJECT
public:
    explicit ChoiceWidget(const PendingInteraction& interaction, QWidget* parent = nullptr);

    QStringList choices() const { return m_choices; }
    QWidget* initialFocusWidget() const override;

private:
    void choose();

    QStringList m_choices;
    QButtonGroup* m_group = nullptr;
    QPushButton* m_chooseButton = nullptr;
};
