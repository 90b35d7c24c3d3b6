/** Reads an agent:// descriptor (agent.json, the JSON-LD shape of the draft's Appendix A) into one canonical agent. */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { compact, setOwn } from '../../json/values.js';
import type { Agent, JsonObject, Operation, Publisher, Surface } from '../../model/agent.js';
import type { ParseOptions } from '../codec.js';
import { nativeProvenance } from '../provenance.js';
import { slugify } from '../urls.js';
import { readAuthentication } from './auth.js';
import { AGENTRY_BINDINGS, readBindings } from './bindings.js';
import { readCapability, readVersion } from './capabilities.js';
import { publisherContext } from './context.js';

export const DESCRIPTOR_FIELDS: ReadonlySet<string> = new Set([
  '@context',
  'id',
  'name',
  'description',
  'url',
  'provider',
  'documentationUrl',
  'interactionModel',
  'orchestration',
  'envelopeSchemas',
  'version',
  'supportedVersions',
  'capabilities',
  'authentication',
  AGENTRY_BINDINGS,
]);
export const PROVIDER_FIELDS: ReadonlySet<string> = new Set(['organization', 'url']);

/** `agent:` and `agent+<transport>:` URIs, and https URLs (§4.2, §6.2 fallback). */
const AGENT_URL = /^(agent(\+[A-Za-z0-9-]+)?:\/\/|https:\/\/)/i;

export function parseDescriptor(document: unknown, issues: IssueCollector, options: ParseOptions): Agent[] {
  const descriptor = ObjectReader.of(document, '', issues, 'agent-json', 'An agent:// descriptor', '§7');
  if (descriptor === undefined) return [];
  const extension: JsonObject = descriptor.rest(DESCRIPTOR_FIELDS) ?? {};
  const context = publisherContext(descriptor.raw('@context'));
  if (context !== undefined) extension['@context'] = context;

  const name = descriptor.string('name');
  const id = descriptor.text('id');
  if (name === undefined || name.trim() === '') {
    issues.warning(
      descriptor.at('name'),
      'agent-json.name.missing',
      'A descriptor should name its agent ("name").',
      '§7',
    );
  }
  const version = readVersion(descriptor, 'version', issues);
  if (!descriptor.has('version')) {
    issues.warning(
      descriptor.at('version'),
      'agent-json.version.missing',
      'A descriptor should state the agent\'s version ("version", SemVer).',
      '§7',
    );
  }
  const url = readAgentUrl(descriptor, issues);
  const operations = readCapabilities(descriptor, issues);

  const agent: Agent = compact({
    id: id !== undefined && id.trim() !== '' ? id : slugify(name ?? ''),
    name: name ?? id ?? '',
    description: descriptor.string('description') ?? '',
    version,
    publisher: readProvider(descriptor, extension),
    url,
    documentationUrl: descriptor.string('documentationUrl'),
    supportedVersions: readSupportedVersions(descriptor),
    operations,
    bindings: readBindings(descriptor, issues),
    auth: readAuthentication(descriptor, issues, extension),
    surface: readSurface(descriptor, issues),
    provenance: nativeProvenance('agent-json', options),
    extensions: Object.keys(extension).length > 0 ? { 'agent-json': extension } : undefined,
  });
  return [agent];
}

function readAgentUrl(descriptor: ObjectReader, issues: IssueCollector): string | undefined {
  const url = descriptor.string('url');
  if (url !== undefined && !AGENT_URL.test(url)) {
    issues.warning(
      descriptor.at('url'),
      'agent-json.url.scheme',
      `"url" should be an agent:// URI (or an https URL), got "${url}".`,
      '§4',
    );
  }
  return url;
}

function readProvider(descriptor: ObjectReader, extension: JsonObject): Publisher | undefined {
  const provider = descriptor.child('provider');
  if (provider === undefined) return undefined;
  const organization = provider.text('organization', { required: true, lenient: true });
  const url = provider.string('url');
  const rest = provider.rest(PROVIDER_FIELDS);
  if (rest !== undefined) extension['provider'] = rest;
  if (organization === undefined) return undefined;
  return url === undefined ? { name: organization } : { name: organization, url };
}

function readSupportedVersions(descriptor: ObjectReader): Record<string, string> | undefined {
  const versions = descriptor.child('supportedVersions', { section: '§7' });
  if (versions === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const version of Object.keys(versions.value)) {
    // Paths stay as written: the draft does not say what they are relative to.
    const location = versions.string(version);
    if (location !== undefined) setOwn(out, version, location);
  }
  return out;
}

function readCapabilities(descriptor: ObjectReader, issues: IssueCollector): Operation[] {
  const items = descriptor.array('capabilities', { section: '§7' });
  if (!descriptor.has('capabilities') || items?.length === 0) {
    issues.warning(
      descriptor.at('capabilities'),
      'agent-json.capabilities.missing',
      'A descriptor should list at least one capability ("capabilities").',
      '§7',
    );
  }
  const operations: Operation[] = [];
  items?.forEach((item, index) => {
    const pointer = `${descriptor.at('capabilities')}/${index}`;
    const operation = readCapability(item, pointer, issues);
    if (operation === undefined) return;
    if (operations.some((known) => known.name === operation.name)) {
      issues.error(
        `${pointer}/name`,
        'agent-json.capability.duplicate-name',
        `Capability "${operation.name}" is listed twice; capability names must be unique within a descriptor.`,
        '§7',
      );
      return;
    }
    operations.push(operation);
  });
  return operations;
}

function readSurface(descriptor: ObjectReader, issues: IssueCollector): Surface | undefined {
  const surface: Surface = {};
  const interactionModel = descriptor.string('interactionModel');
  if (interactionModel !== undefined) surface.interactionModel = interactionModel;
  const orchestration = descriptor.string('orchestration');
  if (orchestration !== undefined) surface.orchestration = orchestration;
  const envelope = descriptor.raw('envelopeSchemas');
  if (typeof envelope === 'string') {
    issues.warning(
      descriptor.at('envelopeSchemas'),
      'agent-json.envelope-schemas.string',
      '"envelopeSchemas" is a list; a single name is read as a list of one.',
      '§7',
    );
    surface.envelopeSchemas = [envelope];
  } else {
    const schemas = descriptor.stringArray('envelopeSchemas');
    if (schemas !== undefined) surface.envelopeSchemas = schemas;
  }
  return Object.keys(surface).length > 0 ? surface : undefined;
}
