#pragma once

// QCOMPARE for nlohmann::json values: compares (and on failure prints) their compact JSON text.

#include <QTest>

#include <nlohmann/json.hpp>

#define QCOMPARE_JSON(actual, expected)                                                                                \
    QCOMPARE(QString::fromStdString(nlohmann::json(actual).dump()),                                                    \
        QString::fromStdString(nlohmann::json(expected).dump()))
