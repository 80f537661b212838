/** make bench: every benchmark in turn; each writes its own section of BENCHMARKS.md. */
import { runPublishingBench } from './publishing.js';
import { runRestProfile } from './rest-profile.js';
import { runRestPostsBench } from './rest-posts.js';
import { runMemoryBench } from './memory.js';
import { runScaleOutBench } from './scale-out.js';
import { runSteadyBench } from './steady.js';
import { runInsightsBench } from './insights.js';

await runRestPostsBench();
await runRestProfile();
await runPublishingBench();
await runSteadyBench();
await runMemoryBench();
await runScaleOutBench();
await runInsightsBench();
