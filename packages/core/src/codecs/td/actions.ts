/**
 * Reading TD actions as canonical operations: any Thing's actions, not only AgentCards'. The TD's own terms map
 * directly (title, description, input, output, safe, idempotent, synchronous, forms); the ADR-0015 terms are read
 * under our `agentry:` prefix and under the ADR's `trails:` prefix (ours win when both are present); every other
 * member is kept in the operation's `extensions.td`.
 */
import { joinPointer } from '../../json/pointer.js';
import { isObject, setOwn } from '../../json/values.js';
import type {
  Binding,
  IdempotencyContract,
  JsonObject,
  JsonValue,
  Operation,
  OperationExample,
} from '../../model/agent.js';
import { fromDataSchema } from './data-schema.js';
import { readActionForms } from './forms.js';
import { type ReadContext, SECTION } from './read-context.js';
import type { OperationTerm } from './terms.js';

const SENSITIVITIES = new Set(['standard', 'destructive', 'irreversible']);

export interface ReadActions {
  operations: Operation[];
  bindings: Binding[];
}

export function readActions(actions: JsonValue | undefined, ctx: ReadContext): ReadActions {
  const out: ReadActions = { operations: [], bindings: [] };
  if (actions === undefined) return out;
  if (!isObject(actions)) {
    if (ctx.reportShape)
      ctx.issues.error('/actions', 'td.type', '"actions" must be an object.', SECTION.thing);
    return out;
  }
  for (const name of Object.keys(actions)) {
    const action = actions[name];
    if (!isObject(action)) {
      if (ctx.reportShape)
        ctx.issues.error(
          joinPointer('/actions', name),
          'td.type',
          'An action must be an object.',
          SECTION.action,
        );
      continue;
    }
    const { operation, bindings } = readAction(name, action, ctx);
    out.operations.push(operation);
    out.bindings.push(...bindings);
  }
  return out;
}

function readAction(
  name: string,
  action: JsonObject,
  ctx: ReadContext,
): { operation: Operation; bindings: Binding[] } {
  const op: Operation = { name };
  const extension: JsonObject = {};
  // The term chosen for each canonical field: ours over the ADR's.
  let chosen: Map<keyof Operation, ChosenTerm> | undefined;
  let dctDescription: { key: string; value: JsonValue } | undefined;
  let bindings: Binding[] = [];

  // Pointers are built only when something is reported: building one per member costs more than reading it.
  for (const key of Object.keys(action)) {
    const value = action[key]!;
    switch (key) {
      case 'title':
        if (typeof value === 'string') op.title = value;
        continue;
      case 'description':
        if (typeof value === 'string') op.description = value;
        continue;
      case 'input':
      case 'output':
        if (isObject(value)) op[key] = fromDataSchema(value);
        else if (ctx.reportShape)
          ctx.issues.error(
            joinPointer('/actions', name, key),
            'td.type',
            `"${key}" must be a data schema object.`,
            SECTION.dataSchema,
          );
        continue;
      case 'safe':
      case 'idempotent':
        if (typeof value === 'boolean') op[key] = value;
        continue;
      case 'synchronous':
        if (typeof value === 'boolean') op.executionModel = value ? 'sync' : 'async';
        continue;
      case 'forms': {
        const read = readActionForms(name, value, ctx);
        bindings = read.bindings;
        if (read.unbound !== undefined) extension['forms'] = { unbound: read.unbound };
        continue;
      }
    }
    const known = ctx.terms.known(key);
    switch (known?.kind) {
      case 'operation': {
        chosen ??= new Map();
        const previous = chosen.get(known.term.field);
        if (previous === undefined || (previous.source === 'trails' && known.source === 'agentry')) {
          if (previous !== undefined) setOwn(extension, previous.key, action[previous.key]);
          chosen.set(known.term.field, { key, term: known.term, source: known.source });
        } else setOwn(extension, key, value);
        break;
      }
      case 'softwareVersion':
        if (typeof value === 'string') op.version = value;
        else typeError(name, key, 'a string', ctx);
        break;
      case 'revisionOf': {
        const revised = typeof value === 'string' ? value : isObject(value) ? value['@id'] : undefined;
        if (typeof revised === 'string') op.revisionOf = revised;
        else typeError(name, key, 'a string (the IRI of the revised capability)', ctx);
        break;
      }
      case 'dctDescription':
        dctDescription = { key, value };
        break;
      default:
        setOwn(extension, key, value);
    }
  }

  if (chosen !== undefined)
    for (const { key, term } of chosen.values()) readTerm(op, term, action[key]!, name, key, ctx);
  if (dctDescription !== undefined) {
    // The ADR binds both description terms to one value; keep a differing dct:description rather than lose it.
    const { key, value } = dctDescription;
    if (op.description === undefined && typeof value === 'string') op.description = value;
    else if (value !== op.description) setOwn(extension, key, value);
  }
  if (Object.keys(extension).length > 0) op.extensions = { td: extension };
  return { operation: op, bindings };
}

