// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client) with the Tasks extension's
// requester side (@modelcontextprotocol/ext-tasks), for tst_taske2e: connects to $SWITCHBOARD_URL
// with $SWITCHBOARD_TOKEN in `auto` mode (it must negotiate 2026-07-28), opens an ext-tasks session
// on that client, and makes the call of $SWITCHBOARD_SCENARIO through it:
//   approve  echo {message: $SWITCHBOARD_MESSAGE}: its policy is "ask", so Switchboard answers with a
//            task; the session polls tasks/get until the console's answer completes it
//   plain    debug.progress {steps: 1, interval_ms: 0}: needs no person, answered at once
//   slow     debug.block {seconds: 2}: needs no person but runs past a second, so it becomes a task
//   connect  request_connection {provider: github, kind: api_key}: a task until the console answers
//   cancel   echo {message: $SWITCHBOARD_MESSAGE}: a task, cancelled through ext-tasks (tasks/cancel)
//            after its first poll; then tasks/get until the server says cancelled
//
// ext-tasks drives a 2026-07-28 Tasks server only through a raw request path of the host's
// (rawDispatch), because the SDK client's own request() rejects a result with resultType "task"
// and strips resultType from tasks/get; plus the per-request _meta framing (v2RequestFraming) the
// SDK client sends but does not expose. rawDispatch here is a request channel on the client's own
// StreamableHTTPClientTransport: it sends with transport.send (which sets MCP-Protocol-Version,
// Mcp-Method and Mcp-Name from the body, and the Authorization header), under request ids of its
// own, and takes their responses off the transport before the SDK client sees them. The framing is
// the envelope the SDK client sent in its server/discover probe, read off the wire.
//
// Prints, as JSON lines: {"event": "tools/call" | "tasks/get" | "tasks/cancel", ...} as each
// response arrives (what tst_taske2e waits for before it answers), {"tool", "kind", "outcome",
// "result"?} when the call settles, and the checks (checks.mjs: "ok"/"FAIL" lines, exit status).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { check, finish } from './checks.mjs';

const url = new URL(process.env.SWITCHBOARD_URL);
const token = process.env.SWITCHBOARD_TOKEN;
const scenario = process.env.SWITCHBOARD_SCENARIO ?? 'approve';
const message = process.env.SWITCHBOARD_MESSAGE ?? 'hi from a task';
// Generous: the test answers as a person would, on a loaded two-core machine.
const timeoutMs = Number(process.env.SWITCHBOARD_CALL_TIMEOUT_MS ?? 120000);

const TASKS = 'io.modelcontextprotocol/tasks';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

const calls = {
  approve: { name: 'echo', arguments: { message } },
  plain: { name: 'debug.progress', arguments: { steps: 1, interval_ms: 0 } },
  slow: { name: 'debug.block', arguments: { seconds: 2 } },
  connect: { name: 'request_connection', arguments: { provider: 'github', kind: 'api_key', reason: 'File the release issues' } },
  cancel: { name: 'echo', arguments: { message } },
};
const call = calls[scenario];
if (!call) {
  console.error(`unknown SWITCHBOARD_SCENARIO ${scenario}`);
  process.exit(2);
}
const watchdog = setTimeout(() => {
  check(false, `${scenario}: finished within ${timeoutMs} ms`);
  finish('', 'sdk v2 tasks client: ');
}, timeoutMs);

const emit = (line) => console.log(JSON.stringify(line));

// Every POST the client makes, with its headers, body and HTTP status.
const sent = [];
async function recordingFetch(input, init = {}) {
  const entry = { headers: Object.fromEntries(new Headers(init.headers)), body: init.body ? String(init.body) : '' };
  sent.push(entry);
  const response = await fetch(input, init);
  entry.status = response.status;
  return response;
}

// The host's raw request path for ext-tasks (see the header comment). Its request ids are strings
// with a prefix of their own; the SDK client's are numbers, so they never meet.
class RawRequestChannel {
  #transport;
  #pending = new Map();
  #next = 0;
  exchanges = []; // {method, params, response}, in the order the responses came

  constructor(transport) {
    this.#transport = transport;
  }

  // After client.connect(): the client's handlers are in place to chain in front of.
  attach() {
    const clientOnMessage = this.#transport.onmessage;
    this.#transport.onmessage = (incoming, extra) => {
      if (!this.#take(incoming)) clientOnMessage?.(incoming, extra);
    };
    const clientOnClose = this.#transport.onclose;
    this.#transport.onclose = () => {
      for (const [id, entry] of [...this.#pending]) {
        this.#pending.delete(id);
        entry.reject(new Error('the MCP transport closed'));
      }
      clientOnClose?.();
    };
  }

