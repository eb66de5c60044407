#pragma once

// GitCancellationFilter: lets a cancelled call stop libgit2 while it writes a working tree (the
// checkout that ends a clone, minutes for a large tree). libgit2's checkout offers no way to stop
// it once files are being written: its progress callback cannot cancel. Every file it writes
// passes through the registered filters, though; this one applies to none, but fails the file
// (and so the checkout) once the call of the thread's GitTransportStream::Scope is cancelled.

class GitCancellationFilter
{
public:
    // Registers the filter with libgit2 (once per process, before any filter is used; GitLibrary
    // does it).
    static void install();
};
