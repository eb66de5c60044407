// A small MCP upstream speaking Streamable HTTP, with faults switched on by the tests. Plain Node
// http, no SDK: the point is to misbehave on purpose in ways a real server rarely does.
//
//   node fault-upstream.mjs [--port N] [--page-size N]      prints "listening PORT" when ready
//
// MCP endpoint: /mcp (POST, GET, DELETE). A GET whose Last-Event-ID names a POST stream resumes it
// (sse-drop); any other GET for a known session opens a listening stream, held open, on which
// the actions below push (its events have ids `listen-N-M`; a reopening may name one).
// POST /control {"mode": M, ...} switches what later requests get:
//   ok            normal service (also clears "sse")
//   reset         ok, and stats, tool list and sessions as at start
//   http500 | http401   that status on every /mcp request
//   delay         wait `ms` before answering
//   drop          destroy the socket without answering
//   malformed     200 application/json whose body is not JSON
//   expire-session   forget all sessions now (the next request with an id gets 404, or what
//                 {"unknownSession": ...} chose); then ok
//   {"unknownSession": 400 | 404 | "rpc-error"} alongside any mode (kept until reset) chooses how a
//                 request naming a session this server does not know is answered: 404 (the
//                 default), 400 with "Bad Request: No valid session ID provided" as the reference
//                 server answers after a restart, or HTTP 200 with a JSON-RPC error "Session not found"
//   sse-drop      tools/call: an event with an id and `retry: 50`, then the stream drops; a GET with
//                 Last-Event-ID delivers the result (with "resumable": false it gets 405)
//   list-changed  a tool is added; the next tools/call answers over SSE with
//                 notifications/tools/list_changed before its result; then ok
//   expire-always   tools/call answers 404 as if the session were unknown (other methods work)
//   sse-odd       tools/call answers over SSE written a few bytes at a time with CRLF and lone CR
//                 line ends, comments, `data:` without a space, a message split over two data
//                 lines and an event of another type, then the result "odd ok"
//   listen-405    listening GETs get 405 (the server offers no stream); requests as ok
//   deep          tools/call answers a result whose structuredContent nests `depth` arrays (default
//                 200000), written as text (JSON.stringify would recurse as deep)
// and {"sse": true} alongside any mode answers every request over SSE instead of JSON;
// {"listChanged": false} leaves tools.listChanged out of the capabilities initialize offers.
// Actions (the mode stays as it is):
//   push-list-changed   {"tool": NAME} or {"tools": [NAMES]} adds those tools first (optional); then
//                       every open listening stream gets notifications/tools/list_changed.
//                       {"count": N} sends it N times (a flood). Answers {"pushed": streams}
//   listen-drop   every open listening stream gets an event with an id and `retry: 100`, then is
//                 destroyed. Answers {"lastIds": [the ids]}, also kept in stats.listenDropIds
//   listen-ask    {"method": M}: every open listening stream gets an event that is not JSON, then
//                 the request M; the client's answers go to stats.listenAnswers
// GET /stats: requests per method, per Authorization value, the last headers, cancellations seen,
// Last-Event-ID values seen, answers the client gave to elicitation and sampling, listening
// streams opened since the reset (listeningOpened) and open now (listeningOpen).
import http from 'node:http';
import { randomUUID } from 'node:crypto';

const args = process.argv.slice(2);
const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
};
const port = option('--port', 0);
const pageSize = option('--page-size', 2);

const baseTools = [
    { name: 'echo', description: 'Returns its text', annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    { name: 'write_note', description: 'Pretends to write (no annotations: a write)',
      inputSchema: { type: 'object', properties: { note: { type: 'string' } } } },
    { name: 'slow', description: 'Answers after `ms` milliseconds',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
    { name: 'progress', description: 'Sends `count` progress notifications, then the result',
      inputSchema: { type: 'object', properties: { count: { type: 'number' } } } },
    { name: 'ask', description: 'Asks the client (elicitation/create) and returns the answer',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } } },
    { name: 'fail_tool', description: 'Always a tool error (isError)', inputSchema: { type: 'object' } },
    { name: 'sample', description: 'Asks the client for a completion (sampling/createMessage)',
      inputSchema: { type: 'object' } },
];

let tools = [...baseTools];
let mode = { mode: 'ok' };
let unknownSession = 404;
let sessions = new Set();
let stats;
const pending = new Map(); // our request id to the client -> resolve(answer message)
const resumable = new Map(); // stream id -> the message a resumption delivers
const listeners = new Set(); // open listening streams: { write(message), drop(), res }
let nextServerRequest = 1;
let nextStream = 1;