  dispatch = (request, options = {}) => {
    const id = `ext-tasks-${++this.#next}`;
    const outgoing = { jsonrpc: '2.0', id, method: request.method, ...(request.params === undefined ? {} : { params: request.params }) };
    return new Promise((resolve, reject) => {
      const entry = { request: outgoing, resolve, reject };
      const limit = options.context?.requestTimeoutMs ?? timeoutMs;
      entry.timer = setTimeout(() => this.#fail(id, new Error(`${request.method} had no answer in ${limit} ms`)), limit);
      if (options.signal) {
        if (options.signal.aborted) return this.#fail(id, options.signal.reason ?? new Error('aborted'));
        options.signal.addEventListener('abort', () => this.#fail(id, options.signal.reason ?? new Error('aborted')), { once: true });
      }
      this.#pending.set(id, entry);
      // transport.send ignores Mcp-Name among these headers (it derives that header from the body:
      // params.name for tools/call, params.taskId for tasks/*); other host headers go through.
      this.#transport
        .send(outgoing, {
          ...(options.context?.headers ? { headers: options.context.headers } : {}),
          ...(options.signal ? { requestSignal: options.signal } : {}),
        })
        .catch((error) => this.#fail(id, error));
    });
  };

  #take(incoming) {
    if (typeof incoming?.id !== 'string' || !incoming.id.startsWith('ext-tasks-') || 'method' in incoming) return false;
    const entry = this.#pending.get(incoming.id);
    if (!entry) return true; // ours, but given up on already
    this.#pending.delete(incoming.id);
    clearTimeout(entry.timer);
    const { method, params } = entry.request;
    this.exchanges.push({ method, params, response: incoming });
    const result = incoming.result;
    if (method === 'tools/call')
      emit({ event: method, resultType: result?.resultType, taskId: result?.taskId, status: result?.status, error: incoming.error });
    else if (method.startsWith('tasks/'))
      emit({ event: method, taskId: params?.taskId, status: result?.status, resultType: result?.resultType, error: incoming.error });
    if ('error' in incoming) entry.resolve({ kind: 'error', error: incoming.error });
    else if ('result' in incoming) entry.resolve({ kind: 'result', result });
    else entry.reject(new Error(`${method}: a response with neither result nor error`));
    return true;
  }

  #fail(id, error) {
    const entry = this.#pending.get(id);
    if (!entry) return;
    this.#pending.delete(id);
    clearTimeout(entry.timer);
    entry.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

const clientInfo = { name: 'sdk-v2-tasks-client', version: '2.4.0' };
const transport = new StreamableHTTPClientTransport(url, {
  fetch: recordingFetch,
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client(clientInfo, { versionNegotiation: { mode: 'auto' } });
await client.connect(transport);

const version = client.getNegotiatedProtocolVersion();
check(version === '2026-07-28', `${scenario}: negotiated 2026-07-28`, version);
check(client.getProtocolEra() === 'modern', `${scenario}: the modern era`, client.getProtocolEra());
const extension = client.getServerCapabilities()?.extensions?.[TASKS];
check(extension !== undefined && JSON.stringify(extension) === '{}', `${scenario}: server/discover offers the Tasks extension`,
  client.getServerCapabilities());

// The envelope the SDK client itself sends (its discover probe), for ext-tasks to frame its requests alike.
const probe = sent.map((r) => JSON.parse(r.body || '{}')).find((body) => body.method === 'server/discover');
const envelope = probe?.params?._meta ?? {};
check(envelope[PROTOCOL_VERSION] === version, `${scenario}: the discover probe carried the envelope`, envelope);
const channel = new RawRequestChannel(transport);
channel.attach();
const session = createTaskSessionFromClient(client, {
  endpointId: `switchboard ${url.href}`,
  rawDispatch: channel.dispatch,
  v2RequestFraming: {
    protocolVersion: version,
    clientInfo: envelope[CLIENT_INFO] ?? clientInfo,
    clientCapabilities: envelope[CLIENT_CAPABILITIES] ?? {},
  },
  onError: (error) => emit({ event: 'error', error: String(error) }),
});
check(session.capabilities.execution && session.capabilities.cancellation,
  `${scenario}: the ext-tasks session has task execution and cancellation (Tasks V2)`, session.capabilities);

const polls = (taskId, status) =>
  channel.exchanges.filter((e) => e.method === 'tasks/get' && e.params?.taskId === taskId
    && (status === undefined || e.response.result?.status === status));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const execution = await session.callTool(call.name, call.arguments, { requestTimeoutMs: timeoutMs });
const created = channel.exchanges.find((e) => e.method === 'tools/call')?.response.result;
const expectTask = scenario !== 'plain';
check(execution.kind === (expectTask ? 'task' : 'immediate'), `${scenario}: ext-tasks sees ${expectTask ? 'a task' : 'an immediate result'}`,
  execution.kind);
if (expectTask) {
  check(created?.resultType === 'task' && typeof created.taskId === 'string' && created.taskId.length >= 16,
    `${scenario}: tools/call was answered with a CreateTaskResult`, created);
  check(created?.status === 'working', `${scenario}: the task starts working`, created);
  check(typeof created?.createdAt === 'string' && typeof created?.lastUpdatedAt === 'string' && 'ttlMs' in created,
    `${scenario}: the handle has createdAt, lastUpdatedAt and ttlMs`, created);
  check(execution.handle?.taskId === created?.taskId, `${scenario}: the execution carries the task id`, execution.handle);
} else {
  check(created?.resultType === 'complete', `${scenario}: tools/call was answered with its result`, created);
}
const taskId = created?.taskId;

let settled;
if (scenario === 'cancel') {
  const settling = execution.settle();
  for (let waited = 0; polls(taskId).length === 0 && waited < timeoutMs; waited += 50) await sleep(50);
  check(polls(taskId, 'working').length >= 1, `${scenario}: tasks/get saw the task working before the cancel`, polls(taskId));
  await execution.cancel();
  const cancelAck = channel.exchanges.find((e) => e.method === 'tasks/cancel')?.response;
  check(cancelAck?.result?.resultType === 'complete', `${scenario}: tasks/cancel is acknowledged`, cancelAck);
  settled = await settling;
  // Cancellation is cooperative: ask the server until it says how the task ended.
  const controller = session.task(taskId);
  let view;
  for (let waited = 0; waited < 20000; waited += 250) {
    view = await controller.snapshot();
    if (view.status !== 'working') break;
    await sleep(250);
  }
  check(view?.status === 'cancelled', `${scenario}: tasks/get says the task is cancelled`, view);
  emit({ tool: call.name, kind: execution.kind, taskId, outcome: settled.outcome.status, serverStatus: view?.status });
} else {
  settled = await execution.settle();
  const { outcome } = settled;
  let result;
  try {
    result = resultFromTaskOutcome(outcome);
  } catch (error) {
    emit({ event: 'error', error: String(error) });
  }
  if (expectTask) {
    const completed = polls(taskId, 'completed');
    check(completed.length === 1, `${scenario}: one tasks/get saw it completed`, polls(taskId).map((e) => e.response));
    const inlined = completed[0]?.response.result;
    check(inlined?.resultType === 'complete' && inlined?.result?.resultType === 'complete',
      `${scenario}: the completed task (resultType complete) inlines the tool's result`, inlined);
    // A call that waits for a person is still waiting at the first poll (the test answers only after
    // it); a slow call may have finished by then.
    if (scenario !== 'slow') {
      check(polls(taskId, 'working').length >= 1 && polls(taskId).at(-1) === completed[0],
        `${scenario}: tasks/get saw it working before it completed`, polls(taskId).map((e) => e.response.result?.status));
    }
  }
  emit({ tool: call.name, kind: execution.kind, taskId, outcome: outcome.status, result, polls: polls(taskId).length });
}

// On the wire: stateless 2026-07-28 requests; ext-tasks' requests framed with the extension, and
// the task requests routed by Mcp-Name.
const requests = sent.map((r) => ({ ...r, json: JSON.parse(r.body || '{}') })).filter((r) => r.json.id !== undefined);
check(requests.every((r) => r.headers['mcp-session-id'] === undefined), `${scenario}: no Mcp-Session-Id is ever sent`);
check(requests.every((r) => r.headers['mcp-protocol-version'] === '2026-07-28' && r.headers['mcp-method'] === r.json.method),
  `${scenario}: every request names its version and method in headers`, requests.map((r) => r.headers));
check(requests.every((r) => r.headers.authorization === `Bearer ${token}`), `${scenario}: every request carries the token`);
const framed = requests.filter((r) => r.json.method === 'tools/call' || r.json.method.startsWith('tasks/'));
check(framed.every((r) => {
  const meta = r.json.params?._meta ?? {};
  return meta[PROTOCOL_VERSION] === '2026-07-28' && meta[CLIENT_INFO]?.name === clientInfo.name
    && JSON.stringify(meta[CLIENT_CAPABILITIES]?.extensions?.[TASKS]) === '{}';
}), `${scenario}: tools/call and tasks/* carry the envelope with the Tasks extension`, framed.map((r) => r.json.params?._meta));
check(framed.every((r) => r.headers['mcp-name'] === (r.json.method === 'tools/call' ? r.json.params.name : r.json.params.taskId)),
  `${scenario}: Mcp-Name names the tool of tools/call and the task of tasks/*`, framed.map((r) => [r.json.method, r.headers['mcp-name']]));
check(framed.every((r) => r.status === 200), `${scenario}: every one of them answered 200`, framed.map((r) => [r.json.method, r.status]));
if (expectTask) {
  check(framed.some((r) => r.json.method === 'tasks/get'), `${scenario}: ext-tasks polled with tasks/get`);
  check(!sent.some((r) => r.body.includes('notifications/cancelled')), `${scenario}: no notifications/cancelled for a task`);
}

await session.close();
await client.close();
clearTimeout(watchdog);
finish(`sdk v2 tasks client (${scenario}): all checks passed`, `sdk v2 tasks client (${scenario}): `);
