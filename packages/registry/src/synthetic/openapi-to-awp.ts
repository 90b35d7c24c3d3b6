/**
 * A synthetic AWP surface (AWP §14) for an origin that serves an OpenAPI 3.x document but no agent description:
 * `domain` from the origin, `intent` from `info`, one action per operation (inputs from its parameters and JSON
 * request body, outputs from its JSON success response, `endpoint` + `method`), declared `source: "synthetic"`
 * with `generated_by`, `confidence` and `last_verified`. The confidence says how complete the OpenAPI document
 * is (docs/crawler.md, "Synthetic surfaces"); it never reaches 1, since a native description is always preferred.
 */
import type { JsonObject, JsonValue } from '@agentry/core';
import { trimEdges } from '@agentry/core';

export const GENERATOR = 'agentry-crawler/0.1.0';

/** Operations turned into actions per document, so that a huge or hostile document stays bounded. */
export const MAX_ACTIONS = 200;

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;
const MAX_CONFIDENCE = 0.95;

export interface SyntheticOptions {
  /** The origin the OpenAPI document was fetched from; its host is the surface's domain. */
  origin: string;
  /** The OpenAPI document's own URL, which relative `servers` resolve against. */
  sourceUrl: string;
  /** ISO 8601: when the document was fetched (`last_verified`). */
  verifiedAt: string;
  generator?: string;
}

export interface SyntheticSurface {
  /** The AWP agent.json, to be read with core's awp codec. */
  document: JsonObject;
  confidence: number;
}

/** True for an OpenAPI 3.x document (`openapi: "3.…"` with `paths` or `info`). */
export function isOpenApi3(document: unknown): document is Record<string, unknown> {
  return (
    isObject(document) &&
    typeof document['openapi'] === 'string' &&
    /^3\.\d+/.test(document['openapi']) &&
    isObject(document['info'])
  );
}

/** The synthetic surface, or undefined when the document is not OpenAPI 3.x or has no usable operation. */
export function openApiToAwp(document: unknown, options: SyntheticOptions): SyntheticSurface | undefined {
  if (!isOpenApi3(document)) return undefined;
  const refs = new RefResolver(document);
  const info = document['info'] as Record<string, unknown>;
  const server = serverUrl(document['servers'], options.sourceUrl, options.origin);
  const rootSecurity = document['security'];
  const score = new Completeness();
  score.info(info);
  score.servers(Array.isArray(document['servers']) && document['servers'].length > 0);

  const actions: JsonObject[] = [];
  const ids = new Set<string>();
  const paths = isObject(document['paths']) ? document['paths'] : {};
  for (const path of Object.keys(paths)) {
    // OpenAPI paths start with a slash; anything else could not be called.
    if (!path.startsWith('/') || !URL.canParse(server + path)) continue;
    const item = refs.follow(paths[path]);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      if (actions.length >= MAX_ACTIONS) break;
      const operation = refs.follow(item[method]);
      if (!isObject(operation)) continue;
      const parameters = [...listOf(item['parameters']), ...listOf(operation['parameters'])];
      const action = actionFor(path, method, operation, parameters, refs, score, server);
      action['id'] = uniqueId(action['id'] as string, ids);
      const security = operation['security'] ?? rootSecurity;
      action['auth_required'] = requiresAuth(security);
      actions.push(action);
    }
  }
  if (actions.length === 0) return undefined;
  const confidence = score.confidence();
  const domain = new URL(options.origin).host;
  const title = text(info['title']);
  const description = text(info['description']);
  const intent =
    [title, description].filter((part) => part !== undefined).join(': ') || `The HTTP API of ${domain}`;
  return {
    document: {
      awp_version: '0.1',
      domain,
      intent,
      actions,
      source: 'synthetic',
      generated_by: options.generator ?? GENERATOR,
      confidence,
      last_verified: options.verifiedAt,
    },
    confidence,
  };
}

