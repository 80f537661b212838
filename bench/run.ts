/** make bench: every benchmark in turn; each writes its own section of BENCHMARKS.md. */
import { runRestPostsBench } from './rest-posts.js';

await runRestPostsBench();
