/**
 * Reads an A2A AgentCard into one canonical agent. Three shapes are accepted: v1.0 (`supportedInterfaces`), v0.3
 * (`protocolVersion` + `url`) and the earlier sample shape without `protocolVersion`; each is checked against the
 * required fields of the version it follows.
 */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { compact } from '../../json/values.js';
import type {
  Agent,
  AuthContract,
  JsonObject,
  Operation,
  Publisher,
  SecurityRequirement,
  SecurityScheme,
  SurfaceFlags,
} from '../../model/agent.js';
import type { ParseOptions } from '../codec.js';
import { nativeProvenance } from '../provenance.js';
import { slugify } from '../urls.js';
import { type ReadContext, readInterfaces, readUrl } from './interfaces.js';
import { type CardSections, type CardShape, sectionsFor } from './sections.js';
import { readSecurityRequirements, readSecurityScheme } from './security.js';
import { readSkill } from './skills.js';

/** Every top-level AgentCard field either version defines; anything else is kept in `extensions.a2a`. */
export const CARD_FIELDS: ReadonlySet<string> = new Set([
  'protocolVersion',
  'name',
  'description',
  'url',
  'preferredTransport',
  'additionalInterfaces',
  'supportedInterfaces',
  'provider',
  'iconUrl',
  'version',
  'documentationUrl',
  'capabilities',
  'securitySchemes',
  'security',
  'securityRequirements',
  'defaultInputModes',
  'defaultOutputModes',
  'skills',
  'supportsAuthenticatedExtendedCard',
  'signatures',
]);
export const CAPABILITY_FLAGS = ['streaming', 'pushNotifications', 'stateTransitionHistory'] as const;
/** Capability fields mapped onto `surface.flags`; `extensions` and unknown ones go to `extensions.a2a.capabilities`. */
const CAPABILITY_FIELDS: ReadonlySet<string> = new Set([...CAPABILITY_FLAGS, 'extendedAgentCard']);
export const PROVIDER_FIELDS: ReadonlySet<string> = new Set(['organization', 'url']);

export function cardShape(card: JsonObject): CardShape {
  if (Object.hasOwn(card, 'supportedInterfaces')) return 'v1.0';
  return Object.hasOwn(card, 'protocolVersion') ? 'v0.3' : 'pre-0.3';
}

export function parseCard(document: unknown, issues: IssueCollector, options: ParseOptions): Agent[] {
  const card = ObjectReader.of(document, '', issues, 'a2a', 'An A2A AgentCard', '§4.4.1');
  if (card === undefined) return [];
  const shape = cardShape(card.value);
  const sections = sectionsFor(shape);
  const context: ReadContext = { issues, sections, sourceUrl: options.sourceUrl };
  const required = { required: true, section: sections.card };

  const name = card.string('name', required) ?? '';
  if (name.trim() === '' && card.has('name')) {
    issues.warning(
      card.at('name'),
      'a2a.name.empty',
      '"name" is empty: the agent has no name to show.',
      sections.card,
    );
  }
  const description = card.string('description', required) ?? '';
  const version = readVersion(card, issues, sections);
  let protocolVersion: string | undefined;
  if (shape === 'v0.3') protocolVersion = card.text('protocolVersion', required);
  else if (shape === 'pre-0.3') {
    issues.warning(
      card.at('protocolVersion'),
      'a2a.missing-field',
      'The card has no "protocolVersion" (nor v1.0 "supportedInterfaces"): read as a card from before A2A v0.3.',
      sections.card,
    );
  }
  const bindings = readInterfaces(card, shape, protocolVersion, context);
  const extension: JsonObject = card.rest(CARD_FIELDS) ?? {};
  const publisher = readProvider(card, context, extension);
  const iconUrl = readUrl(card, 'iconUrl', context);
  const documentationUrl = readUrl(card, 'documentationUrl', context);
  const flags = readCapabilities(card, sections, extension);
  const inputModes = card.stringArray('defaultInputModes', required);
  const outputModes = card.stringArray('defaultOutputModes', required);
  const signatureCount = readSignatures(card, issues, sections, extension);
  const auth = readAuth(card, issues, sections);
  const skills = readSkills(card, issues, sections);
  const operations = skills.map((skill) => skill.operation);
  checkSchemeReferences(card, auth, skills, issues, sections);

  const agent: Agent = compact({
    id: slugify(name),
    name,
    description,
    version,
    publisher,
    url: bindings[0]?.url,
    documentationUrl,
    iconUrl,
    operations,
    bindings,
    auth,
    surface: Object.keys(flags).length > 0 ? { flags } : undefined,
    // The emitter must fill these required lists even when the agent declares no modes: [] reads back as absent.
    inputModes: inputModes !== undefined && inputModes.length > 0 ? inputModes : undefined,
    outputModes: outputModes !== undefined && outputModes.length > 0 ? outputModes : undefined,
    provenance: nativeProvenance('a2a', options),
    extensions: Object.keys(extension).length > 0 ? { a2a: extension } : undefined,
  });
  if (signatureCount > 0) {
    agent.provenance!.signature = {
      detail: `The card carries ${signatureCount} JWS signature(s); they were not verified.`,
    };
  }
  return [agent];
}

function readVersion(card: ObjectReader, issues: IssueCollector, sections: CardSections): string | undefined {
  const version = card.string('version', { required: true, section: sections.card });
  if (version !== '') return version;
  issues.warning(
    card.at('version'),
    'a2a.version.empty',
    '"version" is empty: the agent does not say which version it is.',
    sections.card,
  );
  return undefined;
}

