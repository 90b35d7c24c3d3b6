/**
 * Writes one canonical agent as an AgentCard that clients of A2A v1.0 and of v0.3 both read: the v1.0 card plus
 * the fields v0.3 requires (`protocolVersion`, `url`, `preferredTransport`), with security schemes, requirements
 * and the extended-card flag in both versions' forms.
 */
import { optionMention, type ValidationIssue } from '../../issues.js';
import { isObject, setOwn } from '../../json/values.js';
import type { Agent, JsonObject, JsonValue, SecurityScheme } from '../../model/agent.js';
import type { EmitOptions, Loss } from '../codec.js';
import type { EmitOne } from '../define.js';
import { slugify } from '../urls.js';
import { writeInterfaces } from './interfaces.js';
import { CAPABILITY_FLAGS, CARD_FIELDS, PROVIDER_FIELDS } from './parse.js';
import {
  securitySchemeSurvives,
  writeSecurityScheme,
  writeV1Requirements,
  writeV03Requirements,
} from './security.js';
import { writeSkill } from './skills.js';

/** The v0.3 `protocolVersion` of emitted cards (v1.0 readers take each interface's own version instead). */
export const EMITTED_PROTOCOL_VERSION = '0.3.0';

const CAPABILITY_FIELDS: ReadonlySet<string> = new Set([...CAPABILITY_FLAGS, 'extendedAgentCard']);
const CARRIED_FLAGS: ReadonlySet<string> = new Set([...CAPABILITY_FLAGS, 'extendedCard']);

export function emitCard(agent: Agent, options: EmitOptions): EmitOne {
  const losses: Loss[] = [];
  const issues: ValidationIssue[] = [];
  const lose = (field: string, message: string): void => {
    if (!losses.some((loss) => loss.field === field)) losses.push({ agent: agent.id, field, message });
  };
  const extension = agent.extensions?.['a2a'] ?? {};

  const derivedId = slugify(agent.name);
  if (derivedId !== agent.id) {
    lose('id', `An AgentCard has no id; readers derive "${derivedId}" from the name "${agent.name}".`);
  }

  const interfaces = writeInterfaces(agent, options.baseUrl);
  if (interfaces.primaryUrl === undefined) {
    issues.push({
      severity: 'error',
      pointer: '/url',
      code: 'a2a.emit.no-url',
      message: `Agent "${agent.id}" has no A2A binding and no http(s) url, so the card cannot say where it is served: pass a base URL ${optionMention('baseUrl')} or give the agent an a2a binding.`,
      option: 'baseUrl',
    });
  }
  if (interfaces.lossReason !== undefined) lose('bindings.a2a', interfaces.lossReason);
  if (agent.url !== undefined && agent.url !== interfaces.primaryUrl) {
    lose('url', `An AgentCard's url is its primary interface (${interfaces.primaryUrl ?? 'none'}).`);
  }

  const card: JsonObject = {
    protocolVersion: EMITTED_PROTOCOL_VERSION,
    name: agent.name,
    description: agent.description,
    ...interfaces.fields,
  };
  const provider = writeProvider(agent, extension, lose);
  if (provider !== undefined) card['provider'] = provider;
  if (agent.iconUrl !== undefined) card['iconUrl'] = agent.iconUrl;
  // Required by both versions; an empty version reads back as "not stated".
  card['version'] = agent.version ?? '';
  if (agent.version === '') lose('version', 'An empty AgentCard version reads back as none.');
  if (agent.documentationUrl !== undefined) card['documentationUrl'] = agent.documentationUrl;
  card['capabilities'] = writeCapabilities(agent, extension, lose);

  if (agent.auth?.schemes !== undefined) card['securitySchemes'] = writeSchemes(agent.auth.schemes, lose);
  if (agent.auth?.security !== undefined) {
    card['security'] = writeV03Requirements(agent.auth.security);
    card['securityRequirements'] = writeV1Requirements(agent.auth.security);
  }
  card['defaultInputModes'] = [...(agent.inputModes ?? [])];
  card['defaultOutputModes'] = [...(agent.outputModes ?? [])];
  if (agent.inputModes?.length === 0) lose('inputModes', 'Empty default input modes read back as none.');
  if (agent.outputModes?.length === 0) lose('outputModes', 'Empty default output modes read back as none.');

  card['skills'] = agent.operations.map((operation) => {
    const written = writeSkill(operation);
    for (const loss of written.losses) lose(`operations[${operation.name}].${loss.field}`, loss.message);
    return written.skill;
  });
  const extendedCard = agent.surface?.flags?.extendedCard;
  if (extendedCard !== undefined) card['supportsAuthenticatedExtendedCard'] = extendedCard;

  writeExtensionFields(card, extension, lose);
  return { document: card, losses, issues };
}

