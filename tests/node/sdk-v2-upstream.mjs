// The official SDK v2 server (@modelcontextprotocol/server 2.4.0, createMcpHandler) as an upstream
// for Switchboard's adapters, in one of three configurations:
//
//   node sdk-v2-upstream.mjs [--port N] [--era modern|legacy|both] [--tools-ttl MS]
//                                                          prints "listening PORT" when ready
//
//   modern   2026-07-28 only (createMcpHandler with legacy: 'reject'): no initialize, no session
//   legacy   2025 only (the SDK's legacyStatelessFallback alone): initialize, no 2026 at all
//   both     the SDK's default: 2026-07-28 and stateless 2025 beside it
//
// --tools-ttl gives tools/list results that ttlMs (the SDK's cacheHints; 0 by default).
// One McpServer per request from one factory, as the SDK serves. Its tools:
//   echo {text}                 the text back (readOnlyHint)
//   regional {region, priority, verbose?, note?}   x-mcp-header on region (Region), priority (Priority)
//                               and verbose (Verbose): the SDK refuses a 2026 call whose Mcp-Param-*
//                               headers do not mirror them (-32020); answers the headers it saw
//   confirm {action}            asks the client's user through input_required (elicitation/create),
//                               then answers what the user said; on 2025 the SDK's shim sends the
//                               same question as an elicitation/create request
//   slow_task {ms}              for a 2026 request that declares io.modelcontextprotocol/tasks, a task
//                               (resultType "task", pollIntervalMs 50) that completes after `ms`;
//                               tasks/get and tasks/cancel serve it. Without the extension (or on
//                               2025) it sleeps `ms` and answers
// GET /stats: requests per method, the last request's headers per method, the tasks/cancel ids and
// the tasks/get count per task. Tasks live in this process (the SDK makes a server per request). POST /control {"mode": "add-tool"} adds a tool and tells open
// subscriptions/listen streams (toolsListChanged); {"mode": "reset"} forgets the stats.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import {
    McpServer, createMcpHandler, legacyStatelessFallback, fromJsonSchema, inputRequired, acceptedContent,
} from '@modelcontextprotocol/server';

const args = process.argv.slice(2);
const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : fallback;
};
const port = Number(option('--port', 0));
const era = option('--era', 'both');
const toolsTtl = Number(option('--tools-ttl', 0));
const TASKS = 'io.modelcontextprotocol/tasks';

let stats;
const resetStats = () => { stats = { methods: {}, headers: {}, cancelled: [], polls: {} }; };
resetStats();
const tasks = new Map(); // taskId -> { task, timer }
let extraTools = 0;

const text = t => ({ content: [{ type: 'text', text: t }] });
const now = () => new Date().toISOString();

// A plain JSON Schema as the SDK takes one (standard schema), so the x-mcp-header annotations
// reach tools/list as written.
const schema = json => fromJsonSchema(json);
const anyParams = { '~standard': { version: 1, vendor: 'switchboard-tests', validate: value => ({ value }) } };

