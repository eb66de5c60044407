#include "git/gittransportstream.h"

#include "tools/toolcallcontext.h"

#include <git2.h>
#include <git2/sys/stream.h>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

struct GitTransportStream::Scope::State
{
    const ToolCallContext* context = nullptr;
    std::string host; // lower case; empty: any
    std::string port;
    std::string refused; // "host:port" of the first connection refused
};

namespace {

thread_local GitTransportStream::Scope::State* t_scope = nullptr;

std::string lowered(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

// How long one wait lasts before the call's cancellation is looked at again.
constexpr int SliceMs = 100;

// The first fields are laid out as libgit2 1.5's own git_socket_stream (parent, host, port,
// socket): its SSH transport takes the socket from there to hand it to libssh2.
struct TimedSocketStream
{
    git_stream parent;
    char* host;
    char* port;
    int socket;
    const ToolCallContext* context; // the call this connection works for; null outside a Scope
};

TimedSocketStream* self(git_stream* stream)
{
    return reinterpret_cast<TimedSocketStream*>(stream);
}

bool cancelled(const TimedSocketStream* stream)
{
    return stream->context && stream->context->isCancelled();
}

int fail(int klass, const std::string& message)
{
    git_error_set_str(klass, message.c_str());
    return -1;
}

// Waits until the socket is ready for `events`, in slices, giving up when the call is cancelled.
int waitFor(TimedSocketStream* stream, short events)
{
    for (;;) {
        if (cancelled(stream))
            return fail(GIT_ERROR_NET, "the transfer was cancelled");
        pollfd descriptor{stream->socket, events, 0};
        const int ready = ::poll(&descriptor, 1, SliceMs);
        if (ready > 0)
            return 0;
        if (ready < 0 && errno != EINTR)
            return fail(GIT_ERROR_OS, std::string("poll failed: ") + std::strerror(errno));
    }
}

int connectStream(git_stream* base)
{
    TimedSocketStream* stream = self(base);
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = AF_UNSPEC;
    addrinfo* addresses = nullptr;
    const int resolved = ::getaddrinfo(stream->host, stream->port, &hints, &addresses);
    if (resolved != 0)
        return fail(GIT_ERROR_NET,
            std::string("failed to resolve address for ") + stream->host + ": " + ::gai_strerror(resolved));
    std::string lastError = "no address";
    for (addrinfo* address = addresses; address; address = address->ai_next) {
        const int descriptor
            = ::socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, address->ai_protocol);
        if (descriptor < 0) {
            lastError = std::strerror(errno);
            continue;
        }
        stream->socket = descriptor;
        if (::connect(descriptor, address->ai_addr, address->ai_addrlen) != 0) {
            if (errno != EINPROGRESS) {
                lastError = std::strerror(errno);
                ::close(descriptor);
                stream->socket = -1;
                continue;
            }
            if (waitFor(stream, POLLOUT) != 0) {
                ::close(descriptor);
                stream->socket = -1;
                ::freeaddrinfo(addresses);
                return -1;
            }
            int error = 0;
            socklen_t length = sizeof error;
            ::getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length);
            if (error != 0) {
                lastError = std::strerror(error);
                ::close(descriptor);
                stream->socket = -1;
                continue;
            }
        }
        // Blocking again, as libssh2 expects of the socket it is given; reads and writes wait
        // with poll() first, so they never block while nothing can be done.
        ::fcntl(descriptor, F_SETFL, ::fcntl(descriptor, F_GETFL) & ~O_NONBLOCK);
        ::freeaddrinfo(addresses);
        return 0;
    }
    ::freeaddrinfo(addresses);
    return fail(GIT_ERROR_NET, std::string("failed to connect to ") + stream->host + ": " + lastError);
}

ssize_t readStream(git_stream* base, void* data, size_t length)
{
    TimedSocketStream* stream = self(base);
    if (waitFor(stream, POLLIN) != 0)
        return -1;
    for (;;) {
        const ssize_t received = ::recv(stream->socket, data, length, 0);
        if (received >= 0)
            return received;
        if (errno != EINTR)
            return fail(GIT_ERROR_NET, std::string("could not read from the remote: ") + std::strerror(errno));
    }
}

ssize_t writeStream(git_stream* base, const char* data, size_t length, int)
{
    TimedSocketStream* stream = self(base);
    if (waitFor(stream, POLLOUT) != 0)
        return -1;
    for (;;) {
        const ssize_t sent = ::send(stream->socket, data, length, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0)
            return sent;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (waitFor(stream, POLLOUT) != 0)
                return -1;
            continue;
        }
        if (errno != EINTR)
            return fail(GIT_ERROR_NET, std::string("could not write to the remote: ") + std::strerror(errno));
    }
}

int closeStream(git_stream* base)
{
    TimedSocketStream* stream = self(base);
    if (stream->socket >= 0)
        ::close(stream->socket);
    stream->socket = -1;
    return 0;
}

void freeStream(git_stream* base)
{
    TimedSocketStream* stream = self(base);
    closeStream(base);
    std::free(stream->host);
    std::free(stream->port);
    delete stream;
}

int newStream(git_stream** out, const char* host, const char* port)
{
    // Only to the remote's own host and port: anywhere else is where a redirect led.
    if (t_scope && !t_scope->host.empty() && (lowered(host) != t_scope->host || std::string(port) != t_scope->port)) {
        const std::string endpoint = std::string(host) + ':' + port;
        if (t_scope->refused.empty())
            t_scope->refused = endpoint;
        return fail(GIT_ERROR_NET,
            "the remote redirected to " + endpoint + ", another host than its own (" + t_scope->host + ':'
                + t_scope->port + "); nothing was sent there");
    }
    auto* stream = new TimedSocketStream{};
    stream->parent.version = GIT_STREAM_VERSION;
    stream->parent.connect = &connectStream;
    stream->parent.read = &readStream;
    stream->parent.write = &writeStream;
    stream->parent.close = &closeStream;
    stream->parent.free = &freeStream;
    stream->host = ::strdup(host);
    stream->port = ::strdup(port);
    stream->socket = -1;
    stream->context = t_scope ? t_scope->context : nullptr;
    *out = &stream->parent;
    return 0;
}

} // namespace

void GitTransportStream::install()
{
    git_stream_registration registration{};
    registration.version = GIT_STREAM_VERSION;
    registration.init = &newStream;
    git_stream_register(GIT_STREAM_STANDARD, &registration);
}

GitTransportStream::Scope::Scope(const ToolCallContext& context, const QString& host, int port, int defaultPort)
    : m_state(new State)
    , m_previous(t_scope)
{
    m_state->context = &context;
    if (!host.isEmpty()) {
        m_state->host = lowered(host.toStdString());
        m_state->port = std::to_string(port >= 0 ? port : defaultPort);
    }
    t_scope = m_state;
}

const ToolCallContext* GitTransportStream::Scope::current()
{
    return t_scope ? t_scope->context : nullptr;
}

QString GitTransportStream::Scope::refusedEndpoint() const
{
    return QString::fromStdString(m_state->refused);
}

GitTransportStream::Scope::~Scope()
{
    t_scope = m_previous;
    delete m_state;
}

int GitTransportStream::defaultPort(const QString& scheme)
{
    if (scheme == QLatin1String("https"))
        return 443;
    if (scheme == QLatin1String("http"))
        return 80;
    if (scheme == QLatin1String("ssh"))
        return 22;
    if (scheme == QLatin1String("git"))
        return 9418;
    return -1;
}