function actionFor(
  path: string,
  method: (typeof METHODS)[number],
  operation: Record<string, unknown>,
  parameters: unknown[],
  refs: RefResolver,
  score: Completeness,
  server: string,
): JsonObject {
  const operationId = text(operation['operationId']);
  const summary = text(operation['summary']) ?? text(operation['description']);
  score.operation(operationId !== undefined, summary !== undefined);
  const inputs: JsonObject = {};
  for (const value of parameters) {
    const parameter = refs.follow(value);
    if (!isObject(parameter) || typeof parameter['name'] !== 'string') continue;
    if (parameter['in'] === 'header' || parameter['in'] === 'cookie') continue;
    const schema = refs.follow(parameter['schema']);
    score.input(isObject(schema) && schema['type'] !== undefined);
    inputs[parameter['name']] = inputFor(
      schema,
      parameter['required'] === true,
      text(parameter['description']),
      refs,
    );
  }
  const body = jsonSchemaOf(refs.follow(operation['requestBody']), refs);
  if (body !== undefined) {
    const properties = isObject(body['properties']) ? body['properties'] : undefined;
    const required = new Set(listOf(body['required']).filter((name) => typeof name === 'string'));
    if (properties !== undefined) {
      for (const name of Object.keys(properties)) {
        const schema = refs.follow(properties[name]);
        score.input(isObject(schema) && schema['type'] !== undefined);
        const described = isObject(schema) ? text(schema['description']) : undefined;
        inputs[name] = inputFor(schema, required.has(name), described, refs);
      }
    } else {
      score.input(body['type'] !== undefined);
      inputs['body'] = inputFor(body, true, undefined, refs);
    }
  }
  const outputs: JsonObject = {};
  const response = successResponse(operation['responses'], refs);
  const output = response === undefined ? undefined : jsonSchemaOf(response, refs);
  score.output(output !== undefined);
  if (output !== undefined && isObject(output['properties'])) {
    const properties = output['properties'];
    for (const name of Object.keys(properties)) outputs[name] = awpType(refs.follow(properties[name]), refs);
  } else if (output !== undefined) {
    outputs['result'] = awpType(output, refs);
  }
  return {
    id: operationId ?? `${method}_${path}`,
    description: summary ?? `${method.toUpperCase()} ${path}`,
    inputs,
    outputs,
    endpoint: server + path,
    method: method.toUpperCase(),
  };
}

function inputFor(
  schema: unknown,
  required: boolean,
  description: string | undefined,
  refs: RefResolver,
): JsonObject {
  const input: JsonObject = {};
  const enumValues = isObject(schema) && Array.isArray(schema['enum']) ? schema['enum'] : undefined;
  const options = enumValues?.filter((value): value is string => typeof value === 'string' && value !== '');
  if (options !== undefined && options.length > 0) {
    input['type'] = 'enum';
    input['options'] = options;
  } else {
    input['type'] = isObject(schema) ? awpType(schema, refs) : 'string';
  }
  if (required) input['required'] = true;
  if (isObject(schema) && isJsonScalar(schema['default'])) input['default'] = schema['default'] as JsonValue;
  const said = description ?? (isObject(schema) ? text(schema['description']) : undefined);
  if (said !== undefined) input['description'] = said;
  return input;
}

/** The nearest AWP type (§8) of a JSON Schema: primitives, `ISO8601`, `url`, `array[T]`, `object`. */
function awpType(schema: unknown, refs: RefResolver, depth = 0): string {
  const resolved = refs.follow(schema);
  if (!isObject(resolved)) return 'object';
  const type = Array.isArray(resolved['type'])
    ? resolved['type'].find((item) => item !== 'null')
    : resolved['type'];
  switch (type) {
    case 'string':
      if (resolved['format'] === 'date-time' || resolved['format'] === 'date') return 'ISO8601';
      return resolved['format'] === 'uri' || resolved['format'] === 'url' ? 'url' : 'string';
    case 'integer':
      return 'integer';
    case 'number':
      return 'float';
    case 'boolean':
      return 'boolean';
    case 'array': {
      if (depth > 3) return 'array';
      const items = resolved['items'];
      return items === undefined ? 'array' : `array[${awpType(items, refs, depth + 1)}]`;
    }
    default:
      return 'object';
  }
}

