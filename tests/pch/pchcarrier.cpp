// Compiled only to build the precompiled header that the test executables share (REUSE_FROM in
// cmake/SwitchboardTesting.cmake); it has no code of its own.
