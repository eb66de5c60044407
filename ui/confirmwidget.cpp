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

    auto* yes = new QPushButton(tr("Yes"));
    yes->setObjectName(QStringLiteral("yesButton"));
    auto* no = new QPushButton(tr("No"));
    no->setObjectName(QStringLiteral("noButton"));
    addButtonRow({yes, no}, {});
    connect(yes, &QPushButton::clicked, this, [this] { respond(ClientAnswer::confirmed(true)); });
    connect(no, &QPushButton::clicked, this, [this] { respond(ClientAnswer::confirmed(false)); });
}
