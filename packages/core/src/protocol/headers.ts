/**
 * The HTTP header names of Agentry's wire, in one place: the client sends them, the host and the registry's
 * gateway read them. Spelled as the specs spell them; HTTP compares header names without regard to case.
 */

/** Says a person confirmed a destructive, irreversible or confirmation-requiring operation (value `true`). */
export const CONFIRMATION_HEADER = 'X-Agent-Confirmation';
/** The key that makes a retried call run once (AWP §9 idempotency; the conventional header). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Marks a response that was stored earlier and sent again for a repeated idempotency key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** agent:// §8.1.1: the conversation a call belongs to. */
export const SESSION_HEADER = 'X-Session-ID';
/** agent:// §8.1.1: the task a call continues. */
export const TASK_HEADER = 'X-Task-ID';
/** agent:// §7: the agent version the caller asks for. */
export const AGENT_VERSION_HEADER = 'X-Agent-Version';
/** agent:// §8.3.2: the signed chain of who acts for whom. */
export const DELEGATION_HEADER = 'X-Delegation-Chain';
/** The A2A wire version a JSON-RPC request speaks (A2A reads a missing one as 0.3). */
export const A2A_VERSION_HEADER = 'A2A-Version';
