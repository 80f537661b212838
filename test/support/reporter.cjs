// mocha's spec output, plus a results file per run that scripts/test-summary.mjs adds up.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class HeraldReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const dir = path.resolve('test-artifacts');
      fs.mkdirSync(dir, { recursive: true });
      const name = `results-${process.env.HERALD_TEST_DB || 'sqlite'}-${process.pid}.json`;
      const { passes, failures, pending } = runner.stats;
      fs.writeFileSync(path.join(dir, name), JSON.stringify({ passed: passes, failed: failures, pending }));
    });
  }
}
module.exports = HeraldReporter;
