// mocha's spec output, plus a results file per run that scripts/test-summary.mjs adds up, and the time each test
// file took (its tests and hooks, longest first) in durations-*.json, to find where the suite's time goes.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_TEST_END, EVENT_HOOK_END } = Mocha.Runner.constants;

class HeraldReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const durations = new Map();
    const record = (runnable) => {
      const file = runnable.file && path.relative(process.cwd(), runnable.file);
      if (file && runnable.duration) durations.set(file, (durations.get(file) ?? 0) + runnable.duration);
    };
    runner.on(EVENT_TEST_END, record);
    runner.on(EVENT_HOOK_END, record);
    runner.once(EVENT_RUN_END, () => {
      // HERALD_TEST_ARTIFACTS: a run beside make test keeps its files apart until make test has cleared its own.
      const dir = path.resolve(process.env.HERALD_TEST_ARTIFACTS || 'test-artifacts');
      fs.mkdirSync(dir, { recursive: true });
      const run = `${process.env.HERALD_TEST_DB || 'sqlite'}-${process.pid}`;
      const { passes, failures, pending } = runner.stats;
      fs.writeFileSync(
        path.join(dir, `results-${run}.json`),
        JSON.stringify({ passed: passes, failed: failures, pending }),
      );
      const longestFirst = Object.fromEntries([...durations].sort((a, b) => b[1] - a[1]));
      fs.writeFileSync(path.join(dir, `durations-${run}.json`), `${JSON.stringify(longestFirst, null, 1)}\n`);
    });
  }
}
module.exports = HeraldReporter;
