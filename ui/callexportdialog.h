#pragma once

// CallExportDialog: the window side of exporting calls: asks where to save (NDJSON or HAR, by the
// filter chosen or the name typed), shows a CallExportJob's progress with a Cancel button, and says
// when it fails. Used by the console's File ▸ Export… and History's Export….

#include <QString>

class CallExportJob;
class QWidget;

class CallExportDialog
{
public:
    // The file to write, with ".ndjson" or ".har" added when the name has neither; empty when the
    // person cancelled.
    static QString askFileName(QWidget* parent, const QString& title, const QString& suggestedName);
    // Shows the job's progress (after half a second) with Cancel, and a warning if it fails; call it
    // before starting the job. The job is deleted when it has finished.
    static void watch(QWidget* parent, CallExportJob* job);
};
