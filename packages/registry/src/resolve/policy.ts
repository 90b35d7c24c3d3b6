/**
 * The caller's policy (AIDIP §6: trust requirements and constraints) applied to each candidate, and the signals
 * that demote without removing: an inactive or failing agent stays findable, below the ones that work.
 */
import { provenanceTrust } from '../records/provenance-trust.js';
import { standingOf } from '../records/standing.js';
import type { RegistryRecord } from '../records/types.js';
import { authAllows } from './invocation.js';
import type { CandidateAuth, ResolveContext, ResolvePolicy } from './types.js';

/** Why a candidate was removed; the response counts them. */
export type FilterReason =
  | 'status'
  | 'flagged'
  | 'language'
  | 'auth'
  | 'transport'
  | 'trust'
  | 'quality'
  | 'verified';

/** How far the registry can vouch for where the description came from, 0..1 (`provenanceTrust`). */
export function trustScore(record: RegistryRecord): number {
  return provenanceTrust(record.agent);
}

/** Whether a language tag is among `wanted` (`en` matches `en-GB` both ways). */
export function languageMatches(tag: string, wanted: readonly string[]): boolean {
  const base = tag.toLowerCase();
  return wanted.some((want) => {
    const w = want.toLowerCase();
    return w === base || base.startsWith(`${w}-`) || w.startsWith(`${base}-`);
  });
}

export interface PolicySubject {
  record: RegistryRecord;
  auth: CandidateAuth;
  /** Whether a binding of an allowed transport serves the chosen operation. */
  hasTransport: boolean;
}

/** The first rule of the policy the candidate breaks, or undefined when it qualifies. */
export function policyViolation(subject: PolicySubject, policy: ResolvePolicy): FilterReason | undefined {
  const { record } = subject;
  // Without a list, every status but `retired` (an agent its publisher withdrew): `maintenance` and other words
  // AIDIP allows are kept, ranked by the search as it ranks them.
  if (policy.status === undefined ? record.status === 'retired' : !policy.status.includes(record.status))
    return 'status';
  if ((policy.exclude_flagged ?? true) && record.flags.length > 0) return 'flagged';
  const languages = record.agent.languages;
  if (policy.languages !== undefined && languages !== undefined && languages.length > 0) {
    if (!languages.some((tag) => languageMatches(tag, policy.languages!))) return 'language';
  }
  if (policy.auth_types !== undefined && !authAllows(subject.auth, policy.auth_types)) return 'auth';
  if (policy.transports !== undefined && !subject.hasTransport) return 'transport';
  if (policy.min_trust !== undefined && trustScore(record) < policy.min_trust) return 'trust';
  if (policy.min_quality !== undefined && !((record.quality.score ?? -1) >= policy.min_quality))
    return 'quality';
  if (policy.require_verified === true && !record.quality.verified) return 'verified';
  return undefined;
}

export interface Adjustment {
  factor: number;
  why: string;
}

/** Demotions (and the one promotion, the task's language) of a candidate that passed the policy. */
export function adjustments(
  record: RegistryRecord,
  context: ResolveContext,
  operation: string | undefined,
  callable: boolean,
): Adjustment[] {
  const out: Adjustment[] = standingOf(record).map((signal) => ({
    factor: signal.factor,
    why: `ranked lower: ${signal.why}`, // as search says it
  }));
  const status = record.agent.status;
  if (operation !== undefined && status?.degradedOperations?.includes(operation)) {
    out.push({ factor: 0.8, why: `operation ${operation} reported degraded` });
  }
  const { invocations, failures } = record.quality;
  if (invocations >= 5 && failures > 0) {
    const rate = failures / invocations;
    out.push({
      factor: 1 - 0.6 * rate,
      why: `${Math.round(rate * 100)}% of ${invocations} gateway calls failed`,
    });
  }
  if (record.quality.score !== undefined) {
    out.push({ factor: 0.8 + 0.2 * record.quality.score, why: `quality ${record.quality.score.toFixed(2)}` });
  }
  if (!callable) out.push({ factor: 0.5, why: 'no binding Agentry can call' });
  const language = typeof context.language === 'string' ? context.language : undefined;
  const languages = record.agent.languages;
  if (language !== undefined && languages !== undefined && languages.length > 0) {
    out.push(
      languageMatches(language, languages)
        ? { factor: 1.1, why: `supports ${language}` }
        : { factor: 0.8, why: `does not list ${language}` },
    );
  }
  return out;
}
