/**
 * Shared scaffolding for codecs: wraps a format's parse and emit functions with the never-throw guarantee, the
 * loss report computed from what the format carries, and the one-document-per-agent rule of single-agent formats.
 */
import { hasErrors, IssueCollector, type ValidationIssue } from '../issues.js';
import { depthIssue, documentPathPastDepth } from '../json/depth.js';
import type { Agent, FormatName, JsonObject } from '../model/agent.js';
import type { Codec, EmitOptions, EmitResult, Loss, ParseOptions, ParseResult } from './codec.js';
import { type CarrySpec, compileCarrySpec, lossesFor } from './losses.js';

export interface EmitOne {
  document: JsonObject;
  /** Losses beyond what the carry spec predicts (a value that changes shape, say). */
  losses?: Loss[];
  issues?: ValidationIssue[];
}

export interface CodecDefinition {
  format: FormatName;
  title: string;
  specName: string;
  mediaType: string;
  signature: string;
  carries: CarrySpec;
  detect(document: unknown): boolean;
  /** Reads the document, recording issues; may throw only on bugs (the wrapper turns that into an issue). */
  parse(document: unknown, issues: IssueCollector, options: ParseOptions): Agent[];
  /** `many`-cardinality formats: all agents into one document. */
  emitMany?(agents: readonly Agent[], options: EmitOptions): EmitOne;
  /** `one`-cardinality formats: one agent into one document. */
  emitOne?(agent: Agent, options: EmitOptions): EmitOne;
}

export function defineCodec(definition: CodecDefinition): Codec {
  const carries = compileCarrySpec(definition.carries);
  const cardinality = definition.emitMany ? 'many' : 'one';
  return {
    format: definition.format,
    title: definition.title,
    specName: definition.specName,
    mediaType: definition.mediaType,
    signature: definition.signature,
    carries: definition.carries,
    cardinality,
    detect(document) {
      try {
        return definition.detect(document);
      } catch {
        return false;
      }
    },
    parse(document, options = {}): ParseResult {
      const issues = new IssueCollector(definition.specName);
      let agents: Agent[] = [];
      // Parsers recurse into the document: one nested past the limit is refused before they start.
      const tooDeep = documentPathPastDepth(document);
      if (tooDeep !== undefined) {
        const issue = depthIssue(tooDeep);
        return { format: definition.format, agents, issues: [issue], valid: false };
      }
      try {
        agents = definition.parse(document, issues, options);
      } catch (error) {
        issues.error(
          '',
          `${definition.format}.internal`,
          `The ${definition.title} could not be read: ${error instanceof Error ? error.message : String(error)}.`,
        );
      }
      return { format: definition.format, agents, issues: issues.issues, valid: !hasErrors(issues.issues) };
    },
    emit(agents, options = {}): EmitResult {
      const losses: Loss[] = [];
      for (const agent of agents) losses.push(...lossesFor(agent, carries, definition.title));
      const results: EmitOne[] = definition.emitMany
        ? [definition.emitMany(agents, options)]
        : agents.map((agent) => definition.emitOne!(agent, options));
      const issues: ValidationIssue[] = [];
      if (results.length === 0) {
        issues.push({
          severity: 'error',
          pointer: '',
          code: `${definition.format}.emit.no-agents`,
          message: `Nothing to write: a ${definition.title} describes one agent, and none was given.`,
        });
        return { document: {}, losses, issues };
      }
      for (const result of results) {
        for (const loss of result.losses ?? []) {
          if (!losses.some((l) => l.agent === loss.agent && l.field === loss.field)) losses.push(loss);
        }
        issues.push(...(result.issues ?? []));
      }
      dropLossesInsideLostOperations(losses);
      const documents = results.map((result) => result.document);
      const document = cardinality === 'many' || documents.length === 1 ? documents[0]! : documents;
      return { document, losses, issues };
    },
  };
}

/**
 * When a whole operation is lost (`operations[x]`), its fields are not reported again one by one: the report names
 * what did not survive, and the diff of an operation that is gone is the operation itself.
 */
function dropLossesInsideLostOperations(losses: Loss[]): void {
  const lostOperations = new Set(
    losses
      .filter((loss) => /^operations\[[^\]]*\]$/.test(loss.field))
      .map((loss) => `${loss.agent}\u0000${loss.field}`),
  );
  if (lostOperations.size === 0) return;
  for (let i = losses.length - 1; i >= 0; i--) {
    const loss = losses[i]!;
    const match = /^(operations\[[^\]]*\])\./.exec(loss.field);
    if (match && lostOperations.has(`${loss.agent}\u0000${match[1]}`)) losses.splice(i, 1);
  }
}
