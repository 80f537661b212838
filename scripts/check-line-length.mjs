// `make lint`'s second half: no tracked source line under the folders named on the command line is over 120
// columns (counted in code points). Data is not source: generated/, lock files, JSON, Markdown, SVG, profiles and
// binary files are skipped. Prints each offending file:line and exits 1 when there is one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const LIMIT = 120;
const GENERATED = /(^|\/)generated\//;
const DATA = /\.(json|md|svg|lock|cpuprofile|png|jpe?g|gif|webp|ico|woff2?|mp4|pdf)$/;

/** The lines over LIMIT in the given files, as "file:line (N columns)". */
export function longLines(files) {
  const found = [];
  for (const file of files) {
    if (GENERATED.test(file) || DATA.test(file)) continue;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const columns = [...line.replace(/\r$/, '')].length;
      if (columns > LIMIT) found.push(`${file}:${i + 1} (${columns} columns)`);
    });
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const roots = process.argv.slice(2);
  const files = execFileSync('git', ['ls-files', '-z', '--', ...roots], { encoding: 'utf8' }).split('\0');
  const found = longLines(files.filter((file) => file && fs.existsSync(file)));
  for (const line of found) console.error(line);
  if (found.length > 0) {
    console.error(
      `${found.length} line(s) over ${LIMIT} columns: make format wraps code; wrap strings and comments by hand.`,
    );
    process.exit(1);
  }
}
