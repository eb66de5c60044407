// Traffic for the README's screenshots: a few clients' calls that end every way the call log tells
// apart (ok, tool error, unknown tool, invalid arguments, denied by a rule, waiting for approval,
// progress). node traffic.mjs URL [client-name] [mix|ask]; the token from SWITCHBOARD_TOKEN.
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, clientName = 'claude-code', mode = 'mix'] = process.argv.slice(2);
const token = process.env.SWITCHBOARD_TOKEN;
const client = new Client({name: clientName, version: '1.0.0'});
await client.connect(new StreamableHTTPClientTransport(new URL(url), {
    requestInit: {headers: {Authorization: `Bearer ${token}`}},
}));
const call = async (name, args) => {
    try {
        await client.callTool({name, arguments: args}, undefined, {timeout: 600_000});
    } catch (error) {
        // Refusals (unknown tool, invalid arguments) come back as JSON-RPC errors: expected here.
    }
};
if (mode === 'ask') {
    // Waits for the person: the approval the screenshots answer.
    await call('notes.write', {path: 'standup.md', content: '# Stand-up\n- shipped the grants view\n'});
} else {
    await call('echo', {message: 'hello from ' + clientName});
    await call('debug.progress', {steps: 4, interval_ms: 150});
    await call('debug.throw', {message: 'index out of range'});
    await call('echo', {message: 42});
    await call('git_stauts', {repo_path: '.'});
    await call('audit.append', {record: {event: 'deploy'}});
    for (let i = 0; i < 6; ++i)
        await call('echo', {message: `ping ${i}`});
}
await client.close();
