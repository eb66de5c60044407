// The minimal Node.js command tool the runner benchmark compares against: reads the envelope from
// stdin, parses it, writes one JSON result, as `switchboard tool echo` does, and nothing more.
let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { text += chunk; });
process.stdin.on('end', () => {
    const envelope = JSON.parse(text);
    const input = envelope.input ?? {};
    process.stdout.write(JSON.stringify({ ok: true, content: [{ type: 'text', text: JSON.stringify(input) }],
        structuredContent: input }) + '\n');
});
