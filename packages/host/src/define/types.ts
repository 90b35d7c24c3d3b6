/** The shapes of an agent definition: what `defineAgent` takes, what handlers receive, and what it gives back. */
import type { Agent, Binding, JsonValue, Operation } from '@agentry/core';
import type { Principal } from '../policies/auth.js';
import type { InputOf, SchemaSource, StandardSchemaV1 } from './schema.js';

/** How a call reached the host. */
export type CallTransport = 'envelope' | 'operation' | 'mcp' | 'wss' | 'a2a';

/** What a handler knows about the call it serves. */
export interface HandlerContext {
  readonly agentId: string;
  readonly operation: string;
  /** The caller's request headers (for transports without headers, those of the connection). */
  readonly headers: Headers;
  /** `X-Session-ID` (agent:// §8.1.1). */
  readonly sessionId?: string;
  /** The deferred task this run belongs to, else the caller's `X-Task-ID`. */
  readonly taskId?: string;
  /**
   * Aborted when the caller goes away, or a deferred task is cancelled or the host closes. Made when first read
   * (a getter), so a copy made with `{ ...context }` may leave it out: read it from the context itself.
   */
  readonly signal: AbortSignal;
  /** Who called, when the host authenticates callers. */
  readonly principal?: Principal;
  readonly idempotencyKey?: string;
  readonly transport: CallTransport;
  /** Reports progress of a deferred task (shown to pollers as `progress`); ignored for other calls. */
  progress(update: JsonValue): void;
}

/**
 * A handler returns the output (or a promise of it), or is an `async function*`: yielded values are streamed as
 * chunks, and the generator's return value is the final output (else the array of chunks).
 */
export type OperationHandler<Input = unknown> = (
  input: Input,
  context: HandlerContext,
) => unknown | Promise<unknown> | AsyncIterable<unknown>;

/** Every behavioural and governance field of core's `Operation`, plus the schemas and the handler. */
export interface OperationDefinition<Input = SchemaSource>
  extends Omit<Operation, 'name' | 'input' | 'output'> {
  /**
   * JSON Schema, or a Standard Schema validator (zod 4…), whose parsed value the handler receives. (Typed loosely
   * so that each operation's handler is typed from its own validator; defineAgent checks it is a schema.)
   */
  input?: Input;
  output?: SchemaSource;
  /**
   * A method signature on purpose: its parameter is checked bivariantly, so a handler may declare the input type
   * a JSON Schema `input` describes (which TypeScript cannot infer), while validators still type it by inference.
   */
  handler(input: InputOf<Input>, context: HandlerContext): ReturnType<OperationHandler>;
}

/** Everything an agent-level canonical field can say, plus its operations. Bindings are the host's to add. */
export interface AgentDefinitionInput<Inputs extends Record<string, unknown> = Record<string, SchemaSource>>
  extends Omit<Agent, 'operations' | 'bindings' | 'provenance'> {
  /** Each operation's handler receives the value its `input` validator parses (inferred per operation). */
  operations: { [Name in keyof Inputs]: OperationDefinition<Inputs[Name]> };
  /** Bindings served elsewhere, listed after the host's own. */
  bindings?: Binding[];
}

/** One operation, ready to run. */
export interface DefinedOperation {
  /** The canonical operation, schemas in JSON Schema. */
  readonly spec: Operation;
  readonly handler: OperationHandler;
  /** The validator the input came as, which parses it for the handler. */
  readonly inputValidator?: StandardSchemaV1;
  /** The handler is an async generator function, so it streams. */
  readonly streams: boolean;
}

/** What `defineAgent` returns and `createHost` serves. */
export interface AgentDefinition {
  readonly id: string;
  /** The canonical agent without bindings: `createHost` adds those for its base URL. */
  readonly agent: Agent;
  readonly operations: ReadonlyMap<string, DefinedOperation>;
  /** When the definition was made: documents are `Last-Modified` no earlier. */
  readonly definedAt: Date;
}
