// The official MCP TypeScript SDK client asking what only the person at the console can answer, for
// tst_interactione2e. Connects to $SWITCHBOARD_URL with $SWITCHBOARD_TOKEN and, at the same time,
// makes the calls of $SWITCHBOARD_SCENARIO:
//   connect-and-echo  request_connection {provider: github, kind: api_key, reason} and echo {message: hi}
//   connect           request_connection only
//   oauth             request_connection {provider: $SWITCHBOARD_OAUTH_PROVIDER, kind: oauth, scopes: [read]}
//   echo              echo {message: $SWITCHBOARD_MESSAGE or "hi"} only
// The calls wait (hold) until the person answers; the client keeps waiting as long as progress
// notifications arrive. Prints one JSON line per finished call: {"tool", "result"} or {"tool", "error"},
// then {"done": true}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.env.SWITCHBOARD_URL);
const token = process.env.SWITCHBOARD_TOKEN;
const scenario = process.env.SWITCHBOARD_SCENARIO ?? 'connect-and-echo';
const message = process.env.SWITCHBOARD_MESSAGE ?? 'hi';
// Generous: a person (or a GUI test on a loaded machine) answers; progress resets it anyway.
const timeout = Number(process.env.SWITCHBOARD_CALL_TIMEOUT_MS ?? 240000);

const connectCall = {
  name: 'request_connection',
  arguments: { provider: 'github', kind: 'api_key', reason: 'File the release issues in acme/web' },
};
const oauthCall = {
  name: 'request_connection',
  arguments: {
    provider: process.env.SWITCHBOARD_OAUTH_PROVIDER ?? 'testauth',
    kind: 'oauth',
    scopes: ['read'],
    reason: 'Read the project board',
  },
};
const echoCall = { name: 'echo', arguments: { message } };
const scenarios = {
  'connect-and-echo': [connectCall, echoCall],
  connect: [connectCall],
  oauth: [oauthCall],
  echo: [echoCall],
};
const calls = scenarios[scenario];
if (!calls) {
  console.error(`unknown SWITCHBOARD_SCENARIO ${scenario}`);
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(url, {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: 'sdk-interaction-client', version: '1.0.0' });
await client.connect(transport);

await Promise.all(
  calls.map(async (call) => {
    try {
      const result = await client.callTool(call, undefined, {
        timeout,
        resetTimeoutOnProgress: true,
        onprogress: () => {}, // asks for progress notifications, which keep the call alive
      });
      console.log(JSON.stringify({ tool: call.name, result }));
    } catch (error) {
      console.log(JSON.stringify({ tool: call.name, error: String(error) }));
    }
  }),
);

await transport.terminateSession();
await client.close();
console.log(JSON.stringify({ done: true }));
