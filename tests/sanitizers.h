#pragma once

// SWITCHBOARD_UNDER_ASAN is 1 in a build under AddressSanitizer. GCC says so with
// __SANITIZE_ADDRESS__; clang 14 (the ci-asan build) only through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define SWITCHBOARD_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWITCHBOARD_UNDER_ASAN 1
#endif
#endif
#ifndef SWITCHBOARD_UNDER_ASAN
#define SWITCHBOARD_UNDER_ASAN 0
#endif
