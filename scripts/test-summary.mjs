// Prints the plain closing line CI reads ("N passed, N failed"), summed over every mocha run of this make test.
import fs from 'node:fs';
import path from 'node:path';

const dir = 'test-artifacts';
let passed = 0;
let failed = 0;
for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
  if (!/^results-.*\.json$/.test(file)) continue;
  const result = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  passed += result.passed;
  failed += result.failed;
}
console.log(`${passed} passed, ${failed} failed`);
