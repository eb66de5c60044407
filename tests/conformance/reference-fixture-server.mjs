// The official SDK v2 server (@modelcontextprotocol/server 2.4.0, createMcpHandler, its defaults)
// carrying the conformance suite's fixtures, so that the suite's server scenarios can be run against
// the reference beside Switchboard with server-fixtures.yaml (docs/protocol/conformance-2026-server.md).
// Not run by CI. It imports the SDK, so run it from a folder whose node_modules is tests/node's:
//
//   mkdir /tmp/ref && cp reference-fixture-server.mjs /tmp/ref && ln -s $PWD/../node/node_modules /tmp/ref/
//   node /tmp/ref/reference-fixture-server.mjs [port]        prints "listening PORT"
//
// Tools, as the suite names them: test_simple_text, test_image_content, test_audio_content,
// test_embedded_resource, test_multiple_content_types, test_error_handling, test_tool_with_progress,
// test_tool_with_logging, json_schema_2020_12_tool, header_echo (x-mcp-header Region), greet; the
// input_required ones test_input_required_result_{elicitation, request_state, tampered_state,
// multi_round, sampling, list_roots, multiple_inputs, capabilities} and test_streaming_elicitation
// (requestState sealed by the SDK's createRequestStateCodec); the diagnostic tools of server-stateless
// (test_trigger_tool_change, test_trigger_prompt_change, test_logging_tool, test_missing_capability).
// Resources test://static-text, test://static-binary, test://template/{id}/data; the prompts
// test_simple_prompt, test_prompt_with_arguments, test_prompt_with_embedded_resource,
// test_prompt_with_image, test_input_required_result_prompt; completion/complete. No Tasks extension:
// the SDK's server has no task store of its own.
import http from 'node:http';
import * as z from 'zod/v4';
import {
    McpServer, ResourceTemplate, createMcpHandler, fromJsonSchema, inputRequired, acceptedContent, createRequestStateCodec,
    MissingRequiredClientCapabilityError,
} from '@modelcontextprotocol/server';
import { randomBytes } from 'node:crypto';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const text = t => ({ content: [{ type: 'text', text: t }] });
const schema = json => fromJsonSchema(json);
const empty = schema({ type: 'object' });
// requestState signed by the SDK's own codec (HMAC-SHA256), verified before a handler runs.
const codec = createRequestStateCodec({ key: randomBytes(32) });
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const elicit = (message, properties) => inputRequired.elicit({
    message, requestedSchema: { type: 'object', properties, required: Object.keys(properties) },
});

