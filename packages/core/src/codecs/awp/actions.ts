/**
 * Reads `actions` (§9) into canonical operations and the bindings that call them. Under awp_version 0.1 every
 * field the spec requires is an error when missing; from 0.2 on, files in the wild omit some of them (`inputs`,
 * `outputs`, `auth_required`), so a missing field is a warning, and actions may delegate to a protocol with `via`
 * instead of naming an endpoint.
 */
import type { IssueCollector } from '../../issues.js';
import { type FieldOptions, ObjectReader } from '../../json/reader.js';
import type {
  Binding,
  HttpMethod,
  IdempotencyContract,
  JsonObject,
  JsonValue,
  Operation,
  Sensitivity,
} from '../../model/agent.js';
import { declaresProtocol, httpBinding, protocolBinding } from './bindings.js';
import { ACTION_LAYOUT, unknownFields } from './layout.js';
import { childReader, pointerTo } from './pointers.js';
import { EXECUTION_MODELS, HTTP_METHODS, SECTION, SENSITIVITIES } from './rules.js';
import { readInputs, readOutputs } from './schemas.js';
import type { TypeReader } from './type-reader.js';

const STRICT: FieldOptions = { required: true };
const LENIENT: FieldOptions = { required: true, lenient: true };
const OPTIONAL: FieldOptions = {};

export interface ActionContext {
  issues: IssueCollector;
  types: TypeReader;
  /** awp_version 0.2 or later: missing fields are warnings; `via` and `protocols` are read. */
  lenient: boolean;
  /** `https://{domain}`, which relative endpoints resolve against; undefined when the domain is missing or unusable. */
  base: string | undefined;
  /** The domain is missing or empty (already an error): unresolvable endpoints are not reported again. */
  domainMissing: boolean;
  protocols: JsonObject | undefined;
}

export interface ReadActions {
  operations: Operation[];
  bindings: Binding[];
  /** Action id → index in `actions`, for pointers. */
  indexes: Map<string, number>;
}

export function readActions(actions: readonly JsonValue[], context: ActionContext): ReadActions {
  const result: ReadActions = { operations: [], bindings: [], indexes: new Map() };
  actions.forEach((value, index) => {
    const pointer = pointerTo('/actions', index);
    const read = readAction(value, pointer, index, context);
    if (read === undefined) return;
    const first = result.indexes.get(read.operation.name);
    if (first !== undefined) {
      context.issues.error(
        pointerTo(pointer, 'id'),
        'awp.action.duplicate-id',
        `Action id "${read.operation.name}" is already used by action ${first}; action ids must be unique.`,
        SECTION.actions,
      );
      return;
    }
    result.indexes.set(read.operation.name, index);
    result.operations.push(read.operation);
    result.bindings.push(...read.bindings);
  });
  return result;
}

function readAction(
  value: JsonValue,
  pointer: string,
  index: number,
  context: ActionContext,
): { operation: Operation; bindings: Binding[] } | undefined {
  const { issues, lenient } = context;
  const action = ObjectReader.of(value, pointer, issues, 'awp.action', `Action ${index}`, SECTION.actions);
  if (action === undefined) return undefined;
  const id = action.text('id', { required: true });
  const via = lenient ? action.text('via') : undefined;
  // A delegated action needs only its id and the protocol; an endpoint, if it has one, still needs its method.
  const required = lenient ? LENIENT : STRICT;
  const needed = via === undefined ? required : OPTIONAL;
  const operation: Operation = { name: id ?? '' };

  const description = action.string('description', needed);
  if (description !== undefined) operation.description = description;
  const inputs = childReader(action, 'inputs', needed);
  if (inputs !== undefined) operation.input = readInputs(inputs, context.types);
  const outputs = childReader(action, 'outputs', needed);
  if (outputs !== undefined) operation.output = readOutputs(outputs, context.types);
  const authRequired = action.boolean('auth_required', needed);
  if (authRequired !== undefined) operation.authRequired = authRequired;
  readBehaviour(action, operation);
  const extensions = unknownFields(action.value, ACTION_LAYOUT);
  if (extensions !== undefined) operation.extensions = { awp: extensions };

  const bindings: Binding[] = [];
  const endpoint = action.text('endpoint', action.has('method') ? required : needed);
  const method = readMethod(action, action.has('endpoint') ? required : needed);
  if (endpoint !== undefined && method !== undefined && id !== undefined) {
    const binding = httpBinding(id, endpoint, method, context.base);
    if (binding !== undefined) bindings.push(binding);
    else if (!context.domainMissing) {
      issues.error(
        action.at('endpoint'),
        'awp.action.endpoint',
        `endpoint "${endpoint}" is neither an absolute URL nor a path that resolves against https://{domain}.`,
        SECTION.actions,
      );
    }
  }
  if (via !== undefined && id !== undefined) {
    const delegated = readDelegation(action, id, via, context);
    if (delegated !== undefined) bindings.push(delegated);
  }
  return id === undefined ? undefined : { operation, bindings };
}

