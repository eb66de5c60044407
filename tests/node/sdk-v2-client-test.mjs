// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client) against a running
// Switchboard ($SWITCHBOARD_URL, with $SWITCHBOARD_TOKEN), negotiating protocol 2026-07-28: in `auto`
// mode and pinned, it discovers the server, lists the tools and calls them statelessly (no session),
// with progress, a tool error and an unknown tool; a wrong token is refused.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { check, finish } from './checks.mjs';

const url = new URL(process.env.SWITCHBOARD_URL);
const token = process.env.SWITCHBOARD_TOKEN;

// Every request the client sends, to check what it says on the wire.
const sent = [];
function recordingFetch(input, init = {}) {
  sent.push({ headers: Object.fromEntries(new Headers(init.headers)), body: init.body ? String(init.body) : '' });
  return fetch(input, init);
}

function connect(mode, withToken = token) {
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: recordingFetch,
    requestInit: { headers: { Authorization: `Bearer ${withToken}` } },
  });
  const client = new Client({ name: 'sdk-v2-client-test', version: '2.4.0' }, { versionNegotiation: { mode } });
  return { client, transport };
}

for (const mode of ['auto', { pin: '2026-07-28' }]) {
  const name = typeof mode === 'string' ? mode : `pinned ${mode.pin}`;
  sent.length = 0;
  const { client, transport } = connect(mode);
  await client.connect(transport);
  check(client.getNegotiatedProtocolVersion?.() === '2026-07-28', `${name}: negotiated 2026-07-28`,
    client.getNegotiatedProtocolVersion?.());
  check(client.getServerVersion()?.name === 'switchboard', `${name}: the server is switchboard`, client.getServerVersion());
  check(client.getServerCapabilities()?.tools !== undefined, `${name}: the server offers tools`);

  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  check(names.includes('echo'), `${name}: tools/list includes echo`, names);
  check(names.every((n, i) => i === 0 || names[i - 1] <= n), `${name}: tools in name order`, names);

  const message = 'hello from the SDK v2 client';
  const progress = [];
  const result = await client.callTool({ name: 'echo', arguments: { message } },
    { onprogress: (p) => progress.push(p) });
  check(result.structuredContent?.message === message, `${name}: echo returns its arguments`, result);
  check(result.isError !== true, `${name}: echo is not an error`, result);
  check(progress.length >= 1, `${name}: progress arrives before the result`, progress);

  const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
    (r) => ({ result: r }), (e) => ({ error: e }));
  check(unknown.error !== undefined || unknown.result?.isError === true, `${name}: an unknown tool is refused`, unknown);

  // On the wire: no session, the headers the revision requires, the envelope in every request.
  check(sent.every((r) => r.headers['mcp-session-id'] === undefined), `${name}: no Mcp-Session-Id is ever sent`);
  const requests = sent.filter((r) => r.body.includes('"id"'));
  check(requests.length >= 3 && requests.every((r) => r.headers['mcp-protocol-version'] === '2026-07-28'
    && r.headers['mcp-method']), `${name}: every request names its version and method in headers`,
    requests.map((r) => r.headers));
  check(requests.every((r) => JSON.parse(r.body).method !== 'initialize'), `${name}: no initialize`);
  await client.close();
}

// A wrong token: refused, and the client says so.
{
  const { client, transport } = connect('auto', 'sb_wrong-token-0123456789abcdef0123456789');
  const refused = await client.connect(transport).then(() => false, () => true);
  check(refused, 'a wrong token is refused');
  await client.close().catch(() => {});
}

finish('sdk v2 client: all checks passed', 'sdk v2 client: ');
