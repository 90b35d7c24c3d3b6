/**
 * Canonical bindings under our namespace (`agentry:bindings`). The draft leaves "transport or invocation hints" to
 * the descriptor without defining fields, so Agentry writes its own binding objects verbatim and checks their shape
 * when reading them back.
 */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { copyJson } from '../../json/values.js';
import type { Binding, JsonValue } from '../../model/agent.js';

export const AGENTRY_BINDINGS = 'agentry:bindings';

/** The string fields each binding kind needs. */
const REQUIRED_STRINGS: Readonly<Record<Binding['kind'], readonly string[]>> = {
  'woa-rest': ['base', 'invokePath'],
  http: ['url', 'method'],
  mcp: ['server'],
  a2a: ['url', 'protocolBinding'],
  wss: ['url'],
  unix: ['socketPath'],
  local: ['name'],
  other: ['protocol'],
};
const HTTP_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);

export function readBindings(descriptor: ObjectReader, issues: IssueCollector): Binding[] {
  const items = descriptor.array(AGENTRY_BINDINGS);
  if (items === undefined) return [];
  const bindings: Binding[] = [];
  items.forEach((item, index) => {
    const binding = ObjectReader.of(
      item,
      `${descriptor.at(AGENTRY_BINDINGS)}/${index}`,
      issues,
      'agent-json',
      'A binding',
      '§6',
    );
    if (binding !== undefined && isValidBinding(binding, issues)) {
      bindings.push(copyJson(binding.value) as unknown as Binding);
    }
  });
  return bindings;
}

function isValidBinding(binding: ObjectReader, issues: IssueCollector): boolean {
  const kind = binding.string('kind', { required: true });
  if (kind === undefined) return false;
  const required = Object.hasOwn(REQUIRED_STRINGS, kind)
    ? REQUIRED_STRINGS[kind as Binding['kind']]
    : undefined;
  if (required === undefined) {
    issues.error(
      binding.at('kind'),
      'agent-json.binding.kind',
      `Binding kind "${kind}" is not one of ${Object.keys(REQUIRED_STRINGS).join(', ')}.`,
      '§6',
    );
    return false;
  }
  const before = issues.issues.length;
  for (const field of required) binding.text(field, { required: true });
  if (kind === 'other') binding.object('config', { required: true });
  const method = kind === 'http' ? binding.raw('method') : undefined;
  if (typeof method === 'string' && !HTTP_METHODS.has(method)) {
    issues.error(
      binding.at('method'),
      'agent-json.binding.method',
      `HTTP method "${method}" is not one of ${[...HTTP_METHODS].join(', ')}.`,
      '§6',
    );
  }
  binding.stringArray('operations');
  binding.array('security');
  return !issues.issues.slice(before).some((issue) => issue.severity === 'error');
}

export function writeBindings(bindings: readonly Binding[]): JsonValue[] {
  return bindings.map((binding) => copyJson(binding) ?? {});
}