function factory(context) {
    const headers = context.requestInfo?.headers;
    const server = new McpServer({ name: 'sdk-v2-upstream', version: '2.4.0' },
                                 { capabilities: { tools: { listChanged: true }, extensions: { [TASKS]: {} } },
                                   instructions: `SDK v2 upstream (${era})`,
                                   ...(toolsTtl > 0 ? { cacheHints: { 'tools/list': { ttlMs: toolsTtl } } } : {}) });
    server.registerTool('echo', {
        description: 'Returns its text', annotations: { readOnlyHint: true },
        inputSchema: schema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
    }, async ({ text: t }) => text(String(t)));
    server.registerTool('regional', {
        description: 'Answers the Mcp-Param-* headers it was sent',
        inputSchema: schema({ type: 'object', properties: {
            region: { type: 'string', 'x-mcp-header': 'Region' },
            priority: { type: 'integer', 'x-mcp-header': 'Priority' },
            verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
            note: { type: 'string' },
        }, required: ['region', 'priority'] }),
    }, async () => {
        const seen = {};
        for (const [name, value] of headers ?? []) {
            if (name.startsWith('mcp-param-')) seen[name] = value;
        }
        return { ...text(JSON.stringify(seen)), structuredContent: seen };
    });
    server.registerTool('confirm', {
        description: "Asks the client's user to confirm an action",
        inputSchema: schema({ type: 'object', properties: { action: { type: 'string' } }, required: ['action'] }),
    }, async ({ action }, ctx) => {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
        if (answer === undefined) {
            const declined = ctx.mcpReq.inputResponses?.confirm;
            if (declined !== undefined) return text(`not confirmed: ${JSON.stringify(declined)}`);
            return inputRequired({ inputRequests: { confirm: inputRequired.elicit({
                message: `Do you want to ${action}?`,
                requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } }, required: ['confirmed'] },
            }) }, requestState: `state-for-${action}` });
        }
        return text(`confirmed ${action}: ${JSON.stringify(answer)} (state ${ctx.mcpReq.requestState() ?? 'none'})`);
    });
    server.registerTool('slow_task', {
        description: 'A task (with the Tasks extension) that completes after ms',
        inputSchema: schema({ type: 'object', properties: { ms: { type: 'integer' } } }),
    }, async ({ ms = 200 }, ctx) => {
        // The SDK lifts the envelope out of _meta into ctx.mcpReq.envelope, keys as on the wire.
        const capabilities = ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities'];
        const declared = capabilities?.extensions?.[TASKS] !== undefined;
        if (!declared) {
            await new Promise(resolve => setTimeout(resolve, ms));
            return text('slept without a task');
        }
        const taskId = randomUUID();
        const created = now();
        const entry = { task: { taskId, status: 'working', statusMessage: 'sleeping', createdAt: created,
                                lastUpdatedAt: created, ttlMs: 60000, pollIntervalMs: 50 } };
        entry.timer = setTimeout(() => {
            entry.task = { ...entry.task, status: 'completed', statusMessage: 'done', lastUpdatedAt: now(),
                           result: { ...text(`task done after ${ms} ms`), resultType: 'complete' } };
        }, ms);
        tasks.set(taskId, entry);
        return { resultType: 'task', ...entry.task };
    });
    for (let i = 1; i <= extraTools; i++) {
        server.registerTool(`added_${i}`, { description: 'Added by /control add-tool',
            inputSchema: schema({ type: 'object' }) }, async () => text(`added ${i}`));
    }
    server.server.setRequestHandler('tasks/get', { params: anyParams }, async params => {
        const entry = tasks.get(params.taskId);
        stats.polls[params.taskId] = (stats.polls[params.taskId] ?? 0) + 1;
        if (!entry) {
            const error = new Error(`Failed to retrieve task: unknown task ${params.taskId}`);
            error.code = -32602;
            throw error;
        }
        return { resultType: 'complete', ...entry.task };
    });
    server.server.setRequestHandler('tasks/cancel', { params: anyParams }, async params => {
        stats.cancelled.push(params.taskId);
        const entry = tasks.get(params.taskId);
        if (entry && !['completed', 'failed', 'cancelled'].includes(entry.task.status)) {
            clearTimeout(entry.timer);
            entry.task = { ...entry.task, status: 'cancelled', statusMessage: 'cancelled by the client',
                           lastUpdatedAt: now() };
        }
        return { resultType: 'complete' };
    });
    return server;
}

const modern = createMcpHandler(factory, { legacy: era === 'modern' ? 'reject' : 'stateless', keepAliveMs: 1000 });
const legacy = legacyStatelessFallback(factory);
const handle = era === 'legacy' ? legacy : modern.fetch;

function sendJson(res, status, body) {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
}

const server = http.createServer(async (req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    if (path === '/stats' && req.method === 'GET') return sendJson(res, 200, stats);
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    if (path === '/control' && req.method === 'POST') {
        const control = JSON.parse(body.toString('utf8') || '{}');
        if (control.mode === 'reset') resetStats();
        if (control.mode === 'add-tool') {
            extraTools++;
            modern.notify.toolsChanged();
        }
        return sendJson(res, 200, { ok: true, extraTools });
    }
    if (path !== '/mcp') {
        res.writeHead(404);
        return res.end();
    }
    let method = req.method;
    if (req.method === 'POST') {
        try {
            method = JSON.parse(body.toString('utf8')).method ?? 'response';
        } catch {
            method = 'unparsable';
        }
    }
    stats.methods[method] = (stats.methods[method] ?? 0) + 1;
    stats.headers[method] = req.headers;
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const request = new Request(`http://127.0.0.1:${server.address().port}${req.url}`, {
        method: req.method, headers: req.headers, signal: abort.signal,
        body: ['GET', 'HEAD', 'DELETE'].includes(req.method) ? undefined : body,
    });
    try {
        const response = await handle(request);
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (response.body) {
            for await (const chunk of response.body) {
                if (res.destroyed) break;
                res.write(chunk);
            }
        }
        res.end();
    } catch (error) {
        if (!res.headersSent) sendJson(res, 500, { error: String(error) });
        else res.destroy();
    }
});
server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
