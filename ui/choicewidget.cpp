#include "choicewidget.h"

#include "clientanswer.h"

#include <QButtonGroup>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QVBoxLayout>

using nlohmann::json;

ChoiceWidget::ChoiceWidget(const PendingInteraction& interaction, QWidget* parent)
    : InteractionWidget(interaction, parent)
    , m_group(new QButtonGroup(this))
{
    if (const auto it = renderSpec().find("choices"); it != renderSpec().end() && it->is_array()) {
        for (const json& choice : *it) {
            if (choice.is_string())
                m_choices.append(QString::fromStdString(choice.get<std::string>()));
        }
    }
    addQuestionLabels();
    if (specString("prompt").isEmpty() && specString("question").isEmpty())
        bodyLayout()->addWidget(valueLabel(tr("Choose one:"), QStringLiteral("questionLabel")));

    // A long list scrolls instead of pushing the buttons out of the panel.
    auto* options = new QWidget;
    auto* optionsLayout = new QVBoxLayout(options);
    optionsLayout->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < m_choices.size(); ++i) {
        auto* button = new QRadioButton(withoutMnemonic(m_choices.at(i)));
        button->setObjectName(QStringLiteral("choice%1").arg(i));
        m_group->addButton(button, i);
        button->installEventFilter(this); // the arrows select, not only move the focus
        if (i < 9)
            button->setToolTip(tr("Press %1 to select").arg(i + 1));
        optionsLayout->addWidget(button);
    }
    optionsLayout->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("choicesArea"));
    scroll->setWidget(options);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    bodyLayout()->addWidget(scroll, 1);

    m_chooseButton = addAnswerButton(tr("Ch&oose"), QStringLiteral("chooseButton"), ButtonPlace::Leading);
    m_chooseButton->setEnabled(false);
    auto* decline = addAnswerButton(tr("&Decline"), QStringLiteral("declineButton"), ButtonPlace::Trailing);
    decline->setToolTip(tr("Choose nothing; the client is told you declined"));
    // Arrow keys pick an option, Return chooses it.
    setDefaultButton(m_chooseButton);

    connect(m_group, &QButtonGroup::idToggled, this, [this] { m_chooseButton->setEnabled(m_group->checkedId() >= 0); });
    connect(m_chooseButton, &QPushButton::clicked, this, &ChoiceWidget::choose);
    connect(decline, &QPushButton::clicked, this, [this] { respond(ClientAnswer::declined(RenderHint::Choice)); });
}

void ChoiceWidget::pick(int index)
{
    QAbstractButton* button = m_group->button(index);
    if (!button || isSending())
        return;
    button->setChecked(true);
    moveFocusWithin(button);
}

bool ChoiceWidget::eventFilter(QObject* watched, QEvent* event)
{
    // Qt's radio buttons move the focus with the arrows but check nothing while none is checked;
    // here the arrow selects, so that Return then chooses what the person sees selected.
    if (event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        const int at = m_group->id(qobject_cast<QAbstractButton*>(watched));
        if (at >= 0 && key->modifiers() == Qt::NoModifier) {
            if (key->key() == Qt::Key_Down || key->key() == Qt::Key_Right) {
                pick(qMin(at + 1, int(m_choices.size()) - 1));
                return true;
            }
            if (key->key() == Qt::Key_Up || key->key() == Qt::Key_Left) {
                pick(qMax(at - 1, 0));
                return true;
            }
        }
    }
    return InteractionWidget::eventFilter(watched, event);
}

void ChoiceWidget::keyPressEvent(QKeyEvent* event)
{
    // 1 to 9 select that option (they never answer: Return does).
    const int key = event->key();
    if (key >= Qt::Key_1 && key <= Qt::Key_9 && (event->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier
        && key - Qt::Key_1 < m_choices.size()) {
        pick(key - Qt::Key_1);
        event->accept();
        return;
    }
    InteractionWidget::keyPressEvent(event);
}

void ChoiceWidget::choose()
{
    const int id = m_group->checkedId();
    if (id < 0 || id >= m_choices.size())
        return;
    respond(ClientAnswer::chosen(m_choices.at(id)));
}

QWidget* ChoiceWidget::initialFocusWidget() const
{
    if (QAbstractButton* checked = m_group->checkedButton())
        return checked;
    const QList<QAbstractButton*> buttons = m_group->buttons();
    return buttons.isEmpty() ? InteractionWidget::initialFocusWidget() : buttons.first();
}
