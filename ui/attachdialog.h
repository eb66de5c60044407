#pragma once

// AttachDialog: File ▸ Attach…: what the window needs to follow one more Switchboard through its
// operator API: the URL (the base, /mcp or /operator/v1 one), an operator token (masked; it opens
// the API and is never shown again) and, for a server with a certificate of its own, a PEM file of
// certificates to trust beside the system's.

#include <QDialog>

class QDialogButtonBox;
class QLineEdit;

class AttachDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AttachDialog(QWidget* parent = nullptr);

    QUrl url() const;
    QByteArray token() const;
    QString caFile() const; // empty: the system's certificates only

    QLineEdit* urlEdit() const { return m_url; }
    QLineEdit* tokenEdit() const { return m_token; }
    QLineEdit* caFileEdit() const { return m_caFile; }

private:
    void updateButtons();

    QLineEdit* m_url;
    QLineEdit* m_token;
    QLineEdit* m_caFile;
    QDialogButtonBox* m_buttons;
};
