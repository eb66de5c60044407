# switchboard_precompile(<target> <QT|NETWORK|GUI|WIDGETS>)
#
# Precompiles the headers every unit of a target parses anyway: the standard library, nlohmann/json
# and the Qt modules the target links. Parsing them once per target instead of once per unit is
# most of what makes a fresh build fast enough for CI (issue 23, item 17). Each set includes only
# what the target links: backend and its tests never see QtWidgets (the backend knows nothing of
# widgets).
#
# The tests share two precompiled headers (one without widgets, one with) through REUSE_FROM, so
# eighty test executables parse them twice, not eighty times.
set(_switchboard_pch_std
    <algorithm> <chrono> <functional> <map> <memory> <mutex> <optional> <string> <utility> <vector>)
set(_switchboard_pch_core
    ${_switchboard_pch_std} <nlohmann/json.hpp>
    <QByteArray> <QDateTime> <QDir> <QFile> <QFileInfo> <QHash> <QList> <QMetaType> <QObject>
    <QString> <QStringList> <QTimer> <QUrl> <QVariant>)
set(SWITCHBOARD_PCH_QT ${_switchboard_pch_core})
set(SWITCHBOARD_PCH_NETWORK ${_switchboard_pch_core} <QtNetwork>)
set(SWITCHBOARD_PCH_GUI ${_switchboard_pch_core} <QAbstractItemModel> <QAbstractTableModel> <QColor> <QFont>
    <QPalette>)
set(SWITCHBOARD_PCH_WIDGETS ${SWITCHBOARD_PCH_GUI} <QtWidgets>)
set(SWITCHBOARD_PCH_TEST_WIDGETS_BASE ${SWITCHBOARD_PCH_WIDGETS} <QtNetwork>)
set(SWITCHBOARD_PCH_TEST ${SWITCHBOARD_PCH_NETWORK} <QSignalSpy> <QTest>)
set(SWITCHBOARD_PCH_TEST_GUI ${SWITCHBOARD_PCH_GUI} <QtNetwork> <QSignalSpy> <QTest>)
set(SWITCHBOARD_PCH_TEST_WIDGETS ${SWITCHBOARD_PCH_TEST_WIDGETS_BASE} <QSignalSpy> <QTest>)

function(switchboard_precompile target set)
    if(NOT SWITCHBOARD_PCH)
        return()
    endif()
    target_precompile_headers(${target} PRIVATE ${SWITCHBOARD_PCH_${set}})
endfunction()
