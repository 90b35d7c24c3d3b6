/**
 * Agents registered in this process for `agent+local://<name>` (agent:// §6.1: "runtime-registered local
 * agents"). A handler gets the input (a copy, as if it had crossed a wire) and returns the output, or an async
 * iterable of partial results to stream them.
 */
import type { Agent, JsonValue } from '@agentry/core';

export interface LocalCallContext {
  agent: string;
  operation: string;
  sessionId?: string;
  taskId?: string;
  version?: string;
  idempotencyKey?: string;
  delegationChain?: string;
  signal?: AbortSignal;
}

export type LocalHandler = (
  input: JsonValue,
  context: LocalCallContext,
) => JsonValue | Promise<JsonValue> | AsyncIterable<JsonValue>;

export interface LocalAgentRegistration {
  name: string;
  /** Handlers by operation name. */
  handlers: Readonly<Record<string, LocalHandler>>;
  /** The agent's description, for resolvers that turn `agent+local://<name>` into an `Agent`. */
  agent?: Agent;
}

/** Names are file names in the local socket directory too, so they are kept to safe characters. */
const LOCAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const registry = new Map<string, LocalAgentRegistration>();

export function isValidLocalName(name: string): boolean {
  return LOCAL_NAME.test(name) && !name.includes('..');
}

/**
 * Registers `handlers` as local agent `name`; returns a function that unregisters it. A name already registered
 * is an error rather than a silent replacement, since two parts of a program would be fighting over it.
 *
 * @example
 * ```ts
 * import { invoke, registerLocalAgent } from '@agentry/client';
 *
 * const unregister = registerLocalAgent('echo', { echo: (input) => input });
 * const { output } = await invoke('agent+local://echo', { said: 'hello' }, { operation: 'echo' });
 * unregister();
 * ```
 */
export function registerLocalAgent(
  name: string,
  handlers: Record<string, LocalHandler>,
  options: { agent?: Agent } = {},
): () => void {
  if (!isValidLocalName(name)) {
    throw new TypeError(
      `Local agent name ${JSON.stringify(name)} is not valid: use letters, digits, ".", "_" and "-" (at most 128, starting with a letter or digit).`,
    );
  }
  if (registry.has(name)) {
    throw new Error(`A local agent named "${name}" is already registered; unregister it first.`);
  }
  const registration: LocalAgentRegistration = { name, handlers: { ...handlers } };
  if (options.agent !== undefined) registration.agent = options.agent;
  registry.set(name, registration);
  return () => {
    if (registry.get(name) === registration) registry.delete(name);
  };
}

export function getLocalAgent(name: string): LocalAgentRegistration | undefined {
  return registry.get(name);
}

export function listLocalAgents(): string[] {
  return [...registry.keys()];
}
