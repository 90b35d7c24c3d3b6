/**
 * `scanAgentText`: every free text of a canonical agent checked against the prompt-injection rules. A flagged
 * agent is still stored and served; the flags tell resolution to leave it out and tell people why.
 */
import { type Agent, joinPointer } from '@agentry/core';
import type { SafetyFlag } from '../records/types.js';
import { excerptAround, normalizeText } from './normalize.js';
import { BASE64_RUN, HIDDEN_TEXT_RULES, TEXT_RULES, type TextRule } from './rules.js';

/** Texts longer than this are scanned up to here: a description is not a book, and it bounds the work. */
const MAX_SCANNED_CHARS = 64 * 1024;

/** Members that are the registry's own record of where the agent came from, not the publisher's text. */
const SKIPPED_MEMBERS = new Set(['provenance']);

/** The safety flags of `agent`: one per rule and text that breaks it, in document order. */
export function scanAgentText(agent: Agent): SafetyFlag[] {
  const flags: SafetyFlag[] = [];
  for (const { pointer, text } of agentTexts(agent)) flags.push(...scanText(text, pointer));
  return flags;
}

/** The flags of one text found at `pointer`: at most one per rule (the first finding), so a flag list stays short. */
export function scanText(text: string, pointer: string): SafetyFlag[] {
  const raw = text.length > MAX_SCANNED_CHARS ? text.slice(0, MAX_SCANNED_CHARS) : text;
  const flags: SafetyFlag[] = [];
  const seen = new Set<string>();
  const add = (rule: string, excerpt: string): void => {
    if (seen.has(rule)) return;
    seen.add(rule);
    flags.push({ rule, pointer, excerpt });
  };

  for (const rule of HIDDEN_TEXT_RULES) {
    const matches = [...raw.matchAll(rule.pattern)];
    if (matches.length >= rule.threshold) {
      const first = matches[0]!;
      add(rule.rule, `${rule.description}: ${excerptAround(visible(raw), first.index, first.index + 1)}`);
    }
  }

  const normalized = normalizeText(raw);
  const found = firstTextMatches(normalized);
  // Active content is markup, not wording: its flag says which kind, before the excerpt.
  for (const { rule, excerpt } of found)
    add(rule.rule, rule.rule === 'active-content' ? `${rule.description}: ${excerpt}` : excerpt);

  for (const run of raw.matchAll(BASE64_RUN)) {
    const decoded = decodeBase64Text(run[0]);
    if (decoded === undefined) continue;
    const [hit] = firstTextMatches(normalizeText(decoded));
    if (hit !== undefined) add('encoded-instructions', `base64 of "${hit.excerpt}"`);
  }
  return flags;
}

function firstTextMatches(normalized: string): Array<{ rule: TextRule; excerpt: string }> {
  const out: Array<{ rule: TextRule; excerpt: string }> = [];
  // A phrase broken over lines is still the phrase; only markup rules care where lines start.
  const oneLine = normalized.replace(/\n/g, ' ');
  for (const rule of TEXT_RULES) {
    const text = rule.lines === true ? normalized : oneLine;
    const match = rule.pattern.exec(text);
    if (match === null) continue;
    out.push({ rule, excerpt: excerptAround(text, match.index, match.index + match[0].length) });
  }
  return out;
}

/** Invisible characters shown as `·` so an excerpt of hidden text shows where it is. */
function visible(text: string): string {
  return text.replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g, '·');
}

/**
 * Base64 (standard or URL-safe) decoded as UTF-8 when it is text — mostly printable, no control characters beyond
 * line breaks and tabs — else undefined. Hashes, keys and identifiers decode to noise and are left alone.
 */
export function decodeBase64Text(run: string): string | undefined {
  const bytes = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length < 16) return undefined;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  let printable = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code === 0xfffd) continue;
    if (code >= 0x20 || code === 0x0a || code === 0x09 || code === 0x0d) printable++;
  }
  const letters = text.match(/[a-z]/gi)?.length ?? 0;
  if (printable < text.length * 0.95 || letters < text.length * 0.5 || !/ /.test(text)) return undefined;
  return text;
}

/**
 * Every string in the agent with its JSON pointer, in document order, skipping the registry's own provenance
 * record. Iterative: an agent's extensions nest as deep as its publisher made them, and depth must not overflow.
 */
export function* agentTexts(agent: Agent): Generator<{ pointer: string; text: string }> {
  const pending: Array<{ value: unknown; pointer: string }> = [];
  const pushChildren = (value: unknown, pointer: string, top: boolean): void => {
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        pending.push({ value: value[i], pointer: joinPointer(pointer, i) });
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i]!;
        if (top && SKIPPED_MEMBERS.has(key)) continue;
        pending.push({ value: member, pointer: joinPointer(pointer, key) });
      }
    }
  };
  pushChildren(agent, '', true);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value === 'string') {
      if (next.value.length > 0) yield { pointer: next.pointer, text: next.value };
    } else {
      pushChildren(next.value, next.pointer, false);
    }
  }
}
