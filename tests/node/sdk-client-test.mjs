// The official MCP TypeScript SDK client against a running Switchboard ($SWITCHBOARD_URL, with
// $SWITCHBOARD_TOKEN): connect over Streamable HTTP with the bearer token, list tools, call echo,
// and exercise progress, logging, tool errors, unknown tools, a wrong token and session end.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { check, finish } from './checks.mjs';

const url = new URL(process.env.SWITCHBOARD_URL);
const token = process.env.SWITCHBOARD_TOKEN;

function connect(withToken) {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: withToken ? { headers: { Authorization: `Bearer ${withToken}` } } : {},
  });
  const client = new Client({ name: 'sdk-client-test', version: '1.0.0' });
  return { client, transport };
}

const { client, transport } = connect(token);
await client.connect(transport);
const server = client.getServerVersion();
check(server?.name === 'switchboard', 'initialize: server is switchboard', server);
check(typeof transport.sessionId === 'string' && transport.sessionId.length >= 22, 'a session id was issued');
check(client.getServerCapabilities()?.tools !== undefined, 'server offers tools');

const { tools } = await client.listTools();
const echo = tools.find((tool) => tool.name === 'echo');
check(echo !== undefined, 'tools/list includes echo', tools.map((t) => t.name));
check(echo?.inputSchema?.type === 'object', 'echo has an object inputSchema', echo?.inputSchema);

const message = 'hello from the TypeScript SDK';
const result = await client.callTool({ name: 'echo', arguments: { message } });
check(result.structuredContent?.message === message, 'echo returns its arguments as structured content', result);
check(JSON.parse(result.content?.[0]?.text ?? '{}').message === message, 'echo returns its arguments as text', result);
check(result.isError !== true, 'echo is not an error');

const progress = [];
await client.callTool({ name: 'echo', arguments: { message: 'with progress' } }, undefined, {
  onprogress: (p) => progress.push(p),
});
check(progress.length === 1 && progress[0].progress === 1, 'progress notification arrives before the result', progress);

const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
await client.setLoggingLevel('debug');
await client.callTool({ name: 'echo', arguments: { message: 'logged' } });
check(logs.some((l) => l.level === 'debug' && l.data?.arguments?.message === 'logged'), 'debug log message arrives', logs);
await client.setLoggingLevel('info');
logs.length = 0;
await client.callTool({ name: 'echo', arguments: { message: 'not logged' } });
check(logs.length === 0, 'logging/setLevel info filters debug messages', logs);

const bad = await client.callTool({ name: 'echo', arguments: { message: 42 } });
check(bad.isError === true && /expected string/.test(bad.content?.[0]?.text ?? ''), 'bad arguments are a tool error', bad);

try {
  await client.callTool({ name: 'ecoh', arguments: {} });
  check(false, 'unknown tool is rejected');
} catch (error) {
  check(error.code === -32602 && /Closest matches: echo/.test(error.message), 'unknown tool names the closest match', error.message);
}

const aliased = await client.callTool({ name: 'mcp__switchboard__echo', arguments: { message: 'alias' } });
check(aliased.structuredContent?.message === 'alias', 'mcp__<server>__<tool> alias resolves', aliased);

// The server's answer to ping is an empty result (the SDK rejects an error or a malformed one).
let pong;
try {
  pong = await client.ping();
} catch (error) {
  pong = error;
}
check(pong !== null && typeof pong === 'object' && !(pong instanceof Error)
      && Object.keys(pong).every((key) => key === '_meta'),
      'ping answers with an empty result', pong instanceof Error ? String(pong) : pong);

await transport.terminateSession();
check(transport.sessionId === undefined, 'session terminated with DELETE');
await client.close();

const intruder = connect('sb_wrong');
try {
  await intruder.client.connect(intruder.transport);
  check(false, 'a wrong token is refused');
} catch (error) {
  check(/401|Unauthorized/i.test(String(error)), 'a wrong token is refused with 401', String(error));
}
const anonymous = connect(undefined);
try {
  await anonymous.client.connect(anonymous.transport);
  check(false, 'a missing token is refused');
} catch (error) {
  check(/401|Unauthorized/i.test(String(error)), 'a missing token is refused with 401', String(error));
}

finish('all SDK client checks passed', 'SDK client: ');