function resetStats() {
    stats = { methods: {}, authorization: {}, lastHeaders: {}, cancelled: [], lastEventIds: [],
              sessionsIssued: [], elicitationAnswers: [], samplingAnswers: [], connections: 0,
              listeningOpened: 0, listenAnswers: [], listenDropIds: [] };
}
resetStats();

const count = (map, key) => { map[key] = (map[key] ?? 0) + 1; };
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError } : {}) });
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

function readBody(req) {
    return new Promise(resolve => {
        const chunks = [];
        req.on('data', c => chunks.push(c));
        req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
}

function sendJson(res, status, message, headers = {}) {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(message));
}

// A request naming a session this server does not know (or none), answered as unknownSession says.
function refuseSession(res, id) {
    if (unknownSession === 400)
        return sendJson(res, 400, { jsonrpc: '2.0', id: id ?? null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } });
    if (unknownSession === 'rpc-error' && id !== undefined)
        return sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32001, message: 'Session not found' } });
    return sendJson(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
}

// An SSE response: write(message) sends one event; end() finishes.
function openStream(res, headers = {}) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...headers });
    return {
        write: (message, id) => res.write(`${id ? `id: ${id}\n` : ''}event: message\ndata: ${JSON.stringify(message)}\n\n`),
        // As servers do, the stream ends a moment after its last event (a separate write), so a
        // client that cuts the stream as soon as it has the response loses the connection.
        end: () => setTimeout(() => res.end(), 5),
    };
}

// Sends a request to the client on the stream and waits for its answer POST.
function askClient(stream, method, params) {
    const id = `server-${nextServerRequest++}`;
    return new Promise(resolve => {
        pending.set(id, resolve);
        stream.write({ jsonrpc: '2.0', id, method, params });
    });
}

// A listening stream (GET): primed with an id, then held open until the client goes or an action
// drops it.
function listen(req, res, sessionId) {
    if (mode.mode === 'listen-405') {
        res.writeHead(405, { Allow: 'POST, DELETE' });
        return res.end();
    }
    if (!sessionId) return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No session id' } });
    if (!sessions.has(sessionId)) return refuseSession(res, undefined);
    stats.listeningOpened++;
    const streamId = `listen-${nextStream++}`;
    let next = 0;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.write(`id: ${streamId}-${next++}\ndata: \n\n`);
    const listener = {
        res,
        write: message => res.write(`id: ${streamId}-${next++}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`),
        drop: () => {
            const id = `${streamId}-${next++}`;
            res.write(`id: ${id}\nretry: 100\ndata: \n\n`);
            setTimeout(() => res.socket?.destroy(), 20);
            return id;
        },
    };
    listeners.add(listener);
    res.on('close', () => listeners.delete(listener));
}

