/**
 * Writes one canonical agent as an agent:// descriptor in the JSON-LD shape of the draft's Appendix A, plus the
 * `id` and, under our `agentry:` prefix, the canonical bindings (and full security schemes where the draft's scheme
 * words say less).
 */
import { isObject, setOwn } from '../../json/values.js';
import type { Agent, JsonObject, JsonValue } from '../../model/agent.js';
import type { EmitOptions, Loss } from '../codec.js';
import type { EmitOne } from '../define.js';
import { writeAuthentication } from './auth.js';
import { AGENTRY_BINDINGS, writeBindings } from './bindings.js';
import { writeCapability } from './capabilities.js';
import { emittedContext } from './context.js';
import { DESCRIPTOR_FIELDS, PROVIDER_FIELDS } from './parse.js';

export function emitDescriptor(agent: Agent, _options: EmitOptions): EmitOne {
  const losses: Loss[] = [];
  const lose = (field: string, message: string): void => {
    if (!losses.some((loss) => loss.field === field)) losses.push({ agent: agent.id, field, message });
  };
  const extension = agent.extensions?.['agent-json'] ?? {};
  const ownContext = extension['@context'];
  if (Array.isArray(ownContext) && ownContext.length === 1) {
    lose('extensions.agent-json', 'A one-entry @context list reads back as that entry alone.');
  }

  const descriptor: JsonObject = {
    '@context': emittedContext(ownContext),
    id: agent.id,
    name: agent.name,
    description: agent.description,
  };
  const set = (key: string, value: JsonValue | undefined): void => {
    if (value !== undefined) descriptor[key] = value;
  };
  set('url', agent.url);
  const providerExtra = isObject(extension['provider']) ? extension['provider'] : undefined;
  if (agent.publisher !== undefined) {
    const provider: JsonObject = { ...(providerExtra ?? {}), organization: agent.publisher.name };
    if (agent.publisher.url !== undefined) provider['url'] = agent.publisher.url;
    descriptor['provider'] = provider;
    if (providerExtra !== undefined && Object.keys(providerExtra).some((key) => PROVIDER_FIELDS.has(key))) {
      lose(
        'extensions.agent-json',
        'Extension fields named like provider fields cannot be written beside them.',
      );
    }
  } else if (providerExtra !== undefined) {
    lose('extensions.agent-json', 'Provider extension fields need a provider to be written in.');
  }
  set('documentationUrl', agent.documentationUrl);
  set('interactionModel', agent.surface?.interactionModel);
  set('orchestration', agent.surface?.orchestration);
  if (agent.surface?.envelopeSchemas !== undefined)
    descriptor['envelopeSchemas'] = [...agent.surface.envelopeSchemas];
  set('version', agent.version);
  if (agent.supportedVersions !== undefined) descriptor['supportedVersions'] = { ...agent.supportedVersions };
  descriptor['capabilities'] = agent.operations.map((operation) => {
    const written = writeCapability(operation);
    for (const loss of written.losses) lose(`operations[${operation.name}].${loss.field}`, loss.message);
    return written.capability;
  });
  set('authentication', writeAuthentication(agent.auth, extension));
  if (agent.bindings.length > 0) descriptor[AGENTRY_BINDINGS] = writeBindings(agent.bindings);

  for (const [key, value] of Object.entries(extension)) {
    if (key === '@context' || key === 'provider' || key === 'authentication') continue;
    if (DESCRIPTOR_FIELDS.has(key)) {
      lose(
        'extensions.agent-json',
        `Extension field "${key}" is named like a descriptor field and cannot be written.`,
      );
    } else {
      setOwn(descriptor, key, value);
    }
  }
  return { document: descriptor, losses };
}
