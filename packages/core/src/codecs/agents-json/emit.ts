/**
 * Writes agents as an agents.json map: each agent's id → the URL of its descriptor. Agentry hosts serve descriptors
 * at `${baseUrl}/agents/${id}/agent.json`; without a base URL, an agent's own https `url` is used.
 */
import { optionMention, type ValidationIssue } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { setOwn } from '../../json/values.js';
import type { Agent, JsonObject } from '../../model/agent.js';
import { encodeUriComponentSafe } from '../../uri-component.js';
import type { EmitOptions, Loss } from '../codec.js';
import type { EmitOne } from '../define.js';
import { isAbsoluteUrl, trimTrailingSlash } from '../urls.js';

export function descriptorUrlFor(agent: Agent, baseUrl: string | undefined): string | undefined {
  if (baseUrl !== undefined)
    return `${trimTrailingSlash(baseUrl)}/agents/${encodeUriComponentSafe(agent.id)}/agent.json`;
  return agent.url !== undefined && isAbsoluteUrl(agent.url, ['https']) ? agent.url : undefined;
}

export function emitMap(agents: readonly Agent[], options: EmitOptions): EmitOne {
  const entries: JsonObject = {};
  const losses: Loss[] = [];
  const issues: ValidationIssue[] = [];
  for (const agent of agents) {
    const pointer = joinPointer('/agents', agent.id);
    if (Object.hasOwn(entries, agent.id)) {
      issues.push({
        severity: 'error',
        pointer,
        code: 'agents-json.emit.duplicate-id',
        message: `Two agents have the id "${agent.id}"; an agents.json map names each agent once.`,
      });
      continue;
    }
    const url = descriptorUrlFor(agent, options.baseUrl);
    if (url === undefined) {
      issues.push({
        severity: 'error',
        pointer,
        code: 'agents-json.emit.no-url',
        message: `Agent "${agent.id}" has no https url for its descriptor: pass a base URL ${optionMention('baseUrl')} where agent.json descriptors are served.`,
        option: 'baseUrl',
      });
      continue;
    }
    setOwn(entries, agent.id, url);
    const lose = (field: string, message: string): void => {
      losses.push({ agent: agent.id, field, message });
    };
    // The map holds a name and a URL only; the rest of the agent lives in the descriptor the URL points to.
    if (agent.name !== agent.id) lose('name', 'An agents.json entry is named by the agent id only.');
    if (agent.description !== '') lose('description', 'An agents.json entry has no description.');
    if (agent.url !== undefined && agent.url !== url) {
      lose('url', `An agents.json entry points to the agent's descriptor (${url}).`);
    }
    for (const operation of agent.operations) {
      lose(`operations[${operation.name}]`, 'An agents.json map lists agents, not their operations.');
    }
  }
  return { document: { agents: entries }, losses, issues };
}
