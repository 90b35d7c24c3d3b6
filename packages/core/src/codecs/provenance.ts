/** Provenance records for agents read from a document. */
import type { FormatName, Provenance } from '../model/agent.js';
import type { ParseOptions } from './codec.js';

export function nativeProvenance(format: FormatName, options: ParseOptions): Provenance {
  const provenance: Provenance = { sourceFormat: format, origin: 'native' };
  if (options.sourceUrl !== undefined) provenance.sourceUrl = options.sourceUrl;
  if (options.fetchedAt !== undefined) provenance.fetchedAt = options.fetchedAt;
  return provenance;
}
