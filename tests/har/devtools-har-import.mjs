// Loads a HAR file with the HAR importer of a real browser's network panel: the DevTools front end
// that Chromium ships (models/har/har.js, from its resources), run in headless Chromium and driven
// over the DevTools protocol. It does what the Network panel's "Import HAR file" does
// (NetworkLogView.onLoadFromFile: new HARRoot(JSON.parse(text)), then
// Importer.requestsFromHARLog(harRoot.log)) and then checks that every entry came out as a request
// with its URL, method, status, request body, response body and duration.
//
//   node devtools-har-import.mjs FILE.har
//
// switchboard-sample.har next to it is an export of four calls (ok, tool error, denied, still waiting)
// as CallExportWriter writes them; tst_callexport runs this on a file the real writer wrote.
//
// Prints "imported N requests:" and one line per request, and exits 0; exits 1 when the importer
// refuses the file or a request differs from its entry, 2 when the browser cannot be run. Chromium
// is Debian's package (scripts/install-deps.sh --test); SWITCHBOARD_CHROMIUM names another binary.

import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {delimiter, join} from 'node:path';

const deadlineMs = 90_000;
const appUrl = 'devtools://devtools/bundled/devtools_app.html';

function fail(code, message) {
    process.stderr.write(`devtools-har-import: ${message}\n`);
    process.exit(code);
}

function findChromium() {
    if (process.env.SWITCHBOARD_CHROMIUM)
        return process.env.SWITCHBOARD_CHROMIUM;
    // Debian's /usr/bin/chromium is a shell wrapper for a desktop session; the binary itself is enough here.
    if (existsSync('/usr/lib/chromium/chromium'))
        return '/usr/lib/chromium/chromium';
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
        for (const name of ['chromium', 'chromium-browser', 'google-chrome'])
            if (dir && existsSync(join(dir, name)))
                return join(dir, name);
    }
    return null;
}

// Runs in the DevTools page: the Network panel's import, then what a person would see of each request.
async function importInDevTools(harText) {
    const HAR = await import('./models/har/har.js');
    let harRoot;
    try {
        harRoot = new HAR.HARFormat.HARRoot(JSON.parse(harText));
    } catch (e) {
        return {rejected: String(e?.message ?? e)};
    }
    const requests = HAR.Importer.Importer.requestsFromHARLog(harRoot.log);
    const out = [];
    for (const request of requests) {
        const content = await request.requestContentData();
        out.push({
            url: request.url(),
            method: request.requestMethod,
            status: request.statusCode,
            statusText: request.statusText,
            mimeType: request.mimeType,
            resourceType: request.resourceType().name(),
            finished: request.finished,
            requestBody: await request.requestFormData(),
            responseBody: 'error' in content ? null : content.text,
            contentError: 'error' in content ? String(content.error) : null,
            startedMs: request.issueTime() * 1000,
            durationMs: (request.endTime - request.issueTime()) * 1000,
        });
    }
    return {requests: out};
}

// The DevTools protocol over --remote-debugging-pipe: no port to find or collide on.
class Cdp {
    constructor(writable, readable) {
        this.writable = writable;
        this.nextId = 0;
        this.pending = new Map();
        this.waiters = [];
        let buffer = Buffer.alloc(0);
        readable.on('data', chunk => {
            buffer = Buffer.concat([buffer, chunk]);
            for (let end; (end = buffer.indexOf(0)) >= 0; buffer = buffer.subarray(end + 1))
                this.dispatch(JSON.parse(buffer.subarray(0, end).toString('utf8')));
        });
    }
    dispatch(message) {
        if (message.id !== undefined) {
            const pending = this.pending.get(message.id);
            this.pending.delete(message.id);
            if (message.error)
                pending?.reject(new Error(`${pending.method}: ${message.error.message}`));
            else
                pending?.resolve(message.result);
            return;
        }
        this.waiters = this.waiters.filter(waiter => !waiter(message));
    }
    send(method, params = {}, sessionId = undefined) {
        const id = ++this.nextId;
        return new Promise((resolve, reject) => {
            this.pending.set(id, {resolve, reject, method});
            this.writable.write(JSON.stringify({id, method, params, sessionId}) + '\0');
        });
    }
    event(method, sessionId) {
        return new Promise(resolve => this.waiters.push(message => {
            if (message.method !== method || message.sessionId !== sessionId)
                return false;
            resolve(message.params);
            return true;
        }));
    }
}

