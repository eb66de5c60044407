# Tests share precompiled headers through REUSE_FROM. GCC uses a precompiled header only where every
# macro defined when it was made is defined the same way (QT_NETWORK_LIB, QT_WIDGETS_LIB, …: one per
# Qt module a target links), so a carrier is made per set of libraries, linking exactly what its
# tests link. Only the three sets most tests use get one (backend alone, models alone, ui alone); a
# test that links something besides compiles without (a carrier for one or two tests saves nothing).
# Qt6::Network, Qt6::HttpServer and Qt6::Sql come with backend anyway (it links them publicly), so
# next to backend they change nothing.
function(_switchboard_test_pch_key out)
    set(libs ${ARGN})
    if("backend" IN_LIST libs)
        list(REMOVE_ITEM libs Qt6::Network Qt6::HttpServer Qt6::Sql)
    endif()
    if(libs STREQUAL "backend" OR libs STREQUAL "models" OR libs STREQUAL "ui")
        set(${out} ${libs} PARENT_SCOPE)
    else()
        set(${out} "" PARENT_SCOPE)
    endif()
endfunction()

# A test's own code gains nothing from optimising but takes longer to build with it: tests are built
# at -O0 (the libraries they test keep the build type's level). GCC builds tst_gittools in 9.5 s at
# -O0 against 15.6 s at -O1 (issue 23, item 17).
function(_switchboard_test_compile_options target)
    target_compile_options(${target} PRIVATE $<$<CONFIG:RelWithDebInfo,Release>:-O0>)
endfunction()

# Qt Test without the definitions Qt6::Test gives its users: QT_TESTCASE_SOURCEDIR and
# QT_TESTCASE_BUILDDIR hold absolute paths, which make every test's compile line unique to its clone
# so that ccache reuses nothing from another clone. Tests find their files through testpaths.h.
function(_switchboard_qttest)
    if(TARGET switchboard_qttest)
        return()
    endif()
    add_library(switchboard_qttest INTERFACE)
    target_link_libraries(switchboard_qttest INTERFACE $<LINK_ONLY:Qt6::Test> Qt6::Core)
    target_include_directories(switchboard_qttest SYSTEM INTERFACE
        $<TARGET_PROPERTY:Qt6::Test,INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(switchboard_qttest INTERFACE QT_TESTLIB_LIB)
    # The paths of this clone and build, in one generated unit (testpaths.h).
    set(SWITCHBOARD_TESTS_SOURCE_DIR ${PROJECT_SOURCE_DIR}/tests)
    configure_file(${PROJECT_SOURCE_DIR}/tests/testpaths.cpp.in ${PROJECT_BINARY_DIR}/tests/testpaths.cpp.in @ONLY)
    file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/tests/testpaths.cpp INPUT ${PROJECT_BINARY_DIR}/tests/testpaths.cpp.in)
    add_library(switchboard_testpaths STATIC ${PROJECT_BINARY_DIR}/tests/testpaths.cpp)
    target_include_directories(switchboard_testpaths PUBLIC ${PROJECT_SOURCE_DIR}/tests)
    target_link_libraries(switchboard_testpaths PUBLIC Qt6::Core)
    set_target_properties(switchboard_testpaths PROPERTIES AUTOMOC OFF SKIP_PRECOMPILE_HEADERS ON)
    target_link_libraries(switchboard_qttest INTERFACE switchboard_testpaths)
endfunction()

function(_switchboard_test_pch carrier set)
    if(TARGET ${carrier})
        return()
    endif()
    add_library(${carrier} OBJECT ${PROJECT_SOURCE_DIR}/tests/pch/pchcarrier.cpp)
    _switchboard_qttest()
    target_link_libraries(${carrier} PRIVATE switchboard_qttest ${ARGN})
    _switchboard_test_compile_options(${carrier})
    target_precompile_headers(${carrier} PRIVATE ${SWITCHBOARD_PCH_${set}})
endfunction()

