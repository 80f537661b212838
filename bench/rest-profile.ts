/**
 * A CPU profile of the REST read (GET /v1/rest/posts?limit=50) under the benchmark's load: the server runs in
 * its own process with --cpu-prof; the profile is written to bench/profiles/ and its biggest self-time costs
 * to BENCHMARKS.md, so the next speed work starts from measured costs, not guesses.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { startHerald } from '../src/server.js';
import { load } from './load.js';
import { HERALD_NODE_FLAGS } from './processes.js';
import { machine, writeSection } from './report.js';

const PROFILE_DIR = path.resolve('bench/profiles');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export async function runRestProfile(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-profile-'));
  const seeded = await startHerald(
    { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, worker: false },
    createLogger({ quiet: true }),
  );
  const demo = await seedDemo(seeded.deps);
  for (let i = 0; i < 100; i++) {
    await fetch(`${seeded.url}/v1/rest/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channelIds: [demo.channelIds[0]], text: `Post ${i}`, saveAsDraft: true }),
    });
  }
  await seeded.close();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-cpuprof-'));
  const child = spawn(
    'node',
    [
      ...HERALD_NODE_FLAGS,
      '--cpu-prof',
      `--cpu-prof-dir=${scratch}`,
      '--import',
      'tsx',
      'bench/rest-target.ts',
      'herald',
    ],
    {
      env: { ...process.env, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve) =>
    child.stdout.on('data', (chunk) => {
      const ready = /READY (\S+)/.exec(String(chunk));
      if (ready) resolve(ready[1]);
    }),
  );
  const result = await load({
    durationMs: 10_000,
    concurrency: 16,
    request: () => fetch(`${url}/v1/rest/posts?limit=50`, { headers: { authorization: `Bearer ${demo.apiKey}` } }),
  });
  child.kill('SIGTERM');
  await once(child, 'exit');
  fs.mkdirSync(PROFILE_DIR, { recursive: true });
  const [file] = fs.readdirSync(scratch);
  const target = path.join(PROFILE_DIR, 'rest-read.cpuprofile');
  fs.copyFileSync(path.join(scratch, file), target);
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });

  const profile = JSON.parse(fs.readFileSync(target, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const where = frame.url.includes('/node_modules/')
      ? frame.url.split('/node_modules/').pop()!
      : path.relative(process.cwd(), frame.url.replace(/^file:\/\//, ''));
    const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + profile.timeDeltas[i]);
    busy += profile.timeDeltas[i];
  });
  const top = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(
      ([name, micros]) =>
        `| ${name.replace(/\|/g, '\\|')} | ${(micros / 1000).toFixed(0)} | ${((100 * micros) / busy).toFixed(1)} % |`,
    );
  const report = `Machine: ${machine()}. Command: \`make bench\` (bench/rest-profile.ts). The Herald server alone in a
process with \`--cpu-prof\`, 16 clients for 10 s on GET /v1/rest/posts?limit=50 (${result.perSecond.toFixed(0)} req/s
during the profile), budgets set out of reach as in the REST bench. The profile is
\`bench/profiles/rest-read.cpuprofile\` (open it in Chrome DevTools); the biggest self times, idle excluded:

| function | self ms | share of busy time |
|---|---|---|
${top.join('\n')}

Measured ${new Date().toISOString().slice(0, 10)}.`;
  writeSection('REST read profile', report);
  console.log(report);
}