function successResponse(responses: unknown, refs: RefResolver): Record<string, unknown> | undefined {
  if (!isObject(responses)) return undefined;
  const code = ['200', '201', '202', '2XX', 'default'].find(
    (candidate) => responses[candidate] !== undefined,
  );
  if (code === undefined) return undefined;
  const response = refs.follow(responses[code]);
  return isObject(response) ? response : undefined;
}

/** The JSON schema of a request body or response (`content['application/json'].schema`). */
function jsonSchemaOf(value: unknown, refs: RefResolver): Record<string, unknown> | undefined {
  if (!isObject(value) || !isObject(value['content'])) return undefined;
  const content = value['content'];
  const type = Object.keys(content).find((name) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(name));
  if (type === undefined) return undefined;
  const media = content[type];
  const schema = isObject(media) ? refs.follow(media['schema']) : undefined;
  return isObject(schema) ? schema : undefined;
}

/** The first server's URL, absolute (relative servers resolve against the document's URL), without a slash. */
function serverUrl(servers: unknown, sourceUrl: string, origin: string): string {
  const first = listOf(servers)[0];
  const url = isObject(first) ? text(first['url']) : undefined;
  if (url === undefined || url.includes('{') || !URL.canParse(url, sourceUrl)) return origin;
  const resolved = new URL(url, sourceUrl);
  if (resolved.protocol !== 'https:' && resolved.protocol !== 'http:') return origin;
  return (resolved.origin + resolved.pathname).replace(/\/+$/, '');
}

function requiresAuth(security: unknown): boolean {
  const requirements = listOf(security);
  // An empty requirement object among the alternatives means anonymous access is one of them.
  return (
    requirements.length > 0 && !requirements.some((item) => isObject(item) && Object.keys(item).length === 0)
  );
}

function uniqueId(raw: string, taken: Set<string>): string {
  const base = trimEdges(raw.replace(/[^A-Za-z0-9_.-]+/g, '_'), '_') || 'operation';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

/** Local `$ref`s (`#/components/...`), followed a bounded number of times so that a cycle cannot loop. */
class RefResolver {
  constructor(private readonly root: Record<string, unknown>) {}

  follow(value: unknown): unknown {
    let current = value;
    for (let hops = 0; hops < 8 && isObject(current) && typeof current['$ref'] === 'string'; hops++) {
      current = this.#lookup(current['$ref']);
    }
    return isObject(current) && typeof current['$ref'] === 'string' ? undefined : current;
  }

  #lookup(ref: string): unknown {
    if (!ref.startsWith('#/')) return undefined;
    let current: unknown = this.root;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
      current = current[key];
    }
    return current;
  }
}

/**
 * How complete the document is, 0..1, weighted: info (title, description) 0.15, servers 0.1, operations with
 * a summary 0.25, with an operationId 0.15, typed inputs 0.2, JSON success responses 0.15. Scaled to at most 0.95.
 */
class Completeness {
  #info = 0;
  #servers = 0;
  #operations = 0;
  #summaries = 0;
  #operationIds = 0;
  #inputs = 0;
  #typedInputs = 0;
  #outputs = 0;

  info(info: Record<string, unknown>): void {
    this.#info =
      (text(info['title']) === undefined ? 0 : 0.5) + (text(info['description']) === undefined ? 0 : 0.5);
  }

  servers(present: boolean): void {
    this.#servers = present ? 1 : 0;
  }

  operation(hasId: boolean, hasSummary: boolean): void {
    this.#operations++;
    if (hasId) this.#operationIds++;
    if (hasSummary) this.#summaries++;
  }

  input(typed: boolean): void {
    this.#inputs++;
    if (typed) this.#typedInputs++;
  }

  output(present: boolean): void {
    if (present) this.#outputs++;
  }

  confidence(): number {
    const ratio = (part: number, whole: number): number => (whole === 0 ? 1 : part / whole);
    const operations = this.#operations;
    const score =
      0.15 * this.#info +
      0.1 * this.#servers +
      0.25 * ratio(this.#summaries, operations) +
      0.15 * ratio(this.#operationIds, operations) +
      0.2 * ratio(this.#typedInputs, this.#inputs) +
      0.15 * ratio(this.#outputs, operations);
    return Math.round(score * MAX_CONFIDENCE * 100) / 100;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isJsonScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
