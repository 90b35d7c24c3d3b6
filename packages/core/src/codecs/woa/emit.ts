/** Writes canonical agents as one WoA document (`woa_version` "1"), with the loss of every value that changes. */
import { IssueCollector } from '../../issues.js';
import { isObject, jsonEqual, setOwn } from '../../json/values.js';
import type { Agent, JsonObject, JsonSchema, Operation } from '../../model/agent.js';
import type { EmitOptions, Loss } from '../codec.js';
import type { EmitOne } from '../define.js';
import { trimEdges } from '../urls.js';
import { type AgentTransports, TransportTable } from './emit-transports.js';
import {
  AGENT_FIELDS,
  AGENT_ID_PATTERN,
  DEFAULT_OPERATION,
  DOCUMENT_EXTRAS_KEY,
  DOCUMENT_FIELDS,
  OPERATION_FIELDS,
  WOA_VERSION,
} from './fields.js';
import { toWoaSchema } from './schemas.js';

const OBJECT_SCHEMA: JsonObject = { type: 'object' };
const ANY_SCHEMA: JsonObject = {};

export function emitWoa(agents: readonly Agent[], options: EmitOptions): EmitOne {
  const issues = new IssueCollector('WoA');
  const losses: Loss[] = [];
  const ids = assignIds(agents, issues, losses);

  // Bindings the agents carry claim transport names first; hosted fallbacks fit around them.
  const table = new TransportTable();
  const plans = agents.map((agent, index) => table.planAgent(agent, losses, issues, `/agents/${index}`));
  agents.forEach((agent, index) => {
    const plan = plans[index]!;
    if (plan.names.length > 0) return;
    const hosted = table.planHostedRest(options.baseUrl);
    if ('error' in hosted) {
      issues.error(
        `/agents/${index}/transports`,
        'woa.emit.no-transport',
        `Agent "${agent.id}" ${hosted.error}`,
      );
    } else plan.names.push(hosted.name);
  });

  const documentExtras = pickDocumentExtras(agents);
  const agentDocuments = agents.map((agent, index) =>
    emitAgent(agent, ids[index]!, plans[index]!, `/agents/${index}`, {
      issues,
      losses,
      documentExtras,
    }),
  );
  const document: JsonObject = {
    woa_version: WOA_VERSION,
    agents: agentDocuments,
    transports: table.toDocument(),
  };
  if (documentExtras !== undefined) {
    for (const [key, value] of Object.entries(documentExtras)) setOwn(document, key, value);
  }
  return { document, losses, issues: issues.issues };
}

interface EmitContext {
  issues: IssueCollector;
  losses: Loss[];
  documentExtras: JsonObject | undefined;
}

/** WoA ids are ASCII tokens, unique in the document; others are rewritten (and reported) rather than refused. */
function assignIds(agents: readonly Agent[], issues: IssueCollector, losses: Loss[]): string[] {
  const used = new Set<string>();
  return agents.map((agent, index) => {
    let id = AGENT_ID_PATTERN.test(agent.id) ? agent.id : toAgentIdToken(agent.id);
    for (let n = 2; used.has(id); n++) id = `${toAgentIdToken(agent.id)}-${n}`;
    used.add(id);
    if (id !== agent.id) {
      const message = `WoA agent ids are unique tokens of ASCII letters, digits, "-" and "_"; "${agent.id}" is written as "${id}".`;
      losses.push({ agent: agent.id, field: 'id', message });
      issues.warning(`/agents/${index}/id`, 'woa.emit.agent-id', message);
    }
    return id;
  });
}

function toAgentIdToken(id: string): string {
  const token = trimEdges(
    id
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9_-]+/g, '-'),
    '-',
  );
  return token === '' ? 'agent' : token;
}

/** Document-level fields a parsed agent kept; the first agent that has them restores them. */
function pickDocumentExtras(agents: readonly Agent[]): JsonObject | undefined {
  for (const agent of agents) {
    const kept = agent.extensions?.['woa']?.[DOCUMENT_EXTRAS_KEY];
    if (!isObject(kept)) continue;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(kept)) if (!DOCUMENT_FIELDS.has(key)) setOwn(out, key, value);
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return undefined;
}

