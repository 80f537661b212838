/** make bench: every benchmark in turn; each writes its own section of BENCHMARKS.md. */
import { runPublishingBench } from './publishing.js';
import { runRestPostsBench } from './rest-posts.js';

await runRestPostsBench();
await runPublishingBench();
