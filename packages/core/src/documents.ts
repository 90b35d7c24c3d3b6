/**
 * Reading and converting whole documents: detect the format by the document's keys (or take the one given), parse
 * it into canonical agents, and emit it in another format with a loss report. This is what `agentry validate` and
 * `agentry convert` are built on.
 */
import type { EmitOptions, EmitResult, ParseOptions } from './codecs/codec.js';
import { codecs, DETECTION_ORDER, detectFormat } from './codecs/registry.js';
import { hasErrors, type ValidationIssue } from './issues.js';
import { parseJsonText } from './json/text.js';
import type { Agent, FormatName } from './model/agent.js';

export interface ReadOptions extends ParseOptions {
  /** Read the document as this format instead of detecting it. */
  format?: FormatName;
}

export interface DocumentResult {
  /** The format the document was read as; absent when it could not be recognised. */
  format?: FormatName;
  agents: Agent[];
  issues: ValidationIssue[];
  valid: boolean;
}

/**
 * Reads a parsed JSON value. Never throws.
 *
 * @example
 * ```ts
 * import { readDocument } from '@agentry/core';
 *
 * const card = { name: 'Planner', description: 'Plans trips.', url: 'https://planner.example.com/a2a', version: '1.0.0',
 *   protocolVersion: '0.3.0', preferredTransport: 'JSONRPC', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
 *   skills: [{ id: 'plan', name: 'Plan a trip', description: 'Plans a trip.', tags: ['travel'] }] };
 * const { format, agents, issues, valid } = readDocument(card); // format 'a2a', detected by the card's keys
 * if (!valid) for (const issue of issues) console.error(issue.pointer, issue.message, issue.spec);
 * console.log(format, agents[0]?.operations.map((operation) => operation.name));
 * ```
 */
export function readDocument(document: unknown, options: ReadOptions = {}): DocumentResult {
  const format = options.format ?? detectFormat(document);
  if (format === undefined) {
    return { agents: [], issues: [unrecognisedIssue(document)], valid: false };
  }
  return codecs[format].parse(document, options);
}

/**
 * Reads JSON text; a syntax error becomes an issue with its line and column. Never throws.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { readDocumentText } from '@agentry/core';
 *
 * const result = readDocumentText(readFileSync('woa.json', 'utf8'), { format: 'woa' }); // or detect it: no format
 * for (const issue of result.issues) console.log(issue.severity, issue.pointer, issue.code, issue.message);
 * ```
 */
export function readDocumentText(text: string, options: ReadOptions = {}): DocumentResult {
  const json = parseJsonText(text);
  if (!json.ok) {
    const result: DocumentResult = { agents: [], issues: [json.issue], valid: false };
    if (options.format !== undefined) result.format = options.format;
    return result;
  }
  return readDocument(json.value, options);
}

export interface ConvertOptions extends ReadOptions, EmitOptions {
  /** Only convert these agents (by id). */
  agents?: readonly string[];
}

export interface ConvertResult {
  /** The source document as read; when it has errors, nothing is emitted. */
  source: DocumentResult;
  output?: EmitResult & { format: FormatName };
}

/**
 * Converts a parsed JSON value to `to`. Emits nothing when the source has errors.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { convertDocument } from '@agentry/core';
 *
 * const woa: unknown = JSON.parse(readFileSync('woa.json', 'utf8'));
 * const { source, output } = convertDocument(woa, 'td', { baseUrl: 'https://agents.example.com' });
 * if (output === undefined) throw new Error(source.issues.map((issue) => issue.message).join('\n'));
 * console.log(output.document); // the Thing Description(s)
 * for (const loss of output.losses) console.warn(`${loss.agent}: ${loss.field} is not carried: ${loss.message}`);
 * ```
 */
export function convertDocument(
  document: unknown,
  to: FormatName,
  options: ConvertOptions = {},
): ConvertResult {
  return convertRead(readDocument(document, options), to, options);
}

/** Converts JSON text to `to`. Emits nothing when the source has errors. */
export function convertDocumentText(
  text: string,
  to: FormatName,
  options: ConvertOptions = {},
): ConvertResult {
  return convertRead(readDocumentText(text, options), to, options);
}

function convertRead(source: DocumentResult, to: FormatName, options: ConvertOptions): ConvertResult {
  if (hasErrors(source.issues)) return { source };
  let agents = source.agents;
  if (options.agents !== undefined) {
    const wanted = new Set(options.agents);
    agents = agents.filter((agent) => wanted.has(agent.id));
    const missing = [...wanted].filter((id) => !agents.some((agent) => agent.id === id));
    if (missing.length > 0) {
      const known = source.agents.map((agent) => agent.id).join(', ') || 'none';
      source = {
        ...source,
        valid: false,
        issues: [
          ...source.issues,
          {
            severity: 'error',
            pointer: '',
            code: 'convert.unknown-agent',
            message: `No agent with id ${missing.map((id) => `"${id}"`).join(', ')} in the document (agents: ${known}).`,
          },
        ],
      };
      return { source };
    }
  }
  const emitOptions: EmitOptions = {};
  if (options.baseUrl !== undefined) emitOptions.baseUrl = options.baseUrl;
  return { source, output: { format: to, ...codecs[to].emit(agents, emitOptions) } };
}

function unrecognisedIssue(document: unknown): ValidationIssue {
  const expected = DETECTION_ORDER.map((format) => `${format} (${codecs[format].signature})`).join('; ');
  const what =
    typeof document === 'object' && document !== null && !Array.isArray(document)
      ? `an object with keys ${
          Object.keys(document)
            .slice(0, 8)
            .map((key) => `"${key}"`)
            .join(', ') || '(none)'
        }`
      : Array.isArray(document)
        ? 'an array'
        : `a ${document === null ? 'null' : typeof document}`;
  return {
    severity: 'error',
    pointer: '',
    code: 'format.unrecognised',
    message: `Not a recognised agent description: the document is ${what}. Checked against: ${expected}. Use --format to read it as a given format.`,
  };
}
