// The MCP client alone: `tools/call` of a tool on an upstream, one call after another on one
// session, timed from callTool() to the completion. Prints the p50 and p99 as run-adapter-bench.sh
// reads them, so the latency Switchboard adds as a gateway can be told apart from the client's.
//
//   bench_mcpclient URL TOOL ARGUMENTS-JSON SECONDS

#include "transport/mcpclient.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

using nlohmann::json;

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList arguments = app.arguments();
    if (arguments.size() != 5) {
        std::fprintf(stderr, "usage: bench_mcpclient URL TOOL ARGUMENTS-JSON SECONDS\n");
        return 2;
    }
    McpClient::Settings settings;
    settings.endpoint = QUrl(arguments.at(1));
    McpClient client(settings);
    const QString tool = arguments.at(2);
    const json toolArguments = json::parse(arguments.at(3).toStdString(), nullptr, false);
    const qint64 durationMs = arguments.at(4).toLongLong() * 1000;

    std::vector<double> samplesUs;
    QElapsedTimer total;
    QElapsedTimer one;
    int errors = 0;
    bool warmedUp = false;
    std::function<void()> next = [&] {
        if (warmedUp && total.elapsed() >= durationMs) {
            app.quit();
            return;
        }
        one.start();
        client.callTool(tool, toolArguments, {}, [&](McpClient::Outcome outcome) {
            const double us = double(one.nsecsElapsed()) / 1000.0;
            if (!outcome.ok() || outcome.result.value("isError", false))
                ++errors;
            if (!warmedUp) {
                warmedUp = true; // the first call also initializes: not counted
                total.start();
            } else {
                samplesUs.push_back(us);
            }
            QTimer::singleShot(0, &app, next);
        });
    };
    QTimer::singleShot(0, &app, next);
    app.exec();
    if (samplesUs.empty()) {
        std::fprintf(stderr, "bench_mcpclient: no call finished\n");
        return 1;
    }
    std::sort(samplesUs.begin(), samplesUs.end());
    const auto at = [&](double q) {
        return samplesUs[std::min(samplesUs.size() - 1, std::size_t(q * double(samplesUs.size())))];
    };
    std::printf("RESULT calls_per_s=%.1f p50_us=%.0f p99_us=%.0f requests=%zu errors=%d\n",
        double(samplesUs.size()) * 1000.0 / double(std::max<qint64>(1, total.elapsed())), at(0.50), at(0.99),
        samplesUs.size(), errors);
    return errors == 0 ? 0 : 1;
}
