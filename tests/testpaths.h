#pragma once

// Where the tests find the files and programs they run: tests/ in the source tree, its node and
// commands folders, and the switchboard binary of this build.
//
// The paths are absolute and differ between clones, so they live in one unit that CMake generates
// (testpaths.cpp in the build directory), never in a test's compile line: a macro holding a path
// made every test's compile line unique to its clone, and ccache reused nothing from another clone
// (issue 23, item 17). For the same reason tests do not take Qt Test's QT_TESTCASE_SOURCEDIR.

#include <QString>

namespace TestPaths {

// tests/ in the source tree.
QString sourceDir();
// tests/node: Node 22 (node22) and the npm packages the tests run (npm ci; scripts/test.sh does it).
QString nodeDir();
// tests/commands: the scripts command tools run in the tests.
QString commandsDir();
// tests/har: the HAR import check.
QString harDir();
// The switchboard binary of this build.
QString switchboardBinary();

} // namespace TestPaths
