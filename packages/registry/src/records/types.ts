/**
 * What the registry stores about one agent: the canonical agent (core's model) plus what the registry itself
 * knows — who owns it, who may see it, its safety flags, its observed quality and liveness. The store persists
 * it; search, resolve and the gateway read it.
 */
import type { Agent } from '@agentry/core';
import type { RecordStatus } from './status.js';

export type { RecordStatus } from './status.js';

export interface RegistryRecord {
  /** The registry's id for the agent (URL-safe; assigned on first registration). */
  id: string;
  agent: Agent;
  /** The publisher that registered it (a token's publisher, or `admin`). */
  owner: string;
  /** Entitlements: absent means public; otherwise only callers in one of these groups see the agent. */
  access?: { groups: string[] };
  /** The publisher's lifecycle word (AIDIP's free string), lower-cased; `active` when it names none. */
  status: RecordStatus;
  /** Findings of the untrusted-text scan (prompt injection); non-empty means flagged. */
  flags: SafetyFlag[];
  quality: QualitySignals;
  /** Monotonic revision, bumped on every change. */
  revision: number;
  createdAt: string;
  updatedAt: string;
}

export interface SafetyFlag {
  /** Stable rule name, e.g. `instruction-override`. */
  rule: string;
  /** JSON pointer into the canonical agent of the text that matched. */
  pointer: string;
  /** A short excerpt of the matched text. */
  excerpt: string;
}

export interface QualitySignals {
  /** 0..1, from feedback ratings and gateway outcomes; absent until there is evidence. */
  score?: number;
  ratings: number;
  invocations: number;
  failures: number;
  /** Median latency of gateway invocations, ms. */
  latencyP50Ms?: number;
  lastSeenAt?: string;
  /** The last liveness probe (crawled agents): whether the agent answered, and when it was asked. */
  liveness?: LivenessSignal;
  /** Verified provenance: a signature that checked, or the agent's own description from its own origin. */
  verified: boolean;
}

export interface LivenessSignal {
  status: 'up' | 'down';
  checkedAt: string;
  /** Why the probe failed, when it did. */
  reason?: string;
}

/** Who is asking: decides which restricted agents are visible and what may be written. */
export interface Caller {
  /** `anonymous` for requests without a token. */
  kind: 'anonymous' | 'client' | 'publisher' | 'admin';
  tokenId?: string;
  publisher?: string;
  groups: string[];
}
