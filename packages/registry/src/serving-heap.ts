/**
 * The V8 setting for a process that serves a registry: `agentry serve` applies it once, before the registry opens
 * (the benches that measure a served registry apply it the same way).
 *
 * Allocation-site pretenuring is turned off. V8 starts allocating an allocation site's objects straight into the old
 * generation once most of them have survived young; while a large registry opens, the code that reads rows and builds
 * the indexes keeps what it makes, and its sites stay pretenured afterwards, so each search's rows, matches and hits
 * turn into old garbage that only a full mark-compact takes back. At 1,000,000 agents that meant a mark-compact every
 * ~2.6 s of searching, and the searches running while it marked a heap of ~310 MB took 40-110 ms instead of ~20.
 * Without pretenuring they die young: a mark-compact every ~5 s, and the searches beside it 40-60 ms
 * (docs/search.md, "Garbage collection at a million agents"). The flag is read when V8 decides where to allocate,
 * so setting it at run time takes effect; Node does not accept it in NODE_OPTIONS.
 */
import { setFlagsFromString } from 'node:v8';

let tuned = false;

/** Sets the serving process's V8 flags; a second call does nothing. Call it before the registry opens. */
export function tuneHeapForServing(): void {
  if (tuned) return;
  tuned = true;
  setFlagsFromString('--no-allocation-site-pretenuring');
}
