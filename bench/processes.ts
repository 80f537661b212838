import { spawn } from 'node:child_process';

/** Node's options as `make run` starts Herald (the Makefile's HERALD_NODE_FLAGS). */
export const HERALD_NODE_FLAGS = ['--max-old-space-size=1024', '--max-semi-space-size=8'];

/**
 * A benchmark's server or worker in a `node` process of its own, started as `make run` starts Herald; `line` waits
 * until its output matches.
 */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv) {
  const process_ = spawn('node', [...HERALD_NODE_FLAGS, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  process_.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const line = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const found = pattern.exec(out);
        if (found) resolve(found);
      };
      process_.stdout.on('data', look);
      process_.once('exit', (code) =>
        reject(new Error(`${args.join(' ')} exited (${code}) before printing ${pattern}`)),
      );
      look();
    });
  return { process: process_, line };
}
