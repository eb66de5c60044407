// Compiled only to build the precompiled headers that the test executables share (REUSE_FROM in
// cmake/SwitchboardTesting.cmake) and the backend's layers share (backend_pch in
// backend/CMakeLists.txt); it has no code of its own.
