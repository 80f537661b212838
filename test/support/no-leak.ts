import assert from 'node:assert/strict';

const CHECKOUT = process.cwd();

/** No answer of any surface may carry a stack frame, the checkout's path or a source file path. */
export function assertNoLeak(body: string, what: string): void {
  assert.doesNotMatch(body, /\n\s+at [\w.<]/, `${what}: stack frame in ${body.slice(0, 300)}`);
  assert.ok(!body.includes(CHECKOUT), `${what}: checkout path in ${body.slice(0, 300)}`);
  assert.doesNotMatch(body, /node_modules|\/src\/[\w/-]+\.ts/, `${what}: file path in ${body.slice(0, 300)}`);
}
