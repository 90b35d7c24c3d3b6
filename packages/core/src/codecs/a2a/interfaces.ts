/**
 * A2A interfaces ↔ canonical `a2a` bindings. v1.0 lists them in `supportedInterfaces` (the first is preferred);
 * v0.3 has a main `url` + `preferredTransport` plus `additionalInterfaces`. A card carrying both is read by its
 * v1.0 list, and the emitter writes both so that clients of either version find the endpoints. Fields of an
 * interface that A2A does not define are kept in the binding's `extensions.a2a` and written back into it.
 */
import type { IssueCollector } from '../../issues.js';
import { type FieldOptions, ObjectReader } from '../../json/reader.js';
import { compact, JsonValueSet, jsonEqual, setOwn } from '../../json/values.js';
import type { A2aBinding, Agent, JsonObject } from '../../model/agent.js';
import { encodeUriComponentSafe } from '../../uri-component.js';
import { isAbsoluteUrl, trimTrailingSlash } from '../urls.js';
import type { CardSections, CardShape } from './sections.js';

/** v0.3's default for a card without `preferredTransport`. */
export const DEFAULT_TRANSPORT = 'JSONRPC';
/**
 * Written into `supportedInterfaces[].protocolVersion` (required by v1.0) when a binding does not say which version
 * it speaks: the emitted card as a whole declares v0.3 compatibility.
 */
export const FALLBACK_INTERFACE_VERSION = '0.3';

const V1_INTERFACE_FIELDS: ReadonlySet<string> = new Set([
  'url',
  'protocolBinding',
  'protocolVersion',
  'tenant',
]);
const V03_INTERFACE_FIELDS: ReadonlySet<string> = new Set(['url', 'transport']);

export interface ReadContext {
  issues: IssueCollector;
  sections: CardSections;
  sourceUrl: string | undefined;
}

/**
 * Reads a URL field. Relative references are resolved against the document's URL (with a warning); with `strict`,
 * a value that cannot be made absolute is an error and is dropped, otherwise a warning and kept.
 */
export function readUrl(
  reader: ObjectReader,
  key: string,
  context: ReadContext,
  options: FieldOptions & { strict?: boolean } = {},
): string | undefined {
  const value = reader.string(key, options);
  if (value === undefined || isAbsoluteUrl(value)) return value;
  const section = options.section ?? context.sections.card;
  if (context.sourceUrl !== undefined && URL.canParse(value, context.sourceUrl)) {
    const resolved = new URL(value, context.sourceUrl).href;
    context.issues.warning(
      reader.at(key),
      'a2a.url.relative',
      `"${key}" is a relative reference; read as ${resolved}. A2A expects absolute URLs.`,
      section,
    );
    return resolved;
  }
  const message = `"${key}" must be an absolute URL, got "${value}".`;
  if (options.strict) {
    context.issues.error(reader.at(key), 'a2a.url.invalid', message, section);
    return undefined;
  }
  context.issues.warning(reader.at(key), 'a2a.url.invalid', message, section);
  return value;
}

