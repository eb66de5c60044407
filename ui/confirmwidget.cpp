#include "confirmwidget.h"

#include "clientanswer.h"

#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

ConfirmWidget::ConfirmWidget(const PendingInteraction& interaction, QWidget* parent)
    : InteractionWidget(interaction, parent)
{
    addQuestionLabels();
    if (specString("prompt").isEmpty() && specString("question").isEmpty()) {
        QLabel* label = valueLabel(tr("Confirm?"), QStringLiteral("questionLabel"));
        bodyLayout()->addWidget(label);
    }
    setBodyExpands(false);

    auto* yes = addAnswerButton(tr("&Yes"), QStringLiteral("yesButton"), ButtonPlace::Leading);
    auto* no = addAnswerButton(tr("&No"), QStringLiteral("noButton"), ButtonPlace::Leading);
    // Return says yes, as it allows once in an approval: the question's own action.
    setDefaultButton(yes);
    connect(yes, &QPushButton::clicked, this, [this] { respond(ClientAnswer::confirmed(true)); });
    connect(no, &QPushButton::clicked, this, [this] { respond(ClientAnswer::confirmed(false)); });
}
