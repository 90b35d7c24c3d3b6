/**
 * Our ontology (Turtle) and JSON-LD context, exactly as @agentry/core ships them (`ontology/`), so the published
 * vocabulary and the one the codecs write are the same files.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface OntologyFiles {
  turtle: Uint8Array;
  context: Uint8Array;
}

let loaded: OntologyFiles | undefined;

export function ontologyFiles(): OntologyFiles {
  if (loaded === undefined) {
    const require = createRequire(import.meta.url);
    loaded = {
      turtle: readFileSync(require.resolve('@agentry/core/ontology/agentry.ttl')),
      context: readFileSync(require.resolve('@agentry/core/ontology/agentry.context.jsonld')),
    };
  }
  return loaded;
}
