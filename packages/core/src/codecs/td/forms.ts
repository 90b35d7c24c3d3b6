/**
 * Action forms ↔ canonical bindings. An HTTP(S) form becomes an `http` binding for its one action; a form in
 * another protocol (CoAP, MQTT...) becomes an `other` binding holding the form itself. What a binding cannot hold
 * (a form's `response`, `subprotocol`, protocol-specific terms, or a form whose target cannot be resolved) is kept
 * in the operation's `extensions.td.forms`, so that writing the TD back restores it.
 */
import type { IssueCollector } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { isObject } from '../../json/values.js';
import type {
  Binding,
  HttpBinding,
  HttpMethod,
  JsonObject,
  JsonValue,
  Operation,
} from '../../model/agent.js';
import { resolveUrl, trimTrailingSlash } from '../urls.js';
import { type ReadContext, SECTION } from './read-context.js';
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

/** The parts of an action's forms that its bindings do not hold. */
export interface FormLeftovers {
  /** Per form that became a binding, in order: its members the binding has no place for. */
  terms?: JsonObject[];
  /** Forms that could not become bindings, verbatim. */
  unbound?: JsonValue[];
}

export interface ReadForms {
  bindings: Binding[];
  leftovers?: FormLeftovers;
}

/** Pointer into the forms of `action`; built only when something is reported. */
function formPointer(action: string, ...rest: Array<string | number>): string {
  return joinPointer('/actions', action, 'forms', ...rest);
}

export function readActionForms(action: string, forms: JsonValue | undefined, ctx: ReadContext): ReadForms {
  const bindings: Binding[] = [];
  const terms: JsonObject[] = [];
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
    const read = readForm(action, index, form, ctx);
    if (read === undefined) unbound.push(form);
    else {
      bindings.push(read.binding);
      terms.push(read.leftover);
    }
  }
  const leftovers: FormLeftovers = {};
  if (terms.some((leftover) => Object.keys(leftover).length > 0)) leftovers.terms = terms;
  if (unbound.length > 0) leftovers.unbound = unbound;
  return Object.keys(leftovers).length > 0 ? { bindings, leftovers } : { bindings };
}

function readForm(
  action: string,
  index: number,
  form: JsonValue,
  ctx: ReadContext,
): { binding: Binding; leftover: JsonObject } | undefined {
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
    return {
      binding: { kind: 'other', protocol, config: { ...form, href: url }, operations },
      leftover: {},
    };
  }

  const leftover: JsonObject = { ...form };
  delete leftover['href'];
  const ops = operationTypes(form['op']);
  if (ops !== undefined) delete leftover['op'];
  const methodKey = Object.keys(form).find((key) => ctx.terms.known(key)?.kind === 'methodName');
  const declared = methodKey === undefined ? undefined : form[methodKey];
  let method: HttpMethod;
  if (typeof declared === 'string' && HTTP_METHODS.has(declared.toUpperCase())) {
    method = declared.toUpperCase() as HttpMethod;
    delete leftover[methodKey!];
  } else {
    if (declared !== undefined && ctx.isDescription)
      ctx.issues.warning(
        formPointer(action, index, methodKey!),
        'td.form.method',
        `HTTP method ${JSON.stringify(declared)} is not one Agentry can call (GET, POST, PUT, DELETE, PATCH); the form is kept as written.`,
        SECTION.form,
      );
    if (declared !== undefined)
      return {
        binding: { kind: 'other', protocol: 'http', config: { ...form, href: url }, operations },
        leftover: {},
      };
    method = defaultMethod(ops);
  }
  const binding: HttpBinding = { kind: 'http', url, method, operations };
  const contentType = form['contentType'];
  if (typeof contentType === 'string') {
    delete leftover['contentType'];
    if (contentType !== DEFAULT_CONTENT_TYPE) binding.contentType = contentType;
  }
  if (ops !== undefined && !(ops.length === 1 && ops[0] === 'invokeaction')) binding.op = ops;
  const names =
    form['security'] === undefined
      ? undefined
      : readSecurityNames(form['security'], formPointer(action, index, 'security'), ctx);
  if (names !== undefined) {
    delete leftover['security'];
    const scopes = scopeNames(form['scopes']);
    const oauth = names.some((name) => ctx.schemeTypes.get(name) === 'oauth2');
    if (scopes !== undefined && oauth) delete leftover['scopes'];
    binding.security = [requirementOf(names, oauth ? (scopes ?? []) : [], ctx)];
  }
  return { binding, leftover };
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

/** The forms of one action: one per binding that serves it, else one at the agent's conventional path. */
export function writeActionForms(input: WriteFormsInput): JsonObject[] {
  const { op, baseUrl, issues } = input;
  const leftovers = leftoversOf(op);
  const forms: JsonObject[] = [];
  for (const binding of input.bindings) {
    if (binding.operations !== undefined && !binding.operations.includes(op.name)) continue;
    const form = formFor(binding, baseUrl, joinPointer(input.pointer, 'forms', forms.length), issues);
    if (form === undefined) continue;
    const extra = leftovers.terms?.[forms.length];
    forms.push(isObject(extra) ? { ...extra, ...form } : form);
  }
  const unbound = (leftovers.unbound ?? []).filter(isObject);
  if (forms.length === 0 && unbound.length === 0) {
    const path = `agents/${encodeURIComponent(input.agentId)}/operations/${encodeURIComponent(op.name)}`;
    if (baseUrl === undefined) {
      issues.error(
        joinPointer(input.pointer, 'forms', 0, 'href'),
        'td.emit.no-base-url',
        `Operation "${op.name}" has no HTTP binding, so its form needs a URL under the host's base; pass a base URL (e.g. --base-url https://agents.example.com).`,
        SECTION.form,
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
      `Binding URL ${JSON.stringify(url)} is relative and a TD form needs an absolute href; pass a base URL.`,
      SECTION.form,
    );
  }
  return resolved;
}

function leftoversOf(op: Operation): FormLeftovers {
  const stored = op.extensions?.['td']?.['forms'];
  if (!isObject(stored)) return {};
  const out: FormLeftovers = {};
  if (Array.isArray(stored['terms'])) out.terms = stored['terms'].filter(isObject);
  if (Array.isArray(stored['unbound'])) out.unbound = stored['unbound'];
  return out;
}
