#include "callexportdialog.h"

#include "callexportjob.h"

#include <QDir>
#include <QFileDialog>
#include <QMessageBox>
#include <QProgressDialog>

QString CallExportDialog::askFileName(QWidget* parent, const QString& title, const QString& suggestedName)
{
    const QString ndjson = QObject::tr("NDJSON, one call per line (*.ndjson *.jsonl)");
    const QString har = QObject::tr("HAR 1.2, for a browser's network panel (*.har)");
    QString filter = ndjson;
    QString path = QFileDialog::getSaveFileName(parent, title,
        QDir::home().filePath(suggestedName + QStringLiteral(".ndjson")), ndjson + QStringLiteral(";;") + har, &filter);
    if (path.isEmpty())
        return {};
    if (!path.endsWith(QStringLiteral(".har"), Qt::CaseInsensitive)
        && !path.endsWith(QStringLiteral(".ndjson"), Qt::CaseInsensitive)
        && !path.endsWith(QStringLiteral(".jsonl"), Qt::CaseInsensitive))
        path += filter == har ? QStringLiteral(".har") : QStringLiteral(".ndjson");
    return path;
}

void CallExportDialog::watch(QWidget* parent, CallExportJob* job)
{
    auto* progress = new QProgressDialog(parent);
    progress->setObjectName(QStringLiteral("exportProgress"));
    progress->setWindowTitle(QObject::tr("Export"));
    progress->setLabelText(QObject::tr("Writing %1…").arg(QDir::toNativeSeparators(job->path())));
    progress->setMinimumDuration(500);
    progress->setAutoClose(false);
    progress->setAutoReset(false);
    progress->setRange(0, 0); // until the job says how many calls it writes
    QObject::connect(progress, &QProgressDialog::canceled, job, &CallExportJob::cancel);
    QObject::connect(job, &CallExportJob::progressed, progress, [progress](qint64 written, qint64 total) {
        if (total > 0) {
            progress->setMaximum(int(qMin<qint64>(total, INT_MAX)));
            progress->setValue(int(qMin<qint64>(written, INT_MAX)));
        } else
            progress->setLabelText(QObject::tr("%1 calls written…").arg(written));
    });
    QObject::connect(job, &CallExportJob::finished, progress, [parent, progress, job](bool ok, const QString& message) {
        progress->deleteLater();
        job->deleteLater();
        if (!ok && !progress->wasCanceled())
            QMessageBox::warning(parent, QObject::tr("Export failed"), message);
    });
}
