import { percentile } from './report.js';

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}

/** A closed-loop load: `concurrency` clients each send the next request when the last one answered. */
export async function load(options: {
  durationMs: number;
  concurrency: number;
  request: (i: number) => Promise<Response>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const res = await options.request(sent++);
      await res.arrayBuffer();
      if (res.status >= 400) errors++;
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    p50ms: percentile(latencies, 50),
    p99ms: percentile(latencies, 99),
    errors,
  };
}
