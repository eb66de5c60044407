// Connects the SDK v2 client to URL with version negotiation MODE and logs every HTTP exchange.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const [url, token, mode] = process.argv.slice(2);
const loggingFetch = async (input, init = {}) => {
  const headers = new Headers(init.headers);
  const shown = {};
  for (const [k, v] of headers) if (k !== 'authorization') shown[k] = v;
  console.log('>>', init.method || 'GET', JSON.stringify(shown), init.body ? String(init.body).slice(0, 400) : '');
  const response = await fetch(input, init);
  const copy = response.clone();
  let text = '';
  try { if ((response.headers.get('content-type') || '').includes('json')) text = (await copy.text()).slice(0, 400); } catch {}
  console.log('<<', response.status, response.headers.get('content-type'), text);
  return response;
};
const transport = new StreamableHTTPClientTransport(new URL(url), {
  fetch: loggingFetch, requestInit: { headers: { Authorization: `Bearer ${token}` } } });
const client = new Client({ name: 'v2-capture', version: '1.0.0' },
  mode === 'legacy' ? {} : { versionNegotiation: { mode: mode === 'auto' ? 'auto' : { pin: mode } } });
try {
  await client.connect(transport);
  console.log('connected; protocol', client.getNegotiatedProtocolVersion?.() ?? '?');
  const tools = await client.listTools();
  console.log('tools', tools.tools.length);
  const called = await client.callTool({ name: 'echo', arguments: { message: 'hello 2026' } });
  console.log('called', JSON.stringify(called).slice(0, 200));
} catch (e) { console.log('FAILED', e?.name, e?.code, e?.message); }
await client.close().catch(() => {});