function readMethod(action: ObjectReader, options: FieldOptions): HttpMethod | undefined {
  const method = action.string('method', options);
  if (method === undefined) return undefined;
  if (HTTP_METHODS.has(method)) return method as HttpMethod;
  const hint = HTTP_METHODS.has(method.toUpperCase())
    ? ` (write it in capitals: ${method.toUpperCase()})`
    : '';
  action.issues.error(
    action.at('method'),
    'awp.action.method',
    `method "${method}" is not one of GET, POST, PUT, DELETE, PATCH${hint}.`,
    SECTION.actions,
  );
  return undefined;
}

/** The optional fields that describe how an action behaves: limits, idempotency, execution and consequences. */
function readBehaviour(action: ObjectReader, operation: Operation): void {
  const rateLimit = action.string('rate_limit');
  if (rateLimit !== undefined) operation.rateLimit = rateLimit;
  const idempotency = readIdempotency(childReader(action, 'idempotency'));
  if (idempotency !== undefined) operation.idempotency = idempotency;
  const executionModel = readChoice(action, 'execution_model', EXECUTION_MODELS, 'sync or async');
  if (executionModel !== undefined) operation.executionModel = executionModel as 'sync' | 'async';
  const pollEndpoint = action.string('poll_endpoint');
  if (pollEndpoint !== undefined) operation.pollEndpoint = pollEndpoint;
  const sensitivity = readChoice(
    action,
    'sensitivity',
    SENSITIVITIES,
    'standard, destructive or irreversible',
  );
  if (sensitivity !== undefined) operation.sensitivity = sensitivity as Sensitivity;
  const confirmation = action.boolean('requires_human_confirmation');
  if (confirmation !== undefined) operation.requiresConfirmation = confirmation;
  const reversible = action.boolean('reversible');
  if (reversible !== undefined) operation.reversible = reversible;
}

function readChoice(
  action: ObjectReader,
  key: string,
  allowed: ReadonlySet<string>,
  expected: string,
): string | undefined {
  const value = action.string(key);
  if (value === undefined || allowed.has(value)) return value;
  action.issues.error(
    action.at(key),
    `awp.action.${key.replaceAll('_', '-')}`,
    `${key} "${value}" is not one of ${expected}.`,
    SECTION.actions,
  );
  return undefined;
}

function readIdempotency(idempotency: ObjectReader | undefined): IdempotencyContract | undefined {
  if (idempotency === undefined) return undefined;
  const supported = idempotency.boolean('supported', { required: true });
  const keyField = idempotency.string('key_field');
  const window = idempotency.string('window');
  const header = idempotency.string('header');
  if (supported === undefined) return undefined;
  const contract: IdempotencyContract = { supported };
  if (keyField !== undefined) contract.keyField = keyField;
  if (header !== undefined) contract.header = header;
  if (window !== undefined) contract.window = window;
  return contract;
}

function readDelegation(
  action: ObjectReader,
  id: string,
  via: string,
  context: ActionContext,
): Binding | undefined {
  const { protocols, issues } = context;
  if (protocols === undefined || !declaresProtocol(protocols, via)) {
    const declared = protocols === undefined ? [] : Object.keys(protocols);
    issues.error(
      action.at('via'),
      'awp.action.via-unknown',
      `via "${via}" names no protocol declared under "protocols"` +
        (declared.length > 0 ? ` (declared: ${declared.join(', ')})` : '') +
        '; declare it there or fix the name.',
    );
    return undefined;
  }
  const delegated = protocolBinding(id, via, protocols, context.base);
  if ('binding' in delegated) return delegated.binding;
  issues.warning(action.at('via'), 'awp.protocol.incomplete', `${delegated.problem}.`);
  return undefined;
}
