// Reads every checks.json the conformance suite wrote below a folder and passes only when every
// check (not just the failures the suite counts) is SUCCESS: a WARNING, SKIPPED or FAILURE check
// fails, and so does a run that recorded no checks at all. INFO lines do not count.
//
//   node all-checks-passed.cjs <results-folder>
const fs = require('fs'), path = require('path');
const root = process.argv[2];
let bad = 0, total = 0;
const walk = d => fs.readdirSync(d, {withFileTypes: true}).flatMap(e => e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
for (const file of walk(root).filter(f => f.endsWith('checks.json'))) {
  for (const check of JSON.parse(fs.readFileSync(file, 'utf8'))) {
    if (check.status === 'INFO') continue;
    total++;
    if (check.status !== 'SUCCESS') {
      bad++;
      console.log(`NOT PASSED: ${check.id} ${check.status} ${check.errorMessage ?? ''}`);
    }
  }
}
console.log(`${total - bad}/${total} checks passed`);
if (total === 0) { console.log('no checks were recorded'); process.exit(1); }
process.exit(bad ? 1 : 0);