function readProvider(
  card: ObjectReader,
  context: ReadContext,
  extension: JsonObject,
): Publisher | undefined {
  const provider = card.child('provider', { section: context.sections.provider });
  if (provider === undefined) return undefined;
  const required = { required: true, section: context.sections.provider };
  const organization = provider.text('organization', required);
  const url = readUrl(provider, 'url', context, required);
  const rest = provider.rest(PROVIDER_FIELDS);
  if (rest !== undefined) extension['provider'] = rest;
  if (organization === undefined) return undefined;
  return url === undefined ? { name: organization } : { name: organization, url };
}

function readCapabilities(card: ObjectReader, sections: CardSections, extension: JsonObject): SurfaceFlags {
  const flags: SurfaceFlags = {};
  const capabilities = card.child('capabilities', { required: true, section: sections.card });
  if (capabilities !== undefined) {
    const section = { section: sections.capabilities };
    for (const flag of CAPABILITY_FLAGS) {
      const value = capabilities.boolean(flag, section);
      if (value !== undefined) flags[flag] = value;
    }
    const extended = capabilities.boolean('extendedAgentCard', section);
    if (extended !== undefined) flags.extendedCard = extended;
    capabilities.array('extensions', section);
    const rest = capabilities.rest(CAPABILITY_FIELDS);
    if (rest !== undefined) extension['capabilities'] = rest;
  }
  // v0.3's flag, read when the v1.0 capability does not say.
  const legacyExtended = card.boolean('supportsAuthenticatedExtendedCard', { section: sections.card });
  if (flags.extendedCard === undefined && legacyExtended !== undefined) flags.extendedCard = legacyExtended;
  return flags;
}

/** Keeps `signatures` in the extension; the count is recorded in provenance (they are not verified here). */
function readSignatures(
  card: ObjectReader,
  issues: IssueCollector,
  sections: CardSections,
  extension: JsonObject,
): number {
  const signatures = card.array('signatures', { section: sections.signature });
  if (signatures === undefined) return 0;
  signatures.forEach((item, index) => {
    const signature = ObjectReader.of(
      item,
      `${card.at('signatures')}/${index}`,
      issues,
      'a2a',
      'An AgentCardSignature',
      sections.signature,
    );
    signature?.text('protected', { required: true });
    signature?.text('signature', { required: true });
  });
  extension['signatures'] = signatures;
  return signatures.length;
}

function readAuth(
  card: ObjectReader,
  issues: IssueCollector,
  sections: CardSections,
): AuthContract | undefined {
  const schemes: SecurityScheme[] = [];
  const entries = card.child('securitySchemes', { section: sections.card });
  for (const id of Object.keys(entries?.value ?? {})) {
    const scheme = readSecurityScheme(
      id,
      entries!.value[id],
      entries!.at(id),
      issues,
      sections.securityScheme,
    );
    if (scheme !== undefined) schemes.push(scheme);
  }
  const security = readSecurityRequirements(card, issues, sections.card);
  if (entries === undefined && security === undefined) return undefined;
  const auth: AuthContract = {};
  if (entries !== undefined) auth.schemes = schemes;
  if (security !== undefined) auth.security = security;
  return auth;
}

interface ReadSkill {
  operation: Operation;
  pointer: string;
  /** The skill object as given (readSkill returned an operation, so it is an object). */
  source: JsonObject;
}

function readSkills(card: ObjectReader, issues: IssueCollector, sections: CardSections): ReadSkill[] {
  const read: ReadSkill[] = [];
  const skills = card.array('skills', { required: true, section: sections.card });
  skills?.forEach((item, index) => {
    const pointer = `${card.at('skills')}/${index}`;
    const operation = readSkill(item, pointer, issues, sections);
    if (operation === undefined) return;
    if (read.some((known) => known.operation.name === operation.name)) {
      issues.error(
        `${pointer}/id`,
        'a2a.skill.duplicate-id',
        `Skill id "${operation.name}" is used twice; skill ids identify skills and must be unique.`,
        sections.skill,
      );
      return;
    }
    read.push({ operation, pointer, source: item as JsonObject });
  });
  return read;
}

/** Requirements naming schemes the card does not declare cannot be satisfied by any client. */
function checkSchemeReferences(
  card: ObjectReader,
  auth: AuthContract | undefined,
  skills: readonly ReadSkill[],
  issues: IssueCollector,
  sections: CardSections,
): void {
  const declared = new Set((auth?.schemes ?? []).map((scheme) => scheme.id));
  const check = (requirements: readonly SecurityRequirement[] | undefined, pointer: string): void => {
    requirements?.forEach((requirement, index) => {
      for (const name of Object.keys(requirement)) {
        if (declared.has(name)) continue;
        issues.warning(
          `${pointer}/${index}`,
          'a2a.security.unknown-scheme',
          `Security requirement names "${name}", which "securitySchemes" does not declare.`,
          sections.card,
        );
      }
    });
  };
  const where = (owner: JsonObject, pointer: string): string =>
    `${pointer}/${Object.hasOwn(owner, 'securityRequirements') ? 'securityRequirements' : 'security'}`;
  check(auth?.security, where(card.value, ''));
  for (const { operation, pointer, source } of skills) check(operation.security, where(source, pointer));
}
