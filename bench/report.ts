import fs from 'node:fs';
import os from 'node:os';

/** Replaces (or appends) one `## heading` section of BENCHMARKS.md, so each benchmark owns its section. */
export function writeSection(heading: string, body: string, file = 'BENCHMARKS.md'): void {
  const current = fs.existsSync(file)
    ? fs.readFileSync(file, 'utf8')
    : '# Benchmarks\n\nWritten by `make bench`. Each section names the machine and the command.\n';
  const section = `## ${heading}\n\n${body.trim()}\n`;
  const pattern = new RegExp(`## ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n[\\s\\S]*?(?=\\n## |$)`);
  const next = pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}`;
  fs.writeFileSync(file, next.trimEnd() + '\n');
}

/** One row of a Markdown table. */
export function tableRow(...cells: (string | number)[]): string {
  return `| ${cells.join(' | ')} |`;
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return (
    `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.version}, ${os.platform()} ${os.release()}`
  );
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