async function callTool(message, res, headers) {
    const { name, arguments: args = {}, _meta } = message.params ?? {};
    const reply = result => ({ jsonrpc: '2.0', id: message.id, result });
    const wantsSse = mode.sse || ['progress', 'ask', 'sample'].includes(name)
        || ['list-changed', 'sse-drop', 'sse-odd'].includes(mode.mode);
    const stream = wantsSse ? openStream(res, headers) : null;
    const answer = m => (stream ? (stream.write(m), stream.end()) : sendJson(res, 200, m, headers));

    if (mode.mode === 'sse-drop') {
        const streamId = `stream-${nextStream++}`;
        if (mode.resumable !== false) resumable.set(streamId, reply(text(`resumed: ${args.text ?? name}`)));
        res.write(`id: ${streamId}-1\nretry: 50\ndata: \n\n`);
        setTimeout(() => res.socket?.destroy(), 20);
        return;
    }
    if (mode.mode === 'sse-odd') {
        const note = '{"jsonrpc":"2.0",\r\ndata: "method":"notifications/message","params":{"level":"info","data":"odd"}}';
        const result = JSON.stringify(reply(text('odd ok')));
        const raw = `: a comment\r\nretry: 100\r\nevent: message\r\ndata: ${note}\r\n\r\n`
            + 'event: other\ndata: not json at all\n\n:another comment\r'
            + `data:${result}\r\r`;
        for (let i = 0; i < raw.length; i += 3) {
            res.write(raw.slice(i, i + 3));
            await sleep(1);
        }
        return res.end();
    }
    if (mode.mode === 'list-changed') {
        mode = { mode: 'ok', sse: mode.sse };
        stream.write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    }
    switch (name) {
    case 'echo':
        return answer(reply(text(String(args.text ?? ''))));
    case 'write_note':
        return answer(reply(text('noted')));
    case 'fail_tool':
        return answer(reply(text('this tool always fails', true)));
    case 'slow': {
        let gone = false;
        res.on('close', () => { gone = true; });
        await sleep(Number(args.ms ?? 1000));
        if (!gone) answer(reply(text('slept')));
        return;
    }
    case 'progress': {
        const total = Number(args.count ?? 3);
        for (let i = 1; i <= total; i++) {
            if (_meta?.progressToken !== undefined) {
                stream.write({ jsonrpc: '2.0', method: 'notifications/progress',
                               params: { progressToken: _meta.progressToken, progress: i, total, message: `step ${i}` } });
            }
            stream.write({ jsonrpc: '2.0', method: 'notifications/message',
                           params: { level: 'info', data: `step ${i}` } });
            await sleep(10);
        }
        return answer(reply(text(`done ${total}`)));
    }
    case 'ask': {
        const got = await askClient(stream, 'elicitation/create', {
            mode: 'form', message: String(args.message ?? 'Your name?'),
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
        stats.elicitationAnswers.push(got);
        return answer(reply(got.error ? text(`elicitation failed: ${got.error.message}`, true)
                                      : text(JSON.stringify(got.result))));
    }
    case 'sample': {
        const got = await askClient(stream, 'sampling/createMessage', {
            messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 });
        stats.samplingAnswers.push(got);
        return answer(reply(got.error ? text(`sampling refused: ${got.error.code} ${got.error.message}`, true)
                                      : text(JSON.stringify(got.result))));
    }
    default:
        return answer({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `Unknown tool: ${name}` } });
    }
}

async function handleMcp(req, res) {
    stats.lastHeaders = req.headers;
    count(stats.authorization, req.headers.authorization ?? '(none)');
    const sessionId = req.headers['mcp-session-id'];

    if (req.method === 'GET') {
        count(stats.methods, 'GET');
        const lastEventId = req.headers['last-event-id'];
        if (lastEventId) stats.lastEventIds.push(lastEventId);
        const streamId = lastEventId?.replace(/-\d+$/, '');
        if (streamId && resumable.has(streamId)) {
            const message = resumable.get(streamId);
            resumable.delete(streamId);
            const stream = openStream(res);
            stream.write(message, `${streamId}-2`);
            return stream.end();
        }
        if (lastEventId && !lastEventId.startsWith('listen-')) { // a POST stream kept for nobody
            res.writeHead(405, { Allow: 'POST, DELETE' });
            return res.end();
        }
        return listen(req, res, sessionId);
    }
    if (req.method === 'DELETE') {
        count(stats.methods, 'DELETE');
        sessions.delete(sessionId);
        res.writeHead(sessions.has(sessionId) ? 404 : 200);
        return res.end();
    }
    if (req.method !== 'POST') {
        res.writeHead(405);
        return res.end();
    }

    let message;
    try {
        message = JSON.parse(await readBody(req));
    } catch {
        return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    count(stats.methods, message.method ?? 'response');

    if (mode.mode === 'delay') await sleep(Number(mode.ms ?? 1000));
    if (mode.mode === 'drop') return req.socket.destroy();
    if (mode.mode === 'http500') return sendJson(res, 500, { error: 'injected' });
    if (mode.mode === 'http401') return sendJson(res, 401, { error: 'injected' });
    if (mode.mode === 'malformed') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end('this is { not json');
    }

    if (message.method === undefined) { // the client's answer to one of our requests
        pending.get(message.id)?.(message);
        pending.delete(message.id);
        res.writeHead(202);
        return res.end();
    }
    if (message.method === 'initialize') {
        const id = randomUUID();
        sessions.add(id);
        stats.sessionsIssued.push(id);
        const asked = message.params?.protocolVersion;
        const version = ['2025-03-26', '2025-06-18', '2025-11-25'].includes(asked) ? asked : '2025-11-25';
        const result = { protocolVersion: version, capabilities: { tools: { listChanged: mode.listChanged !== false } },
                         serverInfo: { name: 'fault-upstream', version: '1.0.0' } };
        const headers = { 'Mcp-Session-Id': id };
        if (mode.sse) {
            const stream = openStream(res, headers);
            stream.write({ jsonrpc: '2.0', id: message.id, result });
            return stream.end();
        }
        return sendJson(res, 200, { jsonrpc: '2.0', id: message.id, result }, headers);
    }
    if (!sessionId) return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No session id' } });
    if (!sessions.has(sessionId)) {
        count(stats.methods, 'refused: unknown session');
        return refuseSession(res, message.id);
    }

    if (message.id === undefined) { // notifications
        if (message.method === 'notifications/cancelled') stats.cancelled.push(message.params);
        res.writeHead(202);
        return res.end();
    }
    if (message.method === 'tools/list') {
        const start = Number(message.params?.cursor ?? 0);
        const page = tools.slice(start, start + pageSize);
        const result = { tools: page, ...(start + pageSize < tools.length ? { nextCursor: String(start + pageSize) } : {}) };
        if (mode.sse) {
            const stream = openStream(res);
            stream.write({ jsonrpc: '2.0', id: message.id, result });
            return stream.end();
        }
        return sendJson(res, 200, { jsonrpc: '2.0', id: message.id, result });
    }
    if (message.method === 'tools/call' && mode.mode === 'expire-always')
        return sendJson(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    if (message.method === 'tools/call' && mode.mode === 'deep') {
        const depth = Number(mode.depth ?? 200000);
        const body = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[],`
            + `"structuredContent":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
        if (!mode.sse) {
            res.writeHead(200, { 'Content-Type': 'application/json' });
            return res.end(body);
        }
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
        res.write(`event: message\ndata: ${body}\n\n`);
        return setTimeout(() => res.end(), 5);
    }
    if (message.method === 'tools/call') return callTool(message, res, {});
    if (message.method === 'ping') return sendJson(res, 200, { jsonrpc: '2.0', id: message.id, result: {} });
    return sendJson(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
}

async function handleControl(req, res) {
    const body = JSON.parse((await readBody(req)) || '{}');
    const next = body.mode ?? 'ok';
    if (body.unknownSession !== undefined) unknownSession = body.unknownSession;
    if (next === 'push-list-changed') {
        for (const name of [...(body.tool ? [body.tool] : []), ...(body.tools ?? [])]) {
            if (!tools.some(t => t.name === name))
                tools.push({ name, description: 'Added by push-list-changed', inputSchema: { type: 'object' } });
        }
        const times = Number(body.count ?? 1);
        for (const listener of listeners) {
            for (let i = 0; i < times; i++) listener.write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        }
        return sendJson(res, 200, { mode, pushed: listeners.size });
    }
    if (next === 'listen-drop') {
        const lastIds = [...listeners].map(listener => listener.drop());
        stats.listenDropIds.push(...lastIds);
        return sendJson(res, 200, { mode, lastIds });
    }
    if (next === 'listen-ask') {
        for (const listener of listeners) {
            listener.res.write('event: message\ndata: this is { not json\n\n');
            askClient(listener, String(body.method ?? 'ping'), body.params ?? {}).then(got => stats.listenAnswers.push(got));
        }
        return sendJson(res, 200, { mode, asked: listeners.size });
    }
    if (next === 'reset') {
        for (const listener of listeners) listener.res.destroy();
        listeners.clear();
        resetStats();
        tools = [...baseTools];
        sessions = new Set();
        mode = { mode: 'ok' };
        unknownSession = 404;
    } else if (next === 'expire-session') {
        sessions = new Set();
        mode = { mode: 'ok', sse: !!body.sse };
    } else {
        if (next === 'list-changed' && !tools.some(t => t.name === 'added_tool'))
            tools.push({ name: 'added_tool', description: 'Added by list-changed', inputSchema: { type: 'object' } });
        mode = { ...body, mode: next, sse: !!body.sse };
    }
    sendJson(res, 200, { mode });
}

const server = http.createServer((req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    const fail = error => { if (!res.headersSent) sendJson(res, 500, { error: String(error) }); };
    if (path === '/control' && req.method === 'POST') return handleControl(req, res).catch(fail);
    if (path === '/stats' && req.method === 'GET') return sendJson(res, 200, { ...stats, listeningOpen: listeners.size });
    if (path === '/mcp') return handleMcp(req, res).catch(fail);
    res.writeHead(404);
    res.end();
});
// TCP connections opened to /mcp since the last reset (a client that reuses its connections opens few).
server.on('connection', () => { stats.connections++; });
server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
