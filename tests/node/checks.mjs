// The checks the SDK client tests print: one line each, "ok" or "FAIL" with what was seen, and an
// exit status that says whether any failed.
let failures = 0;

export function check(condition, what, detail) {
  console.log(`${condition ? 'ok  ' : 'FAIL'} ${what}${!condition && detail !== undefined ? ': ' + JSON.stringify(detail) : ''}`);
  if (!condition) failures++;
}

// Prints `passed` or how many failed after `failedPrefix`, and exits with the verdict.
export function finish(passed, failedPrefix) {
  console.log(failures === 0 ? passed : `${failedPrefix}${failures} check(s) failed`);
  process.exit(failures === 0 ? 0 : 1);
}