function factory() {
    const server = new McpServer({ name: 'reference-fixtures', version: '2.4.0' }, {
        capabilities: { tools: { listChanged: true }, resources: {}, prompts: {}, completions: {}, logging: {} },
        requestState: { verify: codec.verify },
    });
    const tool = (name, handler, inputSchema = empty) =>
        server.registerTool(name, { description: name, inputSchema }, handler);
    tool('test_simple_text', async () => text('This is a simple text response for testing.'));
    tool('test_image_content', async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }));
    tool('test_audio_content', async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }));
    tool('test_embedded_resource', async () => ({ content: [{ type: 'resource', resource: {
        uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] }));
    tool('test_multiple_content_types', async () => ({ content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json',
                                        text: JSON.stringify({ test: 'data', value: 123 }) } }] }));
    tool('test_error_handling', async () => { throw new Error('This tool intentionally returns an error for testing'); });
    tool('test_tool_with_progress', async (_args, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken ?? 0;
        for (const progress of [0, 50, 100]) {
            await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
            await sleep(50);
        }
        return text(String(progressToken));
    });
    tool('test_tool_with_logging', async (_args, ctx) => {
        for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
            await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data } });
            await sleep(50);
        }
        return text('Tool with logging executed successfully');
    });
    tool('json_schema_2020_12_tool', async args => text(JSON.stringify(args)), schema({
        $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object',
        $defs: { address: { $anchor: 'addressDef', type: 'object',
                            properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' },
                      contactMethod: { type: 'string', enum: ['phone', 'email'] }, phone: { type: 'string' },
                      email: { type: 'string' } },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] }, else: { required: ['email'] }, additionalProperties: false,
    }));
    tool('header_echo', async args => text(JSON.stringify(args)), schema({ type: 'object', properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' }, note: { type: 'string' } } }));
    tool('greet', async ({ name }) => text(`Hello, ${name}!`), schema({ type: 'object', properties: { name: { type: 'string' } } }));
    // input_required: one question, answered on the retry.
    const asking = (name, key, message, properties, done) => tool(name, async (_args, ctx) => {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, key);
        if (answer === undefined)
            return inputRequired({ inputRequests: { [key]: elicit(message, properties) }, requestState: await codec.mint({ round: 1 }) });
        return text(done(answer));
    });
    asking('test_input_required_result_elicitation', 'user_name', 'What is your name?', { name: { type: 'string' } },
           a => `Hello, ${a.name}!`);
    asking('test_input_required_result_request_state', 'confirm', 'Please confirm', { ok: { type: 'boolean' } },
           () => 'state-ok');
    asking('test_input_required_result_tampered_state', 'confirm', 'Please confirm', { ok: { type: 'boolean' } },
           () => 'state-ok');
    asking('test_streaming_elicitation', 'confirm', 'Please confirm', { ok: { type: 'boolean' } }, () => 'ok');
    tool('test_input_required_result_multi_round', async (_args, ctx) => {
        const color = acceptedContent(ctx.mcpReq.inputResponses, 'step2');
        if (color !== undefined) return text(`color ${color.color}`);
        if (acceptedContent(ctx.mcpReq.inputResponses, 'step1') !== undefined)
            return inputRequired({ inputRequests: { step2: elicit('Step 2: What is your favorite color?', { color: { type: 'string' } }) },
                                   requestState: await codec.mint({ round: 2 }) });
        return inputRequired({ inputRequests: { step1: elicit('Step 1: What is your name?', { name: { type: 'string' } }) },
                               requestState: await codec.mint({ round: 1 }) });
    });
    // Sampling and roots asked the same way, one kind or all three at once; only what the client declared.
    const answered = (ctx, key) => ctx.mcpReq.inputResponses?.[key] !== undefined;
    const sample = text => inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 100 });
    tool('test_input_required_result_sampling', async (_args, ctx) => answered(ctx, 'capital_question') ? text('sampled')
        : inputRequired({ inputRequests: { capital_question: sample('What is the capital of France?') } }));
    tool('test_input_required_result_list_roots', async (_args, ctx) => answered(ctx, 'client_roots')
        ? text(JSON.stringify(ctx.mcpReq.inputResponses.client_roots)) : inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } }));
    tool('test_input_required_result_multiple_inputs', async (_args, ctx) => ['user_name', 'greeting', 'client_roots'].every(k => answered(ctx, k))
        ? text('all three answered')
        : inputRequired({ inputRequests: { user_name: elicit('What is your name?', { name: { type: 'string' } }),
                                           greeting: sample('Generate a greeting'), client_roots: inputRequired.listRoots() },
                          requestState: await codec.mint({ round: 1 }) }));
    tool('test_input_required_result_capabilities', async (_args, ctx) => {
        const declared = ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities'] ?? {};
        if (answered(ctx, 'ask')) return text('answered');
        return inputRequired({ inputRequests: { ask: declared.elicitation ? elicit('Name?', { name: { type: 'string' } }) : sample('Name?') } });
    });
    // Resources and prompts, as the suite's scenarios name them.
    server.registerResource('static-text', 'test://static-text', { mimeType: 'text/plain' }, async () => ({
        contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }));
    server.registerResource('static-binary', 'test://static-binary', { mimeType: 'image/png' }, async () => ({
        contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }] }));
    server.registerResource('template', new ResourceTemplate('test://template/{id}/data', { list: undefined }),
        { mimeType: 'application/json' }, async (uri, { id }) => ({ contents: [{ uri: uri.toString(), mimeType: 'application/json',
            text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] }));
    server.registerPrompt('test_simple_prompt', { description: 'A simple prompt' }, async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }));
    server.registerPrompt('test_prompt_with_arguments', { description: 'A prompt with arguments',
        argsSchema: z.object({ arg1: z.string(), arg2: z.string() }) }, async ({ arg1, arg2 }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }));
    server.registerPrompt('test_prompt_with_embedded_resource', { description: 'A prompt with a resource',
        argsSchema: z.object({ resourceUri: z.string() }) }, async ({ resourceUri }) => ({
        messages: [{ role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain',
                                                                             text: 'Embedded resource content for testing.' } } },
                   { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } }] }));
    server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, async () => ({
        messages: [{ role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
                   { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } }] }));
    server.registerPrompt('test_input_required_result_prompt', { description: 'A prompt that asks first' }, async ctx =>
        answered(ctx, 'user_context')
            ? { messages: [{ role: 'user', content: { type: 'text', text: `context: ${JSON.stringify(ctx.mcpReq.inputResponses.user_context)}` } }] }
            : inputRequired({ inputRequests: { user_context: elicit('What context should the prompt use?', { context: { type: 'string' } }) } }));
    // The suite's diagnostic hook for list-changed on subscriptions/listen.
    // The suite's diagnostic hooks of server-stateless.
    tool('test_trigger_tool_change', async () => { handler.notify.toolsChanged(); return text('tools changed'); });
    tool('test_trigger_prompt_change', async () => { handler.notify.promptsChanged(); return text('prompts changed'); });
    tool('test_logging_tool', async (_args, ctx) => {
        await ctx.mcpReq.log('info', 'logged');
        return text('logged');
    });
    // The SDK's own error class for -32021; SDK 2.4.0 turns it, like any error a tool handler throws, into
    // an isError result, so the reference fails sep-2575-server-rejects-undeclared-capability.
    tool('test_missing_capability', async (_args, ctx) => {
        const declared = ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities'] ?? {};
        if (!declared.sampling) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } });
        return text('sampling declared');
    });
    server.server.setRequestHandler('completion/complete', async () => ({ completion: { values: [], total: 0, hasMore: false } }));
    return server;
}

const handler = createMcpHandler(factory);
const port = Number(process.argv[2] || 0);
const httpServer = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const request = new Request(`http://127.0.0.1:${httpServer.address().port}${req.url}`, {
        method: req.method, headers: req.headers, signal: abort.signal,
        body: ['GET', 'HEAD', 'DELETE'].includes(req.method) ? undefined : Buffer.concat(chunks),
    });
    const response = await (handler.fetch ?? handler)(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) { if (res.destroyed) break; res.write(chunk); }
    res.end();
});
httpServer.listen(port, '127.0.0.1', () => console.log('listening', httpServer.address().port));
