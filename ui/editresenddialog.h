#pragma once

// EditResendDialog: the inspector's "Edit and resend…": a recorded call's arguments to edit, in a
// form generated from the tool's input schema (as the Tools view's) when the form can hold them
// exactly as recorded, or as JSON text ("Edit as JSON", and always for a schema or arguments a form
// cannot show). In JSON, Send stays off while the text is not a JSON object, and a line under the
// editor says why; accepted, arguments() holds the object to send (compact JSON).

#include <QDialog>

class JsonEditor;
class QCheckBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QStackedWidget;
class SchemaForm;

class EditResendDialog : public QDialog
{
    Q_OBJECT
public:
    // `inputSchema` is the tool's as it is offered now (empty when it is not known: JSON only).
    EditResendDialog(const QString& tool, qint64 originalCallId, const QByteArray& arguments,
        const QByteArray& inputSchema = {}, QWidget* parent = nullptr);

    QString tool() const { return m_tool; }
    qint64 originalCallId() const { return m_originalCallId; }
    // The edited arguments as compact JSON; valid once the dialog is accepted.
    QByteArray arguments() const { return m_arguments; }
    JsonEditor* editor() const { return m_editor; }
    // Null when the schema gives no form.
    SchemaForm* form() const { return m_form; }
    QCheckBox* jsonToggle() const { return m_jsonToggle; }
    bool isJsonMode() const;
    QPushButton* sendButton() const { return m_send; }
    QLabel* problemLabel() const { return m_problem; }
    QLabel* formNote() const { return m_formNote; }

    void accept() override;

private:
    // Whether what is to be sent is a JSON object (the form's values, or the text); says why not.
    bool validate();
    void setJsonMode(bool json);

    QString m_tool;
    qint64 m_originalCallId;
    QByteArray m_arguments;
    JsonEditor* m_editor;
    SchemaForm* m_form = nullptr;
    QScrollArea* m_formArea;
    QStackedWidget* m_stack;
    QCheckBox* m_jsonToggle;
    QLabel* m_formNote;
    QLabel* m_problem;
    QPushButton* m_send;
};
