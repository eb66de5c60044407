// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client) answering Switchboard's
// input_required (MCP 2026-07-28 multi round-trip requests) through its own handling, for
// tst_inputrequirede2e: connects to $SWITCHBOARD_URL with $SWITCHBOARD_TOKEN in `auto` mode (it must
// negotiate 2026-07-28) and calls choose_branch, a client tool configured answeredBy: client.
//
// $SWITCHBOARD_SCENARIO:
//   elicit   the client declares elicitation (form) and registers an elicitation/create handler, as
//            the SDK documents (setRequestHandler). Switchboard answers tools/call with
//            input_required; the SDK's own multi round-trip driver (inputRequired.autoFulfill, on by
//            default) hands the embedded elicitation/create to the handler and retries tools/call
//            with inputResponses and the requestState. The handler answers "develop" in the first
//            call and declines in the second; callTool() resolves with the tool's own result.
//   console  the client declares no elicitation: Switchboard asks the console instead and the call
//            is held until tst_inputrequirede2e answers it there (it prints {"event": "calling"}
//            first).
//
// Every POST is recorded with its response (a recording fetch), to check on the wire that the first
// tools/call got input_required and the SDK's retry carried inputResponses and the exact
// requestState under a new JSON-RPC id.
//
// Prints, as JSON lines: {"event": "elicitation", ...} each time the handler runs, {"call": label,
// "result", "exchanges"} when a call settles (exchanges: its tools/call requests and responses, as
// sent and received), and the checks (checks.mjs: "ok"/"FAIL" lines, exit status).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { isDeepStrictEqual } from 'node:util';
import { check, finish } from './checks.mjs';

const url = new URL(process.env.SWITCHBOARD_URL);
const token = process.env.SWITCHBOARD_TOKEN;
const scenario = process.env.SWITCHBOARD_SCENARIO ?? 'elicit';
// Generous: the console scenario waits for the test to answer, on a loaded two-core machine.
const timeoutMs = Number(process.env.SWITCHBOARD_CALL_TIMEOUT_MS ?? 120000);

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

if (scenario !== 'elicit' && scenario !== 'console') {
  console.error(`unknown SWITCHBOARD_SCENARIO ${scenario}`);
  process.exit(2);
}
const watchdog = setTimeout(() => {
  check(false, `${scenario}: finished within ${timeoutMs} ms`);
  finish('', 'sdk v2 input client: ');
}, timeoutMs);

const emit = (line) => console.log(JSON.stringify(line));
const same = (a, b) => isDeepStrictEqual(a, b);

// The JSON-RPC messages of a response body: one JSON document, or the data of SSE events.
function messagesOf(contentType, text) {
  if (contentType.startsWith('application/json')) return text ? [JSON.parse(text)] : [];
  if (!contentType.startsWith('text/event-stream')) return [];
  const messages = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart());
    if (data.length > 0 && data.join('\n').trim() !== '') messages.push(JSON.parse(data.join('\n')));
  }
  return messages;
}

// Every POST the client makes: headers, body, status, and (read off a clone, so the SDK reads the
// original as it would) the JSON-RPC messages that came back.
const sent = [];
async function recordingFetch(input, init = {}) {
  const entry = { headers: Object.fromEntries(new Headers(init.headers)), body: init.body ? String(init.body) : '' };
  sent.push(entry);
  const response = await fetch(input, init);
  entry.status = response.status;
  const contentType = response.headers.get('content-type') ?? '';
  entry.messages = response.clone().text().then((text) => messagesOf(contentType, text), () => []);
  return response;
}

// The tools/call requests sent since `from` (an index into sent), each with the response to it.
async function toolCallsSince(from) {
  const exchanges = [];
  for (const entry of sent.slice(from)) {
    const request = JSON.parse(entry.body || '{}');
    if (request.method !== 'tools/call') continue;
    const response = (await entry.messages).find((m) => m.id === request.id && ('result' in m || 'error' in m));
    exchanges.push({ headers: entry.headers, status: entry.status, request, response });
  }
  return exchanges;
}

