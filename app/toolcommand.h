#pragma once

// `switchboard tool [NAME]`: the one-shot runner. Reads one envelope from stdin, runs the tool it
// names through the same router, permissions, executor, history and workspace state as the
// console, writes one JSON answer to stdout and exits: so that Switchboard's own tools can be wired
// as a command into a router that starts a process per call. No window, no server, no GUI library.

// Runs the command; `argv[1]` is "tool". Returns the exit status (ToolEnvelope::ExitCode).
int runToolCommand(int argc, char** argv);