type Lose = (field: string, message: string) => void;

function writeProvider(agent: Agent, extension: JsonObject, lose: Lose): JsonObject | undefined {
  const extra = isObject(extension['provider']) ? extension['provider'] : undefined;
  const publisher = agent.publisher;
  if (publisher === undefined || publisher.url === undefined) {
    if (publisher !== undefined) {
      lose(
        'publisher',
        'A2A requires a provider url beside the organization; a publisher without one is left out.',
      );
    }
    if (extra !== undefined)
      lose('extensions.a2a', 'Provider extension fields need a provider to be written in.');
    return undefined;
  }
  if (extra !== undefined && Object.keys(extra).some((key) => PROVIDER_FIELDS.has(key))) {
    lose('extensions.a2a', 'Extension fields named like provider fields cannot be written beside them.');
  }
  return { ...(extra ?? {}), organization: publisher.name, url: publisher.url };
}

function writeCapabilities(agent: Agent, extension: JsonObject, lose: Lose): JsonObject {
  const extra = isObject(extension['capabilities']) ? extension['capabilities'] : {};
  if (extension['capabilities'] !== undefined && !isObject(extension['capabilities'])) {
    lose(
      'extensions.a2a',
      'Capability extension fields must be an object to be written into "capabilities".',
    );
  }
  if (Object.keys(extra).some((key) => CAPABILITY_FIELDS.has(key))) {
    lose('extensions.a2a', 'Extension fields named like capability flags cannot be written beside them.');
  }
  const capabilities: JsonObject = { ...extra };
  const flags = agent.surface?.flags ?? {};
  for (const flag of CAPABILITY_FLAGS) {
    const value = flags[flag];
    if (value !== undefined) capabilities[flag] = value;
  }
  if (flags.extendedCard !== undefined) capabilities['extendedAgentCard'] = flags.extendedCard;
  const others = Object.keys(flags).filter(
    (key) => !CARRIED_FLAGS.has(key) && flags[key as keyof typeof flags] !== undefined,
  );
  if (others.length > 0) {
    lose('surface.flags', `AgentCard capabilities cannot carry the flags ${others.join(', ')}.`);
  }
  return capabilities;
}

function writeSchemes(schemes: readonly SecurityScheme[], lose: Lose): JsonObject {
  const entries: JsonObject = {};
  for (const scheme of schemes) {
    const entry = writeSecurityScheme(scheme);
    if (entry !== undefined && !Object.hasOwn(entries, scheme.id)) setOwn(entries, scheme.id, entry);
    if (entry === undefined || entries[scheme.id] !== entry || !securitySchemeSurvives(scheme)) {
      lose(
        'auth.schemes',
        `Security scheme "${scheme.id}" (${scheme.type}) cannot be written as an A2A security scheme unchanged.`,
      );
    }
  }
  return entries;
}

/**
 * Writes back the card's own unknown fields. Signatures are not: they sign the original card's bytes, and a
 * re-emitted card is a different document, so a stale signature would fail verification.
 */
function writeExtensionFields(card: JsonObject, extension: JsonObject, lose: Lose): void {
  for (const [key, value] of Object.entries(extension) as Array<[string, JsonValue]>) {
    if (key === 'provider' || key === 'capabilities') continue;
    if (key === 'signatures') {
      lose(
        'extensions.a2a',
        'Card signatures are not re-emitted: they would not verify over the rewritten card.',
      );
    } else if (CARD_FIELDS.has(key)) {
      lose(
        'extensions.a2a',
        `Extension field "${key}" is named like an AgentCard field and cannot be written.`,
      );
    } else {
      setOwn(card, key, value);
    }
  }
}