// The response body as DevTools shows it: HAR's base64 content decoded.
function responseText(content) {
    const text = content.text ?? '';
    return content.encoding === 'base64' ? Buffer.from(text, 'base64').toString('utf8') : text;
}

const harPath = process.argv[2];
if (!harPath)
    fail(2, 'usage: devtools-har-import.mjs FILE.har');
let harText;
try {
    harText = readFileSync(harPath, 'utf8');
} catch (e) {
    fail(2, `cannot read ${harPath}: ${e.message}`);
}
// What the file says, for comparison; the importer gets the text untouched.
let expected = null;
try {
    expected = JSON.parse(harText)?.log?.entries;
} catch {
    // The importer says why below.
}

const chromiumBinary = findChromium();
if (!chromiumBinary)
    fail(2, 'no Chromium found: install Debian\'s chromium (scripts/install-deps.sh --test) or set SWITCHBOARD_CHROMIUM');

// Chromium's profile, temporary files, crash reports and caches in one directory, removed at the end:
// nothing lands in the user's home.
const scratch = mkdtempSync(join(tmpdir(), 'switchboard-har-chromium-'));
const profile = join(scratch, 'profile');
for (const dir of ['tmp', 'home', 'config', 'cache'])
    mkdirSync(join(scratch, dir));
const chromiumEnvironment = {
    ...process.env,
    TMPDIR: join(scratch, 'tmp'),
    HOME: join(scratch, 'home'),
    XDG_CONFIG_HOME: join(scratch, 'config'),
    XDG_CACHE_HOME: join(scratch, 'cache'),
};

function removeScratch() {
    try {
        rmSync(scratch, {recursive: true, force: true, maxRetries: 10, retryDelay: 100});
    } catch (e) {
        process.stderr.write(`devtools-har-import: left ${scratch} behind: ${e.message}\n`);
    }
}

// No sandbox: the page loads only DevTools' own resources, and a container or root user often has
// no namespaces for Chromium's sandbox.
const chromium = spawn(chromiumBinary,
    ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
        '--disable-extensions', '--disable-crash-reporter', '--remote-debugging-pipe', `--user-data-dir=${profile}`,
        'about:blank'],
    {stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: chromiumEnvironment});
let chromiumLog = '';
chromium.stderr.on('data', chunk => {
    if (chromiumLog.length < 20_000)
        chromiumLog += chunk;
});
const exited = new Promise(resolve => chromium.on('close', (code, signal) => resolve({code, signal})));
const started = new Promise((resolve, reject) => {
    chromium.on('spawn', resolve);
    chromium.on('error', e => reject(new Error(`cannot start ${chromiumBinary}: ${e.message}`)));
});
// A browser that dies makes the pipe's writes fail; `exited` says so.
chromium.stdio[3].on('error', () => {});