export function readInterfaces(
  card: ObjectReader,
  shape: CardShape,
  cardProtocolVersion: string | undefined,
  context: ReadContext,
): A2aBinding[] {
  const bindings: A2aBinding[] = [];
  const seen = new JsonValueSet();
  const add = (binding: A2aBinding): void => {
    if (seen.add(binding)) bindings.push(binding);
  };
  const { issues, sections } = context;
  const required = { required: true, section: sections.interface };

  if (shape === 'v1.0') {
    const items = card.array('supportedInterfaces', { required: true, section: sections.card });
    if (items?.length === 0) {
      issues.error(
        card.at('supportedInterfaces'),
        'a2a.supported-interfaces.empty',
        'An AgentCard must list at least one interface in "supportedInterfaces".',
        sections.card,
      );
    }
    items?.forEach((item, index) => {
      const entry = ObjectReader.of(
        item,
        `${card.at('supportedInterfaces')}/${index}`,
        issues,
        'a2a',
        'An AgentInterface',
        sections.interface,
      );
      if (entry === undefined) return;
      const url = readUrl(entry, 'url', context, { ...required, strict: true });
      const protocolBinding = entry.text('protocolBinding', required);
      const protocolVersion = entry.text('protocolVersion', required);
      const tenant = entry.string('tenant');
      if (url === undefined || protocolBinding === undefined) return;
      const extensions = interfaceExtensions(entry, V1_INTERFACE_FIELDS);
      add(compact({ kind: 'a2a', url, protocolBinding, protocolVersion, tenant, extensions }));
    });
    return bindings;
  }

  const url = readUrl(card, 'url', context, { required: true, section: sections.card, strict: true });
  const preferred = card.text('preferredTransport', { section: sections.transports });
  if (preferred === undefined && shape === 'v0.3' && !card.has('preferredTransport')) {
    issues.warning(
      card.at('preferredTransport'),
      'a2a.missing-field',
      `"preferredTransport" should name the transport of the main "url"; ${DEFAULT_TRANSPORT} is assumed.`,
      sections.transports,
    );
  }
  const versioned = (binding: A2aBinding): A2aBinding =>
    cardProtocolVersion === undefined ? binding : { ...binding, protocolVersion: cardProtocolVersion };
  const primary =
    url === undefined
      ? undefined
      : versioned({ kind: 'a2a', url, protocolBinding: preferred ?? DEFAULT_TRANSPORT });
  if (primary !== undefined) add(primary);
  const additional = card.array('additionalInterfaces', { section: sections.card });
  const declared: A2aBinding[] = [];
  additional?.forEach((item, index) => {
    const entry = ObjectReader.of(
      item,
      `${card.at('additionalInterfaces')}/${index}`,
      issues,
      'a2a',
      'An AgentInterface',
      sections.interface,
    );
    if (entry === undefined) return;
    const interfaceUrl = readUrl(entry, 'url', context, { ...required, strict: true });
    const transport = entry.text('transport', required);
    if (interfaceUrl === undefined || transport === undefined) return;
    const binding = versioned({ kind: 'a2a', url: interfaceUrl, protocolBinding: transport });
    const extensions = interfaceExtensions(entry, V03_INTERFACE_FIELDS);
    declared.push(binding);
    if (extensions === undefined) add(binding);
    else if (primary !== undefined && primary.extensions === undefined && jsonEqual(binding, primary)) {
      // The main url listed again with fields of its own: they are the main interface's.
      primary.extensions = extensions;
    } else add({ ...binding, extensions });
  });
  if (additional !== undefined && primary !== undefined && !declared.some((b) => sameInterface(b, primary))) {
    issues.warning(
      card.at('additionalInterfaces'),
      'a2a.additional-interfaces.incomplete',
      '"additionalInterfaces" should also list the main "url" with its "preferredTransport".',
      sections.transports,
    );
  }
  return bindings;
}

/** The interface's fields A2A does not define, as the binding's extensions; undefined when there are none. */
function interfaceExtensions(
  entry: ObjectReader,
  known: ReadonlySet<string>,
): A2aBinding['extensions'] | undefined {
  const rest = entry.rest(known);
  return rest === undefined ? undefined : { a2a: rest };
}

/** The same endpoint, whatever fields of their own the two interfaces carry. */
function sameInterface(a: A2aBinding, b: A2aBinding): boolean {
  const { extensions: _a, ...left } = a;
  const { extensions: _b, ...right } = b;
  return jsonEqual(left, right);
}

/** The binding's `extensions.a2a` fields an interface entry can carry: none named like a field it defines. */
function writableExtensions(binding: A2aBinding, defined: ReadonlySet<string>): JsonObject {
  const out: JsonObject = {};
  const kept = binding.extensions?.['a2a'];
  if (kept === undefined) return out;
  for (const key of Object.keys(kept)) if (!defined.has(key)) setOwn(out, key, kept[key]);
  return out;
}