# switchboard_add_test(<name> LABEL <unit|integration|gui|conformance> [sanitize] LIBS <targets...> [TIMEOUT <s>]
#                      [WRAPPER <command...>] [ONE_THREAD])
#
# Tests labelled unit (and any also labelled sanitize) run again in the AddressSanitizer+UBSan
# build; the target sanitized_tests builds just those.
#
# Of those, the backend's own (linking backend, neither models nor ui) also get the label tsan and
# run in the ThreadSanitizer build; the target tsan_tests builds just those. A test marked ONE_THREAD
# starts no thread (strace -f counts no clone with CLONE_THREAD in a run), so ThreadSanitizer has
# nothing to look at there and the tsan stage neither builds nor runs it. Debian's Qt is not
# built with ThreadSanitizer: Qt's own threads (QtTest's watchdog, QThread::wait) synchronise through
# QMutex's futex, which TSan cannot see, so TSAN_OPTIONS ignores accesses that uninstrumented
# libraries make through intercepted calls (ignore_noninstrumented_modules; every access our code
# makes is still checked), and points at tests/tsan.supp for anything left that is not ours.
#
# The git tools' tests start the git program (QProcess forks, then execs at once): TSan must not stop
# a process that forks after it has threads (die_after_fork=0); the forked child only execs.
#
# One Qt Test executable per unit, built from tests/<name>.cpp; tests link the libraries and never
# re-list their sources (GammaRay's gammaray_add_test is the pattern).
#
# NO_TSAN "<reason>" keeps a test that drives the whole Backend out of the tsan stage (it still runs in
# the ci and asan builds): the Backend hands work between its threads through Qt's event queue, whose
# QMutex ThreadSanitizer cannot see, so every value a queued call carries reads as a race. The reason
# is required, and said in the configure output.
#
# WRAPPER runs the test through a command that sets up its surroundings (a private keyring, say);
# the wrapper gets the test executable and its arguments appended.
function(switchboard_add_test name)
    cmake_parse_arguments(ARG "ONE_THREAD" "TIMEOUT;NO_TSAN" "LABEL;LIBS;WRAPPER" ${ARGN})
    if(NOT ARG_LABEL)
        message(FATAL_ERROR "switchboard_add_test(${name}): LABEL is required")
    endif()
    add_executable(${name} ${name}.cpp)
    _switchboard_qttest()
    target_link_libraries(${name} PRIVATE switchboard_qttest ${ARG_LIBS})
    target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    _switchboard_test_compile_options(${name})
    _switchboard_test_pch_key(pch_key ${ARG_LIBS})
    if(SWITCHBOARD_PCH AND pch_key)
        set(pch_set_backend TEST)
        set(pch_set_models TEST_GUI)
        set(pch_set_ui TEST_WIDGETS)
        _switchboard_test_pch(switchboard_test_pch_${pch_key} ${pch_set_${pch_key}} ${pch_key})
        target_precompile_headers(${name} REUSE_FROM switchboard_test_pch_${pch_key})
        # A test includes its moc output itself, so AUTOMOC's own unit is empty: loading the
        # precompiled header for it would cost more than the unit.
        set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${name}_autogen/mocs_compilation.cpp
            TARGET_DIRECTORY ${name} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
    if(ARG_WRAPPER)
        add_test(NAME ${name} COMMAND ${ARG_WRAPPER} $<TARGET_FILE:${name}>)
    else()
        add_test(NAME ${name} COMMAND ${name})
    endif()
    if("unit" IN_LIST ARG_LABEL OR "sanitize" IN_LIST ARG_LABEL)
        if(NOT TARGET sanitized_tests)
            add_custom_target(sanitized_tests)
        endif()
        add_dependencies(sanitized_tests ${name})
        if(ARG_NO_TSAN)
            message(STATUS "${name}: not in the tsan stage: ${ARG_NO_TSAN}")
        endif()
        if("backend" IN_LIST ARG_LIBS AND NOT "models" IN_LIST ARG_LIBS AND NOT "ui" IN_LIST ARG_LIBS
           AND NOT ARG_ONE_THREAD AND NOT ARG_NO_TSAN)
            list(APPEND ARG_LABEL tsan)
            if(NOT TARGET tsan_tests)
                add_custom_target(tsan_tests)
            endif()
            add_dependencies(tsan_tests ${name})
        endif()
    endif()
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 300)
    endif()
    set_tests_properties(${name} PROPERTIES
        LABELS "${ARG_LABEL}"
        TIMEOUT ${ARG_TIMEOUT}
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QT_FORCE_STDERR_LOGGING=1;ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1;TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:die_after_fork=0:suppressions=${PROJECT_SOURCE_DIR}/tests/tsan.supp")
endfunction()
