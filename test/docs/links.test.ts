/**
 * The README stays a front page (what Herald is, the two commands, the first ten minutes) and the rest lives in
 * docs/: so the README keeps under 25,000 bytes, and every relative link of README.md and docs/*.md reaches a file
 * of the checkout (and, with a #fragment, a heading of that file), so moving a page cannot strand a reader.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describeOnce } from '../support/databases.js';

const ROOT = process.cwd();
const README_LIMIT_BYTES = 25_000;

function pages(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...docs.sort().map((name) => `docs/${name}`)];
}

/** Markdown with its fenced code blocks and inline code taken out: links there are examples, not links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every link target of a page: markdown links and images, and HTML src/href attributes. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets: string[] = [];
  for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]);
  for (const match of text.matchAll(/\b(?:src|href)="([^"]+)"/g)) targets.push(match[1]);
  return targets;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const match of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) found.add(anchorOf(match[1]));
  return found;
}

function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//') && !target.includes('{');
}

// Files of the checkout: no database involved.
describeOnce('README and docs/', () => {
  it('keeps README.md under 25,000 bytes', () => {
    const size = fs.statSync(path.join(ROOT, 'README.md')).size;
    assert.ok(size < README_LIMIT_BYTES, `README.md is ${size} bytes: move reference material into docs/`);
  });

  it('links every docs/ page from the README, so none is found only by browsing the folder', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(linkTargets(readme).map((target) => target.split('#')[0]));
    assert.deepEqual(
      pages().filter((page) => page !== 'README.md' && !linked.has(page)),
      [],
    );
  });

  it('finds the links, images and anchors it checks (so the check below cannot pass on nothing)', () => {
    const sample =
      'See [Security](security.md#roles-and-credentials), ![shot](screenshots/a.png),\n' +
      '<img src="b.png" alt="">, [web](https://example.com) and `[code](not-a-link.md)`.\n' +
      '```sh\n[x](fenced.md)\n```\n';
    assert.deepEqual(linkTargets(sample), [
      'security.md#roles-and-credentials',
      'screenshots/a.png',
      'https://example.com',
      'b.png',
    ]);
    assert.equal(
      anchorOf('Team workflow: queue, labels, recycling, approvals'),
      'team-workflow-queue-labels-recycling-approvals',
    );
    assert.ok(pages().length > 5, 'README.md and the docs/ pages are found');
  });

  it('has every relative link of README.md and docs/*.md reach a file, and a heading when it names one', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages()) {
      const markdown = fs.readFileSync(path.join(ROOT, page), 'utf8');
      for (const target of linkTargets(markdown).filter(isRelative)) {
        checked += 1;
        const [file, fragment] = target.split('#');
        const from = path.join(ROOT, page);
        const resolved = file ? path.resolve(path.dirname(from), decodeURI(file)) : from;
        if (!resolved.startsWith(ROOT + path.sep) || !fs.existsSync(resolved)) {
          broken.push(`${page}: ${target} (no such file)`);
        } else if (fragment && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(fragment)) {
          broken.push(`${page}: ${target} (no heading #${fragment} there)`);
        }
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(checked > 20, `only ${checked} relative links found`);
  });
});