let cdp = null;
async function stopChromium() {
    if (chromium.pid !== undefined && chromium.exitCode === null && chromium.signalCode === null) {
        // Browser.close shuts down cleanly (its helpers stop writing to the profile); a signal if it does not.
        cdp?.send('Browser.close').catch(() => {});
        const kill = setTimeout(() => chromium.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(kill);
    }
    removeScratch();
}

async function run() {
    await started;
    cdp = new Cdp(chromium.stdio[3], chromium.stdio[4]);
    const version = await cdp.send('Browser.getVersion');
    const {targetId} = await cdp.send('Target.createTarget', {url: 'about:blank'});
    const {sessionId} = await cdp.send('Target.attachToTarget', {targetId, flatten: true});
    await cdp.send('Page.enable', {}, sessionId);
    const loaded = cdp.event('Page.loadEventFired', sessionId);
    const navigation = await cdp.send('Page.navigate', {url: appUrl}, sessionId);
    if (navigation.errorText)
        throw new Error(`cannot open ${appUrl}: ${navigation.errorText}`);
    await loaded;
    const evaluation = await cdp.send('Runtime.evaluate', {
        expression: `(${importInDevTools.toString()})(${JSON.stringify(harText)})`,
        awaitPromise: true,
        returnByValue: true,
    }, sessionId);
    if (evaluation.exceptionDetails) {
        const details = evaluation.exceptionDetails;
        throw new Error(`the import threw in DevTools: ${details.exception?.description ?? details.text}`);
    }
    return {browser: version.product, result: evaluation.result.value};
}

let timer;
const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Chromium within ${deadlineMs / 1000} s`)), deadlineMs);
});
let outcome;
try {
    outcome = await Promise.race([run(), deadline, exited.then(({code, signal}) => {
        throw new Error(`Chromium exited (${signal ?? code}) before the import finished`);
    })]);
} catch (e) {
    clearTimeout(timer);
    await stopChromium();
    fail(2, `${e.message}${chromiumLog ? `\nChromium said:\n${chromiumLog}` : ''}`);
}
clearTimeout(timer);
await stopChromium();

const {browser, result} = outcome;
if (result.rejected)
    fail(1, `${browser}'s DevTools rejected ${harPath}: ${result.rejected}`);
const requests = result.requests;
const problems = [];
if (!Array.isArray(expected)) {
    problems.push('log.entries is not an array, yet the importer took the file');
} else if (requests.length !== expected.length) {
    problems.push(`imported ${requests.length} requests from ${expected.length} entries`);
} else {
    // The importer orders requests by startedDateTime; Array.prototype.sort is stable, as its is.
    const entries = expected.map((entry, index) => ({entry, index}))
                        .sort((a, b) => Date.parse(a.entry.startedDateTime) - Date.parse(b.entry.startedDateTime));
    entries.forEach(({entry, index}, i) => {
        const request = requests[i];
        const where = `entry ${index} (${entry.comment ?? entry.request?.url})`;
        const same = (what, got, want) => {
            if (got !== want)
                problems.push(`${where}: ${what} is ${JSON.stringify(got)}, the HAR says ${JSON.stringify(want)}`);
        };
        same('url', request.url, entry.request.url);
        same('method', request.method, entry.request.method);
        same('status', request.status, entry.response.status);
        same('finished', request.finished, true);
        same('request body', request.requestBody, entry.request.postData ? entry.request.postData.text : null);
        if (request.contentError)
            problems.push(`${where}: the response body cannot be shown: ${request.contentError}`);
        else
            same('response body', request.responseBody, responseText(entry.response.content));
        same('resource type', request.resourceType, entry._resourceType ?? 'script');
        same('start (ms since the epoch)', Math.round(request.startedMs), Date.parse(entry.startedDateTime));
        if (Math.abs(request.durationMs - entry.time) > 0.01)
            problems.push(`${where}: duration is ${request.durationMs} ms, the HAR's time is ${entry.time} ms`);
    });
}

console.log(`imported ${requests.length} requests with ${browser}'s DevTools HAR importer:`);
for (const r of requests)
    console.log(`  ${r.method} ${r.url} ${r.status}${r.statusText ? ` ${r.statusText}` : ''} ${r.mimeType ?? '-'} (${r.resourceType}, ${r.durationMs.toFixed(3)} ms)`);
if (problems.length > 0)
    fail(1, `${harPath} did not import as it says:\n  ${problems.join('\n  ')}`);
