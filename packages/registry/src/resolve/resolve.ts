/**
 * `resolveIntent`: AIDIP §6 (Intent, Context, Policy) → (Agent Endpoint(s), Invocation Metadata). The search ranks
 * agents for the intent; the policy removes those the caller will not use; demotions reorder the rest; each
 * candidate gets its best operation, a binding, its credentials and the gateway URL.
 */
import type { Operation } from '@agentry/core';
import type { RegistryRecord } from '../records/types.js';
import type { SearchHit } from '../search/types.js';
import { bindingFor, describeAuth, describeBinding } from './invocation.js';
import { rankOperations } from './operations.js';
import { adjustments, type FilterReason, policyViolation, trustScore } from './policy.js';
import { readResolveRequest } from './request.js';
import type {
  CandidateOperation,
  ResolveCandidate,
  ResolveDeps,
  ResolveRequest,
  ResolveResult,
} from './types.js';

/** Candidates fetched per candidate asked for, so the policy can remove some and still leave `top`. */
const OVERSAMPLE = 4;
const MIN_FETCH = 40;
const MAX_FETCH = 200;

const UNTRUSTED_MEMBERS = [
  '/candidates/*/name',
  '/candidates/*/description',
  '/candidates/*/operation/title',
  '/candidates/*/operation/description',
  '/candidates/*/operation/input_schema',
  '/candidates/*/operation/output_schema',
  '/candidates/*/auth/instructions',
];

export async function resolveIntent(body: unknown, deps: ResolveDeps): Promise<ResolveResult> {
  const read = readResolveRequest(body);
  if (read.problem !== undefined) return { status: 400, problem: read.problem };
  const { request } = read;

  const fetch = Math.min(MAX_FETCH, Math.max(MIN_FETCH, request.top * OVERSAMPLE));
  const hits = await deps.search(request.intent, fetch);
  const records = new Map((await deps.getRecords(hits.map((hit) => hit.id))).map((r) => [r.id, r]));

  const reasons: Partial<Record<FilterReason, number>> = {};
  let filtered = 0;
  const ranked: Array<{ candidate: ResolveCandidate; order: number }> = [];
  hits.forEach((hit, order) => {
    const record = records.get(hit.id);
    if (record === undefined) return; // removed since it was indexed
    const candidate = buildCandidate(record, hit, request, deps);
    if ('reason' in candidate) {
      filtered++;
      reasons[candidate.reason] = (reasons[candidate.reason] ?? 0) + 1;
      return;
    }
    ranked.push({ candidate, order });
  });
  ranked.sort((a, b) => b.candidate.score - a.candidate.score || a.order - b.order);

  return {
    status: 200,
    body: {
      intent: request.intent,
      candidates: ranked.slice(0, request.top).map(({ candidate }) => candidate),
      filtered: { count: filtered, reasons },
      considered: hits.length,
      untrusted: UNTRUSTED_MEMBERS,
    },
  };
}

function buildCandidate(
  record: RegistryRecord,
  hit: SearchHit,
  request: ResolveRequest,
  deps: ResolveDeps,
): ResolveCandidate | { reason: FilterReason } {
  const { agent } = record;
  const operations = rankOperations(agent, request.intent);
  const chosen = operations[0]?.operation;
  const binding = bindingFor(agent, chosen?.name, request.policy.transports);
  const auth = describeAuth(agent, chosen, binding ?? bindingFor(agent, chosen?.name, undefined));
  const reason = policyViolation({ record, auth, hasTransport: binding !== undefined }, request.policy);
  if (reason !== undefined) return { reason };

  const why = [...hit.why];
  let score = relevance(hit.score);
  for (const adjustment of adjustments(record, request.context, chosen?.name, binding !== undefined)) {
    score *= adjustment.factor;
    if (!why.includes(adjustment.why)) why.push(adjustment.why); // search may have told it already
  }
  if (operations.length > 1 && chosen !== undefined && operations[0]!.matched.length > 0) {
    why.push(`operation ${chosen.name} matches ${operations[0]!.matched.map((w) => `'${w}'`).join(', ')}`);
  }

  const candidate: ResolveCandidate = {
    id: record.id,
    name: agent.name,
    description: agent.description,
    score: Math.round(Math.min(1, Math.max(0, score)) * 1e4) / 1e4,
    why,
    status: record.status,
    trust: trustScore(record),
    operation: chosen === undefined ? null : describeOperation(chosen, operations[0]!.score),
    operations: operations.map(({ operation, score: s }) => ({ name: operation.name, score: s })),
    binding: binding === undefined ? null : describeBinding(agent, binding, chosen?.name),
    auth,
    invoke: { gateway: `${deps.baseUrl ?? ''}/agents/${encodeURIComponent(record.id)}/invoke` },
  };
  if (record.quality.score !== undefined) candidate.quality_score = record.quality.score;
  if (agent.languages !== undefined) candidate.languages = [...agent.languages];
  if (record.flags.length > 0) candidate.flagged = true;
  if (agent.url?.startsWith('agent://') === true || agent.url?.startsWith('agent+') === true) {
    candidate.invoke.uri = agent.url;
  }
  return candidate;
}

/**
 * The search's score on 0..1: the logistic of how far the agent stands out among the candidates the caller may
 * see (hybrid and semantic scores are in standard deviations: 0 is an average candidate, 0.5 here; 1 is 0.73;
 * 2 is 0.88). It does not depend on the other hits of the answer, so a weak best hit is not shown as 1, and it
 * is never negative, whatever the standardised score.
 */
export function relevance(searchScore: number): number {
  return 1 / (1 + Math.exp(-searchScore));
}

function describeOperation(operation: Operation, score: number): CandidateOperation {
  const out: CandidateOperation = { name: operation.name, score };
  if (operation.title !== undefined) out.title = operation.title;
  if (operation.description !== undefined) out.description = operation.description;
  if (operation.input !== undefined) out.input_schema = operation.input;
  if (operation.output !== undefined) out.output_schema = operation.output;
  if (
    operation.requiresConfirmation === true ||
    operation.sensitivity === 'destructive' ||
    operation.sensitivity === 'irreversible'
  ) {
    out.requires_confirmation = true;
  }
  return out;
}
