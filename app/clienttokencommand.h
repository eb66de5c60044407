#pragma once

// `switchboard client-token issue NAME | revoke NAME | list`: the named client tokens of a state
// directory (ClientTokens), from a terminal or a provisioning script, whether or not a console runs
// on it: a running server takes a change on its next request. `issue` prints the token alone on
// stdout (it is shown only then) and how a client sends it on stderr; `list` prints names and
// when each was issued, never a token. Exit status 0, or 1 with the reason on stderr. No server, no
// window, no GUI library.

// Runs the command; `argv[1]` is "client-token". Returns the exit status.
int runClientTokenCommand(int argc, char** argv);
