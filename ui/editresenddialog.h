#pragma once

// EditResendDialog: the inspector's "Edit and resend…": a recorded call's arguments as JSON text
// to edit. Send stays off while the text is not a JSON object, and a line under the editor says
// why; accepted, arguments() holds the object to send (compact JSON).

#include <QDialog>

class JsonEditor;
class QLabel;
class QPushButton;

class EditResendDialog : public QDialog
{
    Q_OBJECT
public:
    EditResendDialog(
        const QString& tool, qint64 originalCallId, const QByteArray& arguments, QWidget* parent = nullptr);

    QString tool() const { return m_tool; }
    qint64 originalCallId() const { return m_originalCallId; }
    // The edited arguments as compact JSON; valid once the dialog is accepted.
    QByteArray arguments() const { return m_arguments; }
    JsonEditor* editor() const { return m_editor; }
    QPushButton* sendButton() const { return m_send; }
    QLabel* problemLabel() const { return m_problem; }

    void accept() override;

private:
    // Whether the text is a JSON object; says why not under the editor.
    bool validate();

    QString m_tool;
    qint64 m_originalCallId;
    QByteArray m_arguments;
    JsonEditor* m_editor;
    QLabel* m_problem;
    QPushButton* m_send;
};
