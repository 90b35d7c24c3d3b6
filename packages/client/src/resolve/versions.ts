/**
 * Version negotiation (agent:// §7). The version asked for is `options.version`, else the URI's `?version=`. It is
 * matched against the agent's own `version` and the keys of its `supportedVersions` (version → path or URL of that
 * version): exactly, then ignoring a leading `v`, then as a partial version (`3`, `3.1`) standing for the highest
 * listed version it prefixes. A match other than the current version is looked up where `supportedVersions` says:
 * a location ending in `.json` is read as that version's descriptor, any other as the version's base path whose
 * `agent.json` is read (§7: `<agent-base-path>/agent.json`); relative locations resolve against the descriptor's
 * URL. When no descriptor is there, the location is taken as the version's endpoint. Whatever happens, invocation
 * sends the version as `X-Agent-Version`, so an agent that negotiates by header still gets the request it expects.
 */
import type { AgentUri } from '@agentry/core';
import type { ResolveContext } from './context.js';
import { type Found, findInDescription } from './describe.js';
import type { ResolveOptions } from './types.js';

export function requestedVersion(options: ResolveOptions, uri: AgentUri | undefined): string | undefined {
  if (options.version !== undefined && options.version !== '') return options.version;
  const fromQuery = uri?.query.find(([key]) => key === 'version')?.[1];
  return fromQuery === undefined || fromQuery === '' ? undefined : fromQuery;
}

function bare(version: string): string {
  return version.trim().replace(/^v/i, '');
}

function numericParts(version: string): number[] | undefined {
  const parts = bare(version).split(/[.+-]/).slice(0, 3);
  return parts.every((part) => /^\d+$/.test(part)) ? parts.map(Number) : undefined;
}

function compareVersions(a: string, b: string): number {
  const pa = numericParts(a) ?? [];
  const pb = numericParts(b) ?? [];
  for (let i = 0; i < 3; i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The listed version `requested` stands for (see the module comment), or undefined. */
export function matchVersion(requested: string, available: readonly string[]): string | undefined {
  const exact =
    available.find((version) => version === requested) ?? available.find((v) => bare(v) === bare(requested));
  if (exact !== undefined) return exact;
  const wanted = bare(requested).split('.');
  if (wanted.length > 2 || !wanted.every((part) => /^\d+$/.test(part))) return undefined;
  const candidates = available.filter((version) => {
    const parts = bare(version).split('.');
    return wanted.every((part, index) => parts[index] !== undefined && Number(parts[index]) === Number(part));
  });
  return candidates.sort(compareVersions).pop();
}

export interface Negotiated extends Found {
  version: string;
}

export async function negotiateVersion(
  ctx: ResolveContext,
  found: Found,
  requested: string,
  names: readonly string[],
): Promise<Negotiated> {
  const { agent } = found;
  const listed = agent.supportedVersions ?? {};
  const available = [...(agent.version === undefined ? [] : [agent.version]), ...Object.keys(listed)];
  const match = matchVersion(requested, available);
  if (match === undefined) {
    if (available.length > 0) {
      const list = available.map((v) => (v === agent.version ? `${v} (current)` : v)).join(', ');
      ctx.issue(
        'warning',
        'resolve.version.unlisted',
        `Agent "${agent.id}" lists versions ${list}; ${requested} is not among them. X-Agent-Version: ${requested} is sent and the agent decides.`,
      );
    }
    return { ...found, version: requested };
  }
  if (match === agent.version || listed[match] === undefined) return { ...found, version: match };

  const location = listed[match]!;
  if (found.documentUrl === undefined && !URL.canParse(location)) {
    ctx.issue(
      'warning',
      'resolve.version.unlocated',
      `Version ${match} of "${agent.id}" is at "${location}", which is relative to a descriptor whose URL is unknown; the current descriptor is used.`,
    );
    return { ...found, version: match };
  }
  const base = new URL(location, found.documentUrl);
  const descriptorUrl = base.pathname.endsWith('.json')
    ? base.href
    : new URL(
        base.pathname.endsWith('/') ? 'agent.json' : `${base.pathname.split('/').pop()}/agent.json`,
        base,
      ).href;
  const versioned = await findInDescription(
    ctx,
    descriptorUrl,
    'version',
    [agent.id, ...names],
    found.source,
  );
  if (versioned !== undefined) {
    if (versioned.agent.version !== undefined && versioned.agent.version !== match) {
      ctx.issue(
        'warning',
        'resolve.version.mismatch',
        `${descriptorUrl} is listed as version ${match} of "${agent.id}" but says it is version ${versioned.agent.version}.`,
      );
    }
    return { ...versioned, source: found.source, version: match };
  }
  ctx.issue(
    'warning',
    'resolve.version.no-descriptor',
    `No descriptor for version ${match} of "${agent.id}" at ${descriptorUrl}; ${base.href} is called as that version's endpoint, with the current descriptor's operations.`,
  );
  const binding = { kind: 'http' as const, url: base.href, method: 'POST' as const };
  ctx.methodByPayload.add(binding);
  return { ...found, binding, version: match };
}
