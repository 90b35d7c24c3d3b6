/**
 * Reads an AWP agent.json into one canonical agent: the surface is named by its `domain` and described by its
 * `intent`; actions become operations; entities, errors, hints and capability flags become `surface` data.
 */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { isObject } from '../../json/values.js';
import type { Agent, JsonObject, Operation, Surface } from '../../model/agent.js';
import type { ParseOptions } from '../codec.js';
import { nativeProvenance } from '../provenance.js';
import { readActions } from './actions.js';
import { domainBase } from './bindings.js';
import { readDependencies } from './dependencies.js';
import { readEntities } from './entities.js';
import { DOCUMENT_LAYOUT, SYNTHETIC_DOCUMENT_LAYOUT, unknownFields } from './layout.js';
import { childReader } from './pointers.js';
import { HOST_PATTERN, SECTION, VERSION_PATTERN } from './rules.js';
import { readAuth, readCapabilities, readErrors, readOrigin, readStatus } from './surface.js';
import { TypeReader } from './type-reader.js';

export function parseAwp(document: unknown, issues: IssueCollector, options: ParseOptions): Agent[] {
  const file = ObjectReader.of(document, '', issues, 'awp', 'An AWP agent.json', SECTION.document);
  if (file === undefined) return [];
  const lenient = readVersion(file);
  const domain = readDomain(file);
  const intent = file.text('intent', { required: true });
  const base = domainBase(domain);

  const entityObject = section(file, 'entities', 'awp.entity', SECTION.entities);
  const entities = readEntities(entityObject, issues);
  const protocols = lenient ? readProtocols(file) : undefined;
  const types = new TypeReader(issues, entities);
  const actions = readActions(file.array('actions', { required: true }) ?? [], {
    issues,
    types,
    lenient,
    base,
    domainMissing: domain === undefined || domain.trim() === '',
    protocols,
  });
  const ids = new Set(actions.indexes.keys());
  const graph = readDependencies(
    section(file, 'dependencies', 'awp.dependency', SECTION.dependencies),
    ids,
    issues,
  );
  for (const operation of actions.operations) {
    const prerequisites = graph.get(operation.name);
    if (prerequisites !== undefined) operation.dependsOn = prerequisites;
  }

  const id = domain ?? hostOf(options.sourceUrl) ?? '';
  const agent: Agent = {
    id,
    name: id,
    description: intent ?? '',
    operations: actions.operations,
    bindings: actions.bindings,
  };
  const auth = readAuth(section(file, 'auth', 'awp.auth', SECTION.auth), ids);
  if (auth !== undefined) {
    agent.auth = auth;
    checkAuthAgreement(actions.operations, actions.indexes, auth.requiredFor, auth.optionalFor, issues);
  }
  agent.surface = readSurface(file, domain, intent, entityObject && entities.schemas());
  const status = readStatus(section(file, 'agent_status', 'awp.status', SECTION.status), ids);
  if (status !== undefined) agent.status = status;
  const provenance = nativeProvenance('awp', options);
  const synthetic = readOrigin(file, provenance, issues);
  agent.provenance = provenance;
  const extensions = unknownFields(file.value, synthetic ? SYNTHETIC_DOCUMENT_LAYOUT : DOCUMENT_LAYOUT);
  if (extensions !== undefined) agent.extensions = { awp: extensions };
  return [agent];
}

/**
 * Checks `awp_version` is MAJOR.MINOR. Returns true when the file is read leniently: 0.2 and later (whose files
 * omit fields 0.1 requires), and unknown major versions, which the spec says to degrade on gracefully.
 */
function readVersion(file: ObjectReader): boolean {
  const version = file.string('awp_version', { required: true });
  if (version === undefined) return false;
  const match = VERSION_PATTERN.exec(version);
  if (match === null) {
    file.issues.error(
      file.at('awp_version'),
      'awp.version.invalid',
      `awp_version "${version}" is not a MAJOR.MINOR version such as "0.1".`,
      SECTION.versioning,
    );
    return false;
  }
  const major = Number(match[1]);
  if (major > 0) {
    file.issues.warning(
      file.at('awp_version'),
      'awp.version.unknown-major',
      `awp_version ${version} is a major version this reader does not know (it reads 0.1 and 0.2); ` +
        'the file is read as far as 0.x allows and may be misunderstood.',
      SECTION.versioning,
    );
    return true;
  }
  return Number(match[2]) >= 2;
}

function readDomain(file: ObjectReader): string | undefined {
  const domain = file.text('domain', { required: true });
  if (domain !== undefined && domain.trim() !== '' && !HOST_PATTERN.test(domain)) {
    file.issues.warning(
      file.at('domain'),
      'awp.domain.not-a-host',
      `domain "${domain}" should be a bare host name such as example.com: the file is served at https://{domain}/agent.json.`,
      SECTION.document,
    );
  }
  return domain;
}

/** An optional top-level object, read with its own issue codes and section. */
function section(
  file: ObjectReader,
  key: string,
  codePrefix: string,
  spec: string,
): ObjectReader | undefined {
  return file.has(key) ? childReader(file, key, {}, codePrefix, spec) : undefined;
}

/** The 0.2 `protocols` object that `via` actions delegate to; kept whole in extensions as well. */
function readProtocols(file: ObjectReader): JsonObject | undefined {
  const protocols = section(file, 'protocols', 'awp.protocol', SECTION.document);
  if (protocols === undefined) return undefined;
  for (const name of Object.keys(protocols.value)) {
    if (!isObject(protocols.value[name])) {
      file.issues.warning(
        protocols.at(name),
        'awp.protocol.type',
        `protocols.${name} should be an object describing the protocol (version, endpoint, ...).`,
      );
    }
  }
  return protocols.value;
}

function readSurface(
  file: ObjectReader,
  domain: string | undefined,
  intent: string | undefined,
  entities: Surface['entities'],
): Surface {
  const surface: Surface = {};
  if (domain !== undefined) surface.domain = domain;
  if (intent !== undefined) surface.intent = intent;
  if (entities !== undefined) surface.entities = entities;
  const errors = readErrors(section(file, 'errors', 'awp.error', SECTION.errors));
  if (errors !== undefined) surface.errors = errors;
  const hints = section(file, 'agent_hints', 'awp.hints', SECTION.hints);
  if (hints !== undefined) surface.hints = hints.value;
  const flags = readCapabilities(section(file, 'capabilities', 'awp.capabilities', SECTION.capabilities));
  if (flags !== undefined) surface.flags = flags;
  return surface;
}

/** An action's own `auth_required` should agree with the auth contract's lists. */
function checkAuthAgreement(
  operations: readonly Operation[],
  indexes: ReadonlyMap<string, number>,
  requiredFor: readonly string[] | undefined,
  optionalFor: readonly string[] | undefined,
  issues: IssueCollector,
): void {
  for (const operation of operations) {
    const listed = requiredFor?.includes(operation.name)
      ? 'required_for'
      : optionalFor?.includes(operation.name)
        ? 'optional_for'
        : undefined;
    if (listed === undefined || operation.authRequired === undefined) continue;
    if (operation.authRequired === (listed === 'required_for')) continue;
    issues.warning(
      `/actions/${indexes.get(operation.name)}/auth_required`,
      'awp.auth.conflict',
      `Action "${operation.name}" says auth_required: ${operation.authRequired}, but auth.${listed} lists it.`,
      SECTION.auth,
    );
  }
}

function hostOf(url: string | undefined): string | undefined {
  return url !== undefined && URL.canParse(url) ? new URL(url).host : undefined;
}
