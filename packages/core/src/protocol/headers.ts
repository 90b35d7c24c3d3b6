/**
 * The HTTP header names of Agentry's wire, in one place: the client sends them, the host and the registry's
 * gateway read them. Spelled as the specs spell them; HTTP compares header names without regard to case.
 */
export const AGENTRY_HEADERS = {
  /** Says a person confirmed a destructive, irreversible or confirmation-requiring operation (value `true`). */
  confirmation: 'X-Agent-Confirmation',
  /** The key that makes a retried call run once (AWP §9 idempotency; the conventional header). */
  idempotencyKey: 'Idempotency-Key',
  /** Marks a response that was stored earlier and sent again for a repeated idempotency key. */
  idempotentReplayed: 'Idempotent-Replayed',
  /** agent:// §8.1.1: the conversation a call belongs to, and the task it continues. */
  session: 'X-Session-ID',
  task: 'X-Task-ID',
  /** agent:// §7: the agent version the caller asks for. */
  agentVersion: 'X-Agent-Version',
  /** agent:// §8.3.2: the signed chain of who acts for whom. */
  delegationChain: 'X-Delegation-Chain',
  /** The A2A wire version a JSON-RPC request speaks (A2A reads a missing one as 0.3). */
  a2aVersion: 'A2A-Version',
} as const;

export const {
  confirmation: CONFIRMATION_HEADER,
  idempotencyKey: IDEMPOTENCY_HEADER,
  idempotentReplayed: IDEMPOTENT_REPLAYED_HEADER,
  session: SESSION_HEADER,
  task: TASK_HEADER,
  agentVersion: AGENT_VERSION_HEADER,
  delegationChain: DELEGATION_HEADER,
  a2aVersion: A2A_VERSION_HEADER,
} = AGENTRY_HEADERS;
