// The SDK v2 reference server (createMcpHandler) on node:http, one tool, for observing 2026-07-28.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
const factory = () => {
  const server = new McpServer({ name: 'ref-v2', version: '2.4.0' }, { instructions: 'reference' });
  server.registerTool('ping', { title: 'Ping', description: 'Answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
  return server;
};
const handler = createMcpHandler(factory);
const port = Number(process.argv[2] || 18777);
http.createServer(async (req, res) => {
  const chunks = []; for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  const request = new Request(`http://127.0.0.1:${port}${req.url}`, { method: req.method, headers: req.headers, body: ['GET','HEAD'].includes(req.method) ? undefined : body });
  const response = await (handler.fetch ?? handler)(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) { for await (const c of response.body) res.write(c); }
  res.end();
}).listen(port, '127.0.0.1', () => console.log('listening', port));
