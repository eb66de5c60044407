#pragma once

// ChoiceWidget: pick one of the options a client tool offers (render "choice"; the options are the
// configured choices or the call's "options"); the client receives {"choice": "…"}, or
// {"choice": null, "reason": "declined"}. The keyboard picks as in a list: the arrows select the
// option above or below, a number key (1 to 9) selects that option, and Return chooses the
// selected one.

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

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void choose();
    // Checks option `index` and, when the person is in this question, gives it the focus.
    void pick(int index);

    QStringList m_choices;
    QButtonGroup* m_group = nullptr;
    QPushButton* m_chooseButton = nullptr;
};
