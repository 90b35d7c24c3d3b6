/** Reads a WoA document (draft-gaikwad-woa-00 §4) into canonical agents, checking every MUST of the draft. */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { copyJson } from '../../json/values.js';
import type { Agent, Binding, JsonObject, JsonSchema, JsonValue, Operation } from '../../model/agent.js';
import type { ParseOptions } from '../codec.js';
import { nativeProvenance } from '../provenance.js';
import {
  AGENT_FIELDS,
  AGENT_ID_PATTERN,
  DEFAULT_OPERATION,
  DOCUMENT_EXTRAS_KEY,
  DOCUMENT_FIELDS,
  OPERATION_FIELDS,
  SECTION,
  WOA_VERSION,
} from './fields.js';
import { readSchema } from './schemas.js';
import { copyBinding, readTransports, type TransportEntry } from './transports.js';

interface DocumentContext {
  issues: IssueCollector;
  options: ParseOptions;
  /** Undefined when the document has no usable `transports` object (already reported). */
  transports: Map<string, TransportEntry> | undefined;
  /** Unknown top-level fields, copied into every agent so that they survive a round trip. */
  documentExtras: JsonObject | undefined;
  seenIds: Set<string>;
}

export function parseWoa(document: unknown, issues: IssueCollector, options: ParseOptions): Agent[] {
  const root = ObjectReader.of(document, '', issues, 'woa', 'A WoA document', SECTION.document);
  if (root === undefined) return [];
  checkVersion(root);
  const agentValues = root.array('agents', { required: true });
  const transportsValue = root.object('transports', { required: true });
  const context: DocumentContext = {
    issues,
    options,
    transports:
      transportsValue === undefined
        ? undefined
        : readTransports(transportsValue, root.at('transports'), issues),
    documentExtras: root.rest(DOCUMENT_FIELDS),
    seenIds: new Set(),
  };
  const agents: Agent[] = [];
  agentValues?.forEach((value, index) => {
    const agent = readAgent(value, root.at('agents') + `/${index}`, context);
    if (agent !== undefined) agents.push(agent);
  });
  return agents;
}

function checkVersion(root: ObjectReader): void {
  if (!root.has('woa_version')) {
    root.string('woa_version', { required: true });
    return;
  }
  const version = root.raw('woa_version');
  if (version !== WOA_VERSION) {
    root.issues.error(
      root.at('woa_version'),
      'woa.version',
      `"woa_version" must be the string "1" for this version of WoA, got ${JSON.stringify(version)}.`,
      SECTION.document,
    );
  }
}

function readAgent(value: JsonValue, pointer: string, context: DocumentContext): Agent | undefined {
  const { issues } = context;
  const reader = ObjectReader.of(value, pointer, issues, 'woa', 'An agent', SECTION.agent);
  if (reader === undefined) return undefined;
  const id = readAgentId(reader, context);
  const name = reader.string('name', { required: true });
  const description = reader.string('description', { required: true });
  const version = reader.string('version');
  const capabilities = reader.stringArray('capabilities');
  const inputs = readRequiredSchema(reader, 'inputs');
  const outputs = readRequiredSchema(reader, 'outputs');
  const transportNames = readAgentTransports(reader, context);
  const operations = readOperations(reader, inputs, outputs);
  if (id === undefined) return undefined;

  const agent: Agent = {
    id,
    name: name ?? id,
    description: description ?? '',
    operations,
    bindings: bindingsFor(transportNames, context),
    provenance: nativeProvenance('woa', context.options),
  };
  if (version !== undefined) agent.version = version;
  if (capabilities !== undefined) agent.capabilities = capabilities;
  const extensions = agentExtensions(reader, context);
  if (extensions !== undefined) agent.extensions = { woa: extensions };
  return agent;
}

function readAgentId(reader: ObjectReader, context: DocumentContext): string | undefined {
  const id = reader.string('id', { required: true });
  if (id === undefined) return undefined;
  if (!AGENT_ID_PATTERN.test(id)) {
    reader.issues.error(
      reader.at('id'),
      'woa.agent-id.invalid',
      `Agent id "${id}" must consist of ASCII letters, digits, "-" and "_" only (agent-id = 1*( ALPHA / DIGIT / "-" / "_" )).`,
      SECTION.agent,
    );
  }
  if (context.seenIds.has(id)) {
    reader.issues.error(
      reader.at('id'),
      'woa.agent-id.duplicate',
      `Agent id "${id}" is already used by an earlier agent; ids must be unique within a WoA document.`,
      SECTION.agent,
    );
    // The canonical model keeps ids unique within a document: the later agent is reported, not returned.
    return undefined;
  }
  context.seenIds.add(id);
  return id;
}