interface ChosenTerm {
  key: string;
  term: OperationTerm;
  source: 'agentry' | 'trails';
}

/** Sets `op[term.field]` from a term's value, or records why the value cannot be read. */
function readTerm(
  op: Operation,
  term: OperationTerm,
  value: JsonValue,
  action: string,
  key: string,
  ctx: ReadContext,
): void {
  const target = op as unknown as Record<string, JsonValue | IdempotencyContract | OperationExample[]>;
  switch (term.kind) {
    case 'string':
      if (typeof value === 'string') target[term.field] = value;
      else typeError(action, key, 'a string', ctx);
      return;
    case 'boolean':
      if (typeof value === 'boolean') target[term.field] = value;
      else typeError(action, key, 'a boolean', ctx);
      return;
    case 'json':
      if (isJson(value)) target[term.field] = value;
      else typeError(action, key, 'a JSON value', ctx);
      return;
    case 'jsonList': {
      const list = Array.isArray(value) ? value : [value];
      if (list.every(isJson)) target[term.field] = list;
      else typeError(action, key, 'a list of JSON values', ctx);
      return;
    }
    case 'stringList': {
      const list = typeof value === 'string' ? [value] : value;
      if (Array.isArray(list) && list.every((item) => typeof item === 'string')) target[term.field] = list;
      else typeError(action, key, 'a string or an array of strings', ctx);
      return;
    }
    case 'sensitivity':
      if (typeof value === 'string' && SENSITIVITIES.has(value)) target[term.field] = value;
      else
        ctx.issues.error(
          joinPointer('/actions', action, key),
          'td.term.value',
          `"${key}" must be one of "standard", "destructive", "irreversible".`,
        );
      return;
    case 'examples': {
      const examples = readExamples(value);
      if (examples !== undefined) target[term.field] = examples;
      else typeError(action, key, 'an array of {text?, input?, output?} objects', ctx);
      return;
    }
    case 'idempotency': {
      const contract = readIdempotency(value);
      if (contract !== undefined) target[term.field] = contract;
      else typeError(action, key, 'an object {supported: boolean, keyField?, header?, window?}', ctx);
      return;
    }
  }
}

function readExamples(value: JsonValue): OperationExample[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: OperationExample[] = [];
  for (const item of value) {
    if (!isObject(item)) return undefined;
    const example: OperationExample = {};
    for (const [key, member] of Object.entries(item)) {
      if (key === 'text' && typeof member === 'string') example.text = member;
      else if ((key === 'input' || key === 'output') && isJson(member)) example[key] = member;
      else return undefined;
    }
    out.push(example);
  }
  return out;
}

function readIdempotency(value: JsonValue): IdempotencyContract | undefined {
  if (!isObject(value) || typeof value['supported'] !== 'boolean') return undefined;
  const contract: IdempotencyContract = { supported: value['supported'] };
  for (const [key, member] of Object.entries(value)) {
    if (key === 'supported') continue;
    if ((key === 'keyField' || key === 'header' || key === 'window') && typeof member === 'string')
      contract[key] = member;
    else return undefined;
  }
  return contract;
}

/** Reports a term `key` of action `action` whose value has the wrong type. */
function typeError(action: string, key: string, expected: string, ctx: ReadContext): void {
  ctx.issues.error(joinPointer('/actions', action, key), 'td.term.type', `"${key}" must be ${expected}.`);
}

/** True for a JSON value all the way down (documents from code may hold anything). */
function isJson(value: unknown): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (isObject(value)) return Object.values(value).every(isJson);
  return false;
}
