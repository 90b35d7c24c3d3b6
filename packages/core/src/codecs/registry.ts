/** Every codec, by format name, and format detection by a document's keys (DESIGN.md §3). */
import type { FormatName } from '../model/agent.js';
import { a2aCodec } from './a2a/index.js';
import { agentJsonCodec } from './agent-json/index.js';
import { agentsJsonCodec } from './agents-json/index.js';
import { aidipCodec } from './aidip/index.js';
import { awpCodec } from './awp/index.js';
import type { Codec } from './codec.js';
import { mcpCodec } from './mcp/index.js';
import { tdCodec } from './td/index.js';
import { woaCodec } from './woa/index.js';

export const codecs: Readonly<Record<FormatName, Codec>> = {
  woa: woaCodec,
  awp: awpCodec,
  a2a: a2aCodec,
  'agent-json': agentJsonCodec,
  'agents-json': agentsJsonCodec,
  td: tdCodec,
  aidip: aidipCodec,
  mcp: mcpCodec,
};

/**
 * The order detection asks codecs in: explicit version keys first (they cannot be mistaken), then the JSON-LD
 * context of TDs, then shapes that are told apart by their keys' types.
 */
export const DETECTION_ORDER: readonly FormatName[] = [
  'woa',
  'awp',
  'td',
  'agents-json',
  'a2a',
  'agent-json',
  'mcp',
  'aidip',
];

export function getCodec(format: FormatName): Codec {
  return codecs[format];
}

/** The format of `document` judged by its keys, or undefined when no codec recognises it. */
export function detectFormat(document: unknown): FormatName | undefined {
  return DETECTION_ORDER.find((format) => codecs[format].detect(document));
}
