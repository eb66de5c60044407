# switchboard_precompile(<target> <QT|NETWORK|GUI|WIDGETS>)
#
# Precompiles the headers every unit of a target parses anyway: the standard library, nlohmann/json
# and the Qt modules the target links. Parsing them once per target instead of once per unit is
# most of what makes a fresh build fast enough for CI (issue 23, item 17). Each set includes only
# what the target links: backend and its tests never see QtWidgets (the backend knows nothing of
# widgets).
#
# Most tests share one of three precompiled headers (backend's, models', widgets') through
# REUSE_FROM (cmake/SwitchboardTesting.cmake), so most of eighty test executables parse them thrice,
# not eighty times.
set(_switchboard_pch_std
    <algorithm> <chrono> <functional> <map> <memory> <mutex> <optional> <string> <utility> <vector>)
set(_switchboard_pch_core
    ${_switchboard_pch_std} <nlohmann/json.hpp>
    <QByteArray> <QDateTime> <QDir> <QFile> <QFileInfo> <QHash> <QList> <QMetaType> <QObject>
    <QString> <QStringList> <QTimer> <QUrl> <QVariant>)
set(SWITCHBOARD_PCH_QT ${_switchboard_pch_core})
# Classes rather than module headers: a module header doubles the precompiled header, and loading
# it costs every unit more than the classes it brings save the few that use them.
set(SWITCHBOARD_PCH_NETWORK ${_switchboard_pch_core} <QHostAddress> <QNetworkAccessManager> <QNetworkReply>
    <QNetworkRequest> <QTcpSocket>)
set(SWITCHBOARD_PCH_GUI ${_switchboard_pch_core} <QAbstractItemModel> <QAbstractTableModel> <QColor> <QFont>
    <QPalette>)
set(SWITCHBOARD_PCH_WIDGETS ${SWITCHBOARD_PCH_GUI} <QAction> <QApplication> <QHBoxLayout> <QHeaderView> <QLabel>
    <QLineEdit> <QMenu> <QPlainTextEdit> <QPushButton> <QScrollArea> <QSplitter> <QTableView> <QVBoxLayout>
    <QWidget>)
set(SWITCHBOARD_PCH_TEST ${SWITCHBOARD_PCH_NETWORK} <QSignalSpy> <QTest>)
set(SWITCHBOARD_PCH_TEST_GUI ${SWITCHBOARD_PCH_GUI} <QSignalSpy> <QTest>)
set(SWITCHBOARD_PCH_TEST_WIDGETS ${SWITCHBOARD_PCH_WIDGETS} <QSignalSpy> <QTest>)

function(switchboard_precompile target set)
    if(NOT SWITCHBOARD_PCH)
        return()
    endif()
    target_precompile_headers(${target} PRIVATE ${SWITCHBOARD_PCH_${set}})
endfunction()
