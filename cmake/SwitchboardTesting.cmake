# switchboard_add_test(<name> LABEL <unit|integration|gui|conformance> [sanitize] LIBS <targets...> [TIMEOUT <s>]
#                      [WRAPPER <command...>])
#
# Tests labelled unit (and any also labelled sanitize) run again in the AddressSanitizer+UBSan
# build; the target sanitized_tests builds just those.
#
# Of those, the backend's own (linking backend, neither models nor ui) also get the label tsan and
# run in the ThreadSanitizer build; the target tsan_tests builds just those. Debian's Qt is not
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
# WRAPPER runs the test through a command that sets up its surroundings (a private keyring, say);
# the wrapper gets the test executable and its arguments appended.
# Tests share one precompiled header per kind of Qt application they make (QtTest's headers look at
# QT_GUI_LIB and QT_WIDGETS_LIB, so a test linking widgets cannot use the headers another test
# precompiled without): the backend's, the models', the widgets'. Each carrier links what its tests
# link, so that its compile flags are theirs.
function(_switchboard_test_pch carrier set)
    if(NOT SWITCHBOARD_PCH OR TARGET ${carrier})
        return()
    endif()
    add_library(${carrier} OBJECT ${PROJECT_SOURCE_DIR}/tests/pch/pchcarrier.cpp)
    target_link_libraries(${carrier} PRIVATE Qt6::Test ${ARGN})
    target_precompile_headers(${carrier} PRIVATE ${SWITCHBOARD_PCH_${set}})
endfunction()

function(switchboard_add_test name)
    cmake_parse_arguments(ARG "" "TIMEOUT" "LABEL;LIBS;WRAPPER" ${ARGN})
    if(NOT ARG_LABEL)
        message(FATAL_ERROR "switchboard_add_test(${name}): LABEL is required")
    endif()
    add_executable(${name} ${name}.cpp)
    target_link_libraries(${name} PRIVATE Qt6::Test ${ARG_LIBS})
    target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    if(SWITCHBOARD_PCH)
        if("ui" IN_LIST ARG_LIBS)
            _switchboard_test_pch(switchboard_test_pch_widgets TEST_WIDGETS ui backend)
            target_precompile_headers(${name} REUSE_FROM switchboard_test_pch_widgets)
        elseif("models" IN_LIST ARG_LIBS)
            _switchboard_test_pch(switchboard_test_pch_gui TEST_GUI models backend)
            target_precompile_headers(${name} REUSE_FROM switchboard_test_pch_gui)
        else()
            _switchboard_test_pch(switchboard_test_pch_core TEST backend)
            target_precompile_headers(${name} REUSE_FROM switchboard_test_pch_core)
        endif()
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
        if("backend" IN_LIST ARG_LIBS AND NOT "models" IN_LIST ARG_LIBS AND NOT "ui" IN_LIST ARG_LIBS)
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