function readRequiredSchema(reader: ObjectReader, key: 'inputs' | 'outputs'): JsonSchema | undefined {
  const value = reader.raw(key);
  if (value === undefined) {
    reader.object(key, { required: true, section: SECTION.agent });
    return undefined;
  }
  return readSchema(value, reader.at(key), `"${key}"`, reader.issues);
}

/** The transport names the agent lists, each checked against the top-level `transports`; duplicates dropped. */
function readAgentTransports(reader: ObjectReader, context: DocumentContext): string[] {
  reader.stringArray('transports', { required: true });
  const raw = reader.raw('transports');
  const unique: string[] = [];
  if (Array.isArray(raw) && raw.length === 0) {
    reader.issues.warning(
      reader.at('transports'),
      'woa.transports.empty',
      'The agent lists no transports, so no client can invoke it; name at least one key of the top-level "transports".',
      SECTION.agent,
    );
  }
  (Array.isArray(raw) ? raw : []).forEach((item, index) => {
    if (typeof item !== 'string') return;
    if (context.transports !== undefined && !context.transports.has(item)) {
      reader.issues.error(
        `${reader.at('transports')}/${index}`,
        'woa.transport.unknown',
        `Transport "${item}" is not defined in the document's top-level "transports" object.`,
        SECTION.agent,
      );
    }
    if (!unique.includes(item)) unique.push(item);
  });
  return unique;
}

function readOperations(
  reader: ObjectReader,
  inputs: JsonSchema | undefined,
  outputs: JsonSchema | undefined,
): Operation[] {
  const values = reader.array('operations');
  if (values === undefined) {
    // No `operations`: a single unnamed operation, which the envelope calls "default" (§5.1).
    const op: Operation = { name: DEFAULT_OPERATION };
    if (inputs !== undefined) op.input = inputs;
    if (outputs !== undefined) op.output = outputs;
    return [op];
  }
  const operations: Operation[] = [];
  const seen = new Set<string>();
  values.forEach((value, index) => {
    const op = ObjectReader.of(
      value,
      reader.at('operations') + `/${index}`,
      reader.issues,
      'woa',
      'An operation',
      SECTION.agent,
    );
    if (op === undefined) return;
    const name = op.text('name', { required: true, section: SECTION.agent });
    const description = op.string('description', { required: true, section: SECTION.agent });
    const inputOverride = op.has('inputs')
      ? readSchema(op.raw('inputs')!, op.at('inputs'), '"inputs"', reader.issues)
      : undefined;
    const outputOverride = op.has('outputs')
      ? readSchema(op.raw('outputs')!, op.at('outputs'), '"outputs"', reader.issues)
      : undefined;
    if (name === undefined) return;
    if (seen.has(name)) {
      reader.issues.error(
        op.at('name'),
        'woa.operation-name.duplicate',
        `Operation "${name}" is listed twice; operation names must be unique within an agent.`,
        SECTION.agent,
      );
      return;
    }
    seen.add(name);
    const operation: Operation = { name };
    if (description !== undefined) operation.description = description;
    // An override of `{}` says the operation takes (or gives) anything: it has no schema of its own.
    const input = isEmptySchema(inputOverride) ? undefined : (inputOverride ?? inputs);
    const output = isEmptySchema(outputOverride) ? undefined : (outputOverride ?? outputs);
    if (input !== undefined) operation.input = input;
    if (output !== undefined) operation.output = output;
    const unknown = op.rest(OPERATION_FIELDS);
    if (unknown !== undefined) operation.extensions = { woa: unknown };
    operations.push(operation);
  });
  return operations;
}

function bindingsFor(names: readonly string[], context: DocumentContext): Binding[] {
  const bindings: Binding[] = [];
  for (const name of names) {
    const binding = context.transports?.get(name)?.binding;
    if (binding !== undefined) bindings.push(copyBinding(binding));
  }
  return bindings;
}

/**
 * Unknown agent fields (such as Appendix A's `authz`), plus the document's extras. Unknown fields of the transport
 * configurations the agent uses are in its bindings' `extensions.woa`.
 */
function agentExtensions(reader: ObjectReader, context: DocumentContext): JsonObject | undefined {
  const own = reader.rest(AGENT_FIELDS);
  const out: JsonObject = own ?? {};
  if (context.documentExtras !== undefined)
    out[DOCUMENT_EXTRAS_KEY] = copyJson(context.documentExtras) as JsonObject;
  return Object.keys(out).length === 0 ? undefined : out;
}

function isEmptySchema(schema: JsonSchema | undefined): boolean {
  return typeof schema === 'object' && Object.keys(schema).length === 0;
}