function emitAgent(
  agent: Agent,
  id: string,
  transports: AgentTransports,
  pointer: string,
  context: EmitContext,
): JsonObject {
  const out: JsonObject = { id, name: agent.name, description: agent.description };
  if (agent.version !== undefined) out['version'] = agent.version;
  if (agent.capabilities !== undefined) out['capabilities'] = [...agent.capabilities];
  const operations = agent.operations;
  const first = operations[0];
  const inputs = schemaOf(agent, first, 'input', `${pointer}/inputs`, context) ?? OBJECT_SCHEMA;
  const outputs = schemaOf(agent, first, 'output', `${pointer}/outputs`, context) ?? OBJECT_SCHEMA;
  out['inputs'] = inputs;
  out['outputs'] = outputs;
  out['transports'] = transports.names;
  if (!isImpliedDefault(operations)) {
    out['operations'] = emitOperations(agent, { inputs, outputs }, `${pointer}/operations`, context);
  }

  const own = agent.extensions?.['woa'];
  const ownRestored: JsonObject = {};
  if (own !== undefined) {
    for (const [key, value] of Object.entries(own)) {
      if (key === DOCUMENT_EXTRAS_KEY || AGENT_FIELDS.has(key)) continue;
      setOwn(out, key, value);
      setOwn(ownRestored, key, value);
    }
    // What parsing the document gives back under extensions.woa; anything else changed.
    const readBack: JsonObject = ownRestored;
    if (context.documentExtras !== undefined) readBack[DOCUMENT_EXTRAS_KEY] = context.documentExtras;
    const expected = Object.keys(readBack).length > 0 ? readBack : undefined;
    if (!jsonEqual(own, expected)) {
      context.losses.push({
        agent: agent.id,
        field: 'extensions.woa',
        message:
          'Some WoA extension fields cannot be restored as they were: fields named like WoA agent fields are not written, and document-level fields are shared by all agents of a document.',
      });
    }
  }
  return out;
}

/** A lone `default` operation with nothing of its own is what WoA implies when `operations` is absent. */
function isImpliedDefault(operations: readonly Operation[]): boolean {
  if (operations.length === 0) return true;
  if (operations.length > 1) return false;
  const op = operations[0]!;
  const extensions = op.extensions?.['woa'];
  return (
    op.name === DEFAULT_OPERATION &&
    op.description === undefined &&
    (extensions === undefined || Object.keys(extensions).length === 0)
  );
}

function emitOperations(
  agent: Agent,
  agentLevel: { inputs: JsonObject; outputs: JsonObject },
  pointer: string,
  context: EmitContext,
): JsonObject[] {
  const seen = new Set<string>();
  return agent.operations.map((op, index) => {
    const at = `${pointer}/${index}`;
    if (op.name.trim() === '') {
      context.issues.error(
        `${at}/name`,
        'woa.emit.operation-name',
        `Agent "${agent.id}" has an operation without a name.`,
      );
    } else if (seen.has(op.name)) {
      context.issues.error(
        `${at}/name`,
        'woa.emit.operation-name',
        `Agent "${agent.id}" has two operations named "${op.name}"; WoA operation names are unique within an agent.`,
      );
    }
    seen.add(op.name);
    // Descriptions are required in WoA; the title or name stands in for a missing one.
    const out: JsonObject = { name: op.name, description: op.description ?? op.title ?? op.name };
    if (index > 0) {
      // An operation without a schema would inherit the agent-level one (the first operation's): `{}` says
      // it has none.
      const inputs = schemaOf(agent, op, 'input', `${at}/inputs`, context) ?? ANY_SCHEMA;
      if (!jsonEqual(inputs, agentLevel.inputs)) out['inputs'] = inputs;
      const outputs = schemaOf(agent, op, 'output', `${at}/outputs`, context) ?? ANY_SCHEMA;
      if (!jsonEqual(outputs, agentLevel.outputs)) out['outputs'] = outputs;
    }
    const extensions = op.extensions?.['woa'];
    if (extensions !== undefined) {
      let restored: JsonObject | undefined;
      for (const [key, value] of Object.entries(extensions)) {
        if (OPERATION_FIELDS.has(key)) continue;
        setOwn(out, key, value);
        restored ??= {};
        setOwn(restored, key, value);
      }
      if (!jsonEqual(extensions, restored)) {
        context.losses.push({
          agent: agent.id,
          field: `operations[${op.name}].extensions.woa`,
          message: `WoA operation fields cannot be overridden by extension fields of the same name (${Object.keys(extensions).join(', ')}).`,
        });
      }
    }
    return out;
  });
}

/** The WoA form of an operation's schema, reporting a loss when it changes and an error when it stays invalid. */
function schemaOf(
  agent: Agent,
  op: Operation | undefined,
  key: 'input' | 'output',
  pointer: string,
  context: EmitContext,
): JsonObject | undefined {
  const schema: JsonSchema | undefined = op?.[key];
  if (op === undefined || schema === undefined) return undefined;
  const converted = toWoaSchema(schema);
  if (converted.changed) {
    context.losses.push({
      agent: agent.id,
      field: `operations[${op.name}].${key}`,
      message: `WoA schemas are JSON Schema 2020-12 objects; the ${key} schema of "${op.name}" was rewritten (boolean schema or older $schema dialect).`,
    });
  }
  if (converted.problem !== undefined) {
    context.issues.error(
      pointer,
      'woa.emit.schema',
      `The ${key} schema of "${op.name}": ${converted.problem}`,
    );
  }
  return converted.schema;
}
