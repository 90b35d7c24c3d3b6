/**
 * Action forms ↔ canonical bindings. An HTTP(S) form becomes an `http` binding for its one action; a form in
 * another protocol (CoAP, MQTT...) becomes an `other` binding holding the form itself. The members of an HTTP form
 * that the binding has no field for (`response`, `additionalResponses`, `subprotocol`, protocol-specific terms...)
 * are kept in that binding's own `extensions.td` and written back into its form. Forms that cannot become bindings
 * at all (no resolvable target) are kept verbatim in the operation's `extensions.td.forms.unbound`.
 */
import { type IssueCollector, optionMention } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { isObject, setOwn } from '../../json/values.js';
import type {
  Agent,
  Binding,
  HttpBinding,
  HttpMethod,
  JsonObject,
  JsonValue,
  Operation,
} from '../../model/agent.js';
import { encodeUriComponentSafe } from '../../uri-component.js';
import type { Loss } from '../codec.js';
import { resolveUrl, trimTrailingSlash } from '../urls.js';
import { type ReadContext, SECTION, without } from './read-context.js';
import { readSecurityNames, requirementOf, writeFormSecurity } from './security.js';

const HTTP_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);
/** TD 1.1 HTTP binding defaults per action operation type. */
const DEFAULT_METHODS: Readonly<Record<string, HttpMethod>> = {
  invokeaction: 'POST',
  queryaction: 'GET',
  cancelaction: 'DELETE',
};
/** The TD default form content type, which the canonical model leaves absent. */
export const DEFAULT_CONTENT_TYPE = 'application/json';
const HTTP_SCHEME = /^https?:/i;

/** The namespace under which a binding keeps the members of its form it has no field for. */
const EXTENSION_NS = 'td';

export interface ReadForms {
  bindings: Binding[];
  /** Forms that could not become bindings, verbatim. */
  unbound?: JsonValue[];
}

/** Pointer into the forms of `action`; built only when something is reported. */
function formPointer(action: string, ...rest: Array<string | number>): string {
  return joinPointer('/actions', action, 'forms', ...rest);
}

export function readActionForms(action: string, forms: JsonValue | undefined, ctx: ReadContext): ReadForms {
  const bindings: Binding[] = [];
  const unbound: JsonValue[] = [];
  if (!Array.isArray(forms)) {
    if (forms !== undefined && ctx.reportShape)
      ctx.issues.error(
        formPointer(action),
        'td.type',
        '"forms" must be an array of form objects.',
        SECTION.action,
      );
    return { bindings };
  }
  for (let index = 0; index < forms.length; index++) {
    const form = forms[index]!;
    const binding = readForm(action, index, form, ctx);
    if (binding === undefined) unbound.push(form);
    else bindings.push(binding);
  }
  return unbound.length > 0 ? { bindings, unbound } : { bindings };
}

function readForm(action: string, index: number, form: JsonValue, ctx: ReadContext): Binding | undefined {
  if (!isObject(form)) {
    if (ctx.reportShape)
      ctx.issues.error(formPointer(action, index), 'td.type', 'A form must be an object.', SECTION.form);
    return undefined;
  }
  const href = form['href'];
  if (typeof href !== 'string') {
    if (ctx.reportShape)
      ctx.issues.error(
        formPointer(action, index, 'href'),
        'td.type',
        'A form needs a string "href".',
        SECTION.form,
      );
    return undefined;
  }
  const url = absoluteUrlOf(href, ctx.base);
  if (url === undefined) {
    reportUnresolved(href, formPointer(action, index, 'href'), ctx);
    return undefined;
  }
  const operations = [action];
  if (!HTTP_SCHEME.test(url)) {
    const protocol = url.slice(0, url.indexOf(':')).toLowerCase();
    return { kind: 'other', protocol, config: { ...form, href: url }, operations };
  }

  // The members the binding holds; the rest go to its extensions.
  const taken = ['href'];
  const ops = operationTypes(form['op']);
  if (ops !== undefined) taken.push('op');
  const methodKey = Object.keys(form).find((key) => ctx.terms.known(key)?.kind === 'methodName');
  const declared = methodKey === undefined ? undefined : form[methodKey];
  let method: HttpMethod;
  if (typeof declared === 'string' && HTTP_METHODS.has(declared.toUpperCase())) {
    method = declared.toUpperCase() as HttpMethod;
    taken.push(methodKey!);
  } else {
    if (declared !== undefined && ctx.isDescription)
      ctx.issues.warning(
        formPointer(action, index, methodKey!),
        'td.form.method',
        `HTTP method ${JSON.stringify(declared)} is not one Agentry can call (GET, POST, PUT, DELETE, PATCH); the form is kept as written.`,
        SECTION.form,
      );
    if (declared !== undefined)
      return { kind: 'other', protocol: 'http', config: { ...form, href: url }, operations };
    method = defaultMethod(ops);
  }
  const binding: HttpBinding = { kind: 'http', url, method, operations };
  const contentType = form['contentType'];
  if (typeof contentType === 'string') {
    taken.push('contentType');
    if (contentType !== DEFAULT_CONTENT_TYPE) binding.contentType = contentType;
  }
  if (ops !== undefined && !(ops.length === 1 && ops[0] === 'invokeaction')) binding.op = ops;
  const names =
    form['security'] === undefined
      ? undefined
      : readSecurityNames(form['security'], formPointer(action, index, 'security'), ctx);
  if (names !== undefined) {
    taken.push('security');
    const scopes = scopeNames(form['scopes']);
    const oauth = names.some((name) => ctx.schemeTypes.get(name) === 'oauth2');
    if (scopes !== undefined && oauth) taken.push('scopes');
    binding.security = [requirementOf(names, oauth ? (scopes ?? []) : [], ctx)];
  }
  const rest = without(form, taken);
  if (Object.keys(rest).length > 0) binding.extensions = { [EXTENSION_NS]: rest };
  return binding;
}