/** What reading the written interface gives back: a binding with only what A2A interfaces carry. */
function readBackBinding(binding: A2aBinding, extensions: JsonObject): A2aBinding {
  return compact({
    kind: 'a2a',
    url: binding.url,
    protocolBinding: binding.protocolBinding,
    protocolVersion: binding.protocolVersion ?? FALLBACK_INTERFACE_VERSION,
    tenant: binding.tenant,
    extensions: Object.keys(extensions).length > 0 ? { a2a: extensions } : undefined,
  });
}

export interface WrittenInterfaces {
  /** `url`, `preferredTransport`, `supportedInterfaces` and (with several interfaces) `additionalInterfaces`. */
  fields: JsonObject;
  primaryUrl: string | undefined;
  /** Why some `a2a` binding will not read back unchanged, if one will not. */
  lossReason?: string;
}

/**
 * The card's interface fields. Without an `a2a` binding the agent is offered at its own http(s) `url`, else at
 * `${baseUrl}/agents/${id}/a2a` (where Agentry hosts serve A2A JSON-RPC; their agents carry that binding
 * themselves, so a host's card names it whatever this default says).
 */
export function writeInterfaces(agent: Agent, baseUrl: string | undefined): WrittenInterfaces {
  let bindings = agent.bindings.filter((binding): binding is A2aBinding => binding.kind === 'a2a');
  let lossReason: string | undefined;
  for (const binding of bindings) {
    // Readers take an emitted card's interfaces from its v1.0 list.
    const extensions = writableExtensions(binding, V1_INTERFACE_FIELDS);
    if (binding.operations !== undefined || binding.security !== undefined) {
      lossReason =
        'A2A interfaces serve every skill under the card-level security; per-binding operations and security are dropped.';
    } else if (binding.protocolVersion === undefined) {
      lossReason = `A2A v1.0 requires an interface protocolVersion; "${FALLBACK_INTERFACE_VERSION}" is written where the binding has none.`;
    } else if (!jsonEqual(binding, readBackBinding(binding, extensions))) {
      lossReason =
        "An A2A interface keeps only A2A's own extension fields, and none named like a v1.0 interface field; the binding's other extensions are dropped.";
    }
  }
  if (bindings.length === 0) {
    const url =
      agent.url !== undefined && isAbsoluteUrl(agent.url, ['http', 'https'])
        ? agent.url
        : baseUrl !== undefined
          ? `${trimTrailingSlash(baseUrl)}/agents/${encodeUriComponentSafe(agent.id)}/a2a`
          : undefined;
    if (url === undefined) return { fields: {}, primaryUrl: undefined };
    bindings = [{ kind: 'a2a', url, protocolBinding: DEFAULT_TRANSPORT }];
  }
  const primary = bindings[0]!;
  const fields: JsonObject = { url: primary.url, preferredTransport: primary.protocolBinding };
  if (bindings.length > 1) {
    const additional: JsonObject[] = [];
    const seen = new JsonValueSet();
    for (const binding of bindings) {
      const entry = {
        ...writableExtensions(binding, V03_INTERFACE_FIELDS),
        url: binding.url,
        transport: binding.protocolBinding,
      };
      if (seen.add(entry)) additional.push(entry);
    }
    fields['additionalInterfaces'] = additional;
  }
  fields['supportedInterfaces'] = bindings.map((binding) => {
    const entry: JsonObject = {
      ...writableExtensions(binding, V1_INTERFACE_FIELDS),
      url: binding.url,
      protocolBinding: binding.protocolBinding,
      protocolVersion: binding.protocolVersion ?? FALLBACK_INTERFACE_VERSION,
    };
    if (binding.tenant !== undefined) entry['tenant'] = binding.tenant;
    return entry;
  });
  const written: WrittenInterfaces = { fields, primaryUrl: primary.url };
  if (lossReason !== undefined) written.lossReason = lossReason;
  return written;
}