const elicit = scenario === 'elicit';
const clientInfo = { name: elicit ? 'sdk-v2-input-client' : 'sdk-v2-input-client-console', version: '2.4.0' };
const transport = new StreamableHTTPClientTransport(url, {
  fetch: recordingFetch,
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client(clientInfo, {
  versionNegotiation: { mode: 'auto' },
  ...(elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
});

// The client's user, as the application's elicitation handler stands in for it: what it answers
// next, and every request it was shown.
let nextAnswer = { action: 'accept', content: { choice: 'develop' } };
const shown = [];
if (elicit) {
  client.setRequestHandler('elicitation/create', async (request, ctx) => {
    shown.push({ request, key: ctx?.mcpReq?.id });
    emit({ event: 'elicitation', key: ctx?.mcpReq?.id, params: request.params });
    return nextAnswer;
  });
}

await client.connect(transport);
const version = client.getNegotiatedProtocolVersion();
check(version === '2026-07-28', `${scenario}: negotiated 2026-07-28`, version);
check(client.getProtocolEra() === 'modern', `${scenario}: the modern era`, client.getProtocolEra());

const question = 'Which branch should the release go to?';
const call = { name: 'choose_branch', arguments: { question } };

// Checks what every tools/call of a call says on the wire: stateless, with the headers and the
// envelope of the revision, its capabilities as declared.
function checkFraming(label, exchanges) {
  check(exchanges.every((e) => e.headers['mcp-session-id'] === undefined), `${label}: no Mcp-Session-Id is sent`);
  check(exchanges.every((e) => e.headers['mcp-protocol-version'] === '2026-07-28' && e.headers['mcp-method'] === 'tools/call'
    && e.headers['mcp-name'] === 'choose_branch' && e.headers.authorization === `Bearer ${token}`),
  `${label}: every tools/call names its version, method and tool in headers and carries the token`,
  exchanges.map((e) => e.headers));
  check(exchanges.every((e) => e.status === 200), `${label}: every tools/call answered 200`, exchanges.map((e) => e.status));
  check(exchanges.every((e) => {
    const meta = e.request.params?._meta ?? {};
    return meta[PROTOCOL_VERSION] === '2026-07-28' && meta[CLIENT_INFO]?.name === clientInfo.name
      && same(meta[CLIENT_CAPABILITIES]?.elicitation, elicit ? { form: {} } : undefined);
  }), `${label}: every tools/call carries the envelope with the declared capabilities`,
  exchanges.map((e) => e.request.params?._meta));
}

// One call answered by the client's user through input_required: the SDK's driver must fulfil it.
async function callAnswered(label, answer, expected) {
  nextAnswer = answer;
  const before = sent.length;
  const shownBefore = shown.length;
  const result = await client.callTool(call, { timeout: timeoutMs }).then((r) => r, (error) => {
    emit({ event: 'error', call: label, error: String(error), code: error?.code, data: error?.data });
    return undefined;
  });
  const exchanges = await toolCallsSince(before);
  emit({ call: label, result, exchanges: exchanges.map((e) => ({ request: e.request, response: e.response })) });

  check(result?.isError !== true && same(result?.structuredContent, expected),
    `${label}: callTool resolves with the tool's own result ${JSON.stringify(expected)}`, result);
  check(exchanges.length === 2, `${label}: two tools/call on the wire (the call and the SDK's retry)`,
    exchanges.map((e) => e.request));
  const [first, retry] = exchanges;
  const asked = first?.response?.result;
  check(asked?.resultType === 'input_required', `${label}: the first tools/call got input_required`, first?.response);
  const elicitation = asked?.inputRequests?.answer;
  check(elicitation?.method === 'elicitation/create' && elicitation.params?.mode === 'form'
    && elicitation.params.message?.includes(question)
    && same(elicitation.params.requestedSchema, {
      type: 'object', properties: { choice: { type: 'string', enum: ['main', 'develop'] } }, required: ['choice'],
    }), `${label}: it asks elicitation/create, a form with the choices`, asked);
  check(typeof asked?.requestState === 'string' && asked.requestState.length > 0, `${label}: with a requestState`, asked);

  const handled = shown.slice(shownBefore);
  check(handled.length === 1 && handled[0].key === 'answer' && handled[0].request.method === 'elicitation/create'
    && same(handled[0].request.params, elicitation?.params),
  `${label}: the SDK handed the embedded request to the elicitation handler once`, handled);

  const params = retry?.request.params ?? {};
  check(retry !== undefined && retry.request.id !== first.request.id, `${label}: the retry has a new JSON-RPC id`,
    exchanges.map((e) => e.request.id));
  check(params.requestState === asked?.requestState, `${label}: the retry echoes the exact requestState`,
    { sent: params.requestState, received: asked?.requestState });
  check(same(params.inputResponses, { answer }), `${label}: the retry carries the handler's answer as inputResponses`,
    params.inputResponses);
  check(params.name === call.name && same(params.arguments, call.arguments), `${label}: the retry repeats the call`, params);
  check(retry?.response?.result?.resultType === 'complete' && same(retry.response.result.structuredContent, expected),
    `${label}: the retry got the complete result`, retry?.response);
  check(first?.request.params?.inputResponses === undefined && first?.request.params?.requestState === undefined,
    `${label}: the first tools/call carries neither`, first?.request.params);
  checkFraming(label, exchanges);
  return asked?.requestState;
}

if (elicit) {
  const firstState = await callAnswered('develop', { action: 'accept', content: { choice: 'develop' } }, { choice: 'develop' });
  const secondState = await callAnswered('decline', { action: 'decline' }, { reason: 'declined' });
  check(firstState !== secondState, 'each call has its own requestState');
  check(!sent.some((r) => r.body.includes('notifications/cancelled')), 'no notifications/cancelled');
} else {
  const before = sent.length;
  emit({ event: 'calling' });
  const result = await client.callTool(call, { timeout: timeoutMs, resetTimeoutOnProgress: true }).then((r) => r, (error) => {
    emit({ event: 'error', call: 'console', error: String(error), code: error?.code, data: error?.data });
    return undefined;
  });
  const exchanges = await toolCallsSince(before);
  emit({ call: 'console', result, exchanges: exchanges.map((e) => ({ request: e.request, response: e.response })) });
  check(result?.isError !== true && same(result?.structuredContent, { choice: 'main' }),
    'console: callTool resolves with the console\'s answer', result);
  check(exchanges.length === 1 && exchanges[0].response?.result?.resultType === 'complete',
    'console: one tools/call, answered with its result (no input_required)', exchanges.map((e) => e.response));
  checkFraming('console', exchanges);
}

await client.close();
clearTimeout(watchdog);
finish(`sdk v2 input client (${scenario}): all checks passed`, `sdk v2 input client (${scenario}): `);