function reportUnresolved(href: string, pointer: string, ctx: ReadContext): void {
  if (!ctx.isDescription) return;
  if (ctx.base === undefined) {
    ctx.issues.warning(
      pointer,
      'td.form.href-unresolved',
      `Relative href ${JSON.stringify(href)} cannot be resolved: the TD has no "base" and no source URL was given. Pass the URL the TD was read from, or add "base".`,
      SECTION.form,
    );
  } else {
    ctx.issues.error(
      pointer,
      'td.form.href-invalid',
      `href ${JSON.stringify(href)} does not resolve to an absolute URI against ${JSON.stringify(ctx.base)}; a form's target must be a valid URI reference.`,
      SECTION.form,
    );
  }
}

/** `href` as an absolute URL (resolved against `base` when relative), or undefined when it cannot be. */
function absoluteUrlOf(href: string, base: string | undefined): string | undefined {
  if (URL.canParse(href)) return href;
  if (base !== undefined && URL.canParse(href, base)) return new URL(href, base).href;
  return undefined;
}

function operationTypes(value: JsonValue | undefined): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item): item is string => typeof item === 'string')) return value;
  return undefined;
}

function scopeNames(value: JsonValue | undefined): string[] | undefined {
  return operationTypes(value);
}

function defaultMethod(ops: readonly string[] | undefined): HttpMethod {
  if (ops === undefined || ops.length === 0 || ops.includes('invokeaction')) return 'POST';
  return DEFAULT_METHODS[ops[0]!] ?? 'POST';
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

export interface WriteFormsInput {
  agentId: string;
  op: Operation;
  bindings: readonly Binding[];
  baseUrl: string | undefined;
  /** Pointer of the action being written, for issues. */
  pointer: string;
  issues: IssueCollector;
}

/** Bindings by the operations they serve, made once per agent's list (each action asks for its own). */
interface ServingIndex {
  /** Bindings that name no operations (they serve all), with their positions. */
  unscoped: Array<[number, Binding]>;
  scoped: Map<string, Array<[number, Binding]>>;
}
const servingIndexes = new WeakMap<readonly Binding[], ServingIndex>();

/**
 * The bindings that serve operation `name`, in list order. An index rather than a scan of every binding for every
 * operation, which is quadratic in an agent's size (3,000 actions took seconds to write).
 */
function bindingsServing(bindings: readonly Binding[], name: string): Binding[] {
  let index = servingIndexes.get(bindings);
  if (index === undefined) {
    index = { unscoped: [], scoped: new Map() };
    bindings.forEach((binding, position) => {
      if (binding.operations === undefined) {
        index!.unscoped.push([position, binding]);
        return;
      }
      for (const operation of new Set(binding.operations)) {
        const list = index!.scoped.get(operation);
        if (list === undefined) index!.scoped.set(operation, [[position, binding]]);
        else list.push([position, binding]);
      }
    });
    servingIndexes.set(bindings, index);
  }
  const scoped = index.scoped.get(name) ?? [];
  const { unscoped } = index;
  // Both lists are in list order: merge them.
  const out: Binding[] = [];
  let i = 0;
  let j = 0;
  while (i < unscoped.length || j < scoped.length) {
    if (j >= scoped.length || (i < unscoped.length && unscoped[i]![0] < scoped[j]![0]))
      out.push(unscoped[i++]![1]);
    else out.push(scoped[j++]![1]);
  }
  return out;
}

/** The forms of one action: one per binding that serves it, else one at the agent's conventional path. */
export function writeActionForms(input: WriteFormsInput): JsonObject[] {
  const { op, baseUrl, issues } = input;
  const forms: JsonObject[] = [];
  for (const binding of bindingsServing(input.bindings, op.name)) {
    const form = formFor(binding, baseUrl, joinPointer(input.pointer, 'forms', forms.length), issues);
    if (form !== undefined) forms.push(withExtensions(form, binding));
  }
  const unbound = unboundFormsOf(op).filter(isObject);
  if (forms.length === 0 && unbound.length === 0) {
    const path = `agents/${encodeUriComponentSafe(input.agentId)}/operations/${encodeUriComponentSafe(op.name)}`;
    if (baseUrl === undefined) {
      issues.error(
        joinPointer(input.pointer, 'forms', 0, 'href'),
        'td.emit.no-base-url',
        `Operation "${op.name}" has no HTTP binding, so its form needs a URL under the host's base; pass a base URL ${optionMention('baseUrl')}.`,
        SECTION.form,
        'baseUrl',
      );
    }
    forms.push({
      href: baseUrl === undefined ? path : `${trimTrailingSlash(baseUrl)}/${path}`,
      op: 'invokeaction',
      'htv:methodName': 'POST',
      contentType: DEFAULT_CONTENT_TYPE,
    });
  }
  return [...forms, ...unbound];
}

function formFor(
  binding: Binding,
  baseUrl: string | undefined,
  pointer: string,
  issues: IssueCollector,
): JsonObject | undefined {
  if (binding.kind === 'http') {
    const form: JsonObject = {
      href: absoluteHref(binding.url, baseUrl, pointer, issues),
      op: binding.op ?? 'invokeaction',
      'htv:methodName': binding.method,
      contentType: binding.contentType ?? DEFAULT_CONTENT_TYPE,
    };
    return { ...form, ...writeFormSecurity(binding.security) };
  }
  if (binding.kind === 'other' && typeof binding.config['href'] === 'string') {
    return { ...binding.config, href: absoluteHref(binding.config['href'], baseUrl, pointer, issues) };
  }
  return undefined;
}

function absoluteHref(
  url: string,
  baseUrl: string | undefined,
  pointer: string,
  issues: IssueCollector,
): string {
  const resolved = resolveUrl(url, baseUrl);
  if (!URL.canParse(resolved)) {
    issues.error(
      joinPointer(pointer, 'href'),
      'td.emit.relative-href',
      `Binding URL ${JSON.stringify(url)} is relative and a TD form needs an absolute href; pass a base URL ${optionMention('baseUrl')}.`,
      SECTION.form,
      'baseUrl',
    );
  }
  return resolved;
}

/**
 * `form` with the members of the binding's `extensions.td` added, except those named like a member the form
 * already has: the binding's own values win (a reader would take them, not the extension's).
 */
function withExtensions(form: JsonObject, binding: Binding): JsonObject {
  const kept = binding.extensions?.[EXTENSION_NS];
  if (!isObject(kept)) return form;
  for (const key of Object.keys(kept)) {
    const value = kept[key];
    if (value !== undefined && !Object.hasOwn(form, key)) setOwn(form, key, value);
  }
  return form;
}

/** The forms of an operation that could not become bindings when its TD was read, to be written back verbatim. */
function unboundFormsOf(op: Operation): JsonValue[] {
  const stored = op.extensions?.['td']?.['forms'];
  if (!isObject(stored) || !Array.isArray(stored['unbound'])) return [];
  return stored['unbound'];
}

/**
 * A binding keeps the members of its source entry under that source format's namespace (`extensions.woa`,
 * `extensions.a2a`...). A TD form can hold only the binding's own `td` members, so a written binding carrying
 * any other namespace does not come back: one loss per binding kind, named like `lostFields` names it.
 */
export function foreignExtensionLosses(agent: Agent): Loss[] {
  const losses: Loss[] = [];
  for (const binding of agent.bindings) {
    if (binding.kind !== 'http' && binding.kind !== 'other') continue;
    const field = `bindings.${binding.kind}`;
    if (losses.some((loss) => loss.field === field)) continue;
    const foreign = Object.keys(binding.extensions ?? {}).filter((ns) => ns !== EXTENSION_NS);
    if (foreign.length === 0) continue;
    losses.push({
      agent: agent.id,
      field,
      message: `A TD form keeps only a binding's own "td" extensions; the ${foreign.map((ns) => `"${ns}"`).join(', ')} extensions of a ${binding.kind} binding are dropped.`,
    });
  }
  return losses;
}
