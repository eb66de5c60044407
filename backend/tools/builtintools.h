#pragma once

// The builtin tools that need no configuration. For now: echo, a diagnostic that returns its
// arguments, for checking a client's wiring and for the benchmark.

class ToolRegistry;

void registerBuiltinTools(ToolRegistry& registry);
