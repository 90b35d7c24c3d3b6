/**
 * The OpenAPI document is a well-formed OpenAPI 3.1 document: no OAS 3.1 meta-schema package is installed, so the
 * rules the document must follow are checked here one by one (structure, references, parameters, responses), and
 * every schema in it is checked against the JSON Schema 2020-12 meta-schema with core's validator. Real answers of
 * the resolver and the gateway validate against the schemas that describe them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkSchemaDocument,
  compileSchema,
  IssueCollector,
  type JsonObject,
  type JsonValue,
  parsePointer,
} from '@agentry/core';
import { problemDetails } from '../../src/gateway/index.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { resolveIntent } from '../../src/resolve/index.js';
import { agentOf, aidipDocument, depsOver, recordOf } from '../resolve/records.js';

const document = openApiDocument({ baseUrl: 'https://registry.example.com/', version: '0.1.0' });

/** The routes of the registry's API (the store-and-API brief, §3–4). */
const ROUTES = [
  'GET /agents',
  'POST /agents',
  'POST /agents/search',
  'GET /facets',
  'GET /agents/{id}',
  'PUT /agents/{id}',
  'DELETE /agents/{id}',
  'GET /agents/{id}/history',
  'POST /agents/{id}/feedback',
  'POST /agents/{id}/invoke',
  'POST /resolve',
  'POST /admin/tokens',
  'DELETE /admin/tokens/{id}',
  'GET /admin/audit',
  'GET /admin/tokens',
  'GET /openapi.json',
  'GET /readyz',
  'GET /healthz',
  'GET /metrics',
  'POST /hosts',
  'GET /hosts',
  'GET /hosts/{origin}',
  'GET /imports',
  'DELETE /hosts/{origin}',
  'GET /.well-known/ai-catalog.json',
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(root: JsonValue, pointer: string): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const token of parsePointer(pointer)) {
    if (isObject(node)) node = node[token];
    else if (Array.isArray(node)) node = node[Number(token)];
    else return undefined;
  }
  return node;
}

function* walk(value: JsonValue, pointer = ''): Generator<{ pointer: string; value: JsonValue }> {
  yield { pointer, value };
  if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* walk(item, `${pointer}/${i}`);
  else if (isObject(value))
    for (const [key, item] of Object.entries(value))
      yield* walk(item, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
}

/** Every place the document holds a schema: components, parameters, media types, headers. */
function schemaLocations(): Array<{ pointer: string; schema: JsonValue }> {
  const out: Array<{ pointer: string; schema: JsonValue }> = [];
  for (const [name, schema] of Object.entries(document['components'] as JsonObject)) {
    if (name !== 'schemas') continue;
    for (const [key, value] of Object.entries(schema as JsonObject))
      out.push({ pointer: `/components/schemas/${key}`, schema: value });
  }
  for (const { pointer, value } of walk(document)) {
    if (!isObject(value) || pointer.startsWith('/components/schemas')) continue;
    if (
      'schema' in value &&
      (pointer.includes('/parameters/') || pointer.includes('/content/') || pointer.includes('/headers/'))
    ) {
      out.push({ pointer: `${pointer}/schema`, schema: value['schema']! });
    }
  }
  return out;
}

/** Validates `instance` against the component `name`, references resolved within the document. */
function validateAgainst(name: string, instance: unknown): string[] {
  const validate = compileSchema({
    $ref: `#/components/schemas/${name}`,
    components: document['components']!,
  });
  return validate(instance).map((failure) => `${failure.pointer}: ${failure.message}`);
}

describe('OpenAPI document', () => {
  it('is an OpenAPI 3.1 document with info, servers and security schemes', () => {
    assert.equal(document['openapi'], '3.1.0');
    const info = document['info'] as JsonObject;
    assert.equal(typeof info['title'], 'string');
    assert.equal(info['version'], '0.1.0');
    assert.deepEqual(document['servers'], [{ url: 'https://registry.example.com' }]);
    const schemes = (document['components'] as JsonObject)['securitySchemes'] as JsonObject;
    assert.deepEqual(schemes['bearerToken'], {
      type: 'http',
      scheme: 'bearer',
      description: 'An API token from POST /admin/tokens (or the admin token).',
    });
    const allowed = new Set([
      'openapi',
      'info',
      'jsonSchemaDialect',
      'servers',
      'paths',
      'webhooks',
      'components',
      'security',
      'tags',
      'externalDocs',
    ]);
    for (const key of Object.keys(document))
      assert.ok(allowed.has(key) || key.startsWith('x-'), `unknown member ${key}`);
  });

  it('describes every route of the registry, and only those', () => {
    const found: string[] = [];
    for (const [path, item] of Object.entries(document['paths'] as JsonObject)) {
      for (const method of Object.keys(item as JsonObject)) {
        if (METHODS.includes(method)) found.push(`${method.toUpperCase()} ${path}`);
      }
    }
    assert.deepEqual(found.sort(), [...ROUTES].sort());
  });

  it('resolves every reference', () => {
    for (const { pointer, value } of walk(document)) {
      if (!isObject(value) || typeof value['$ref'] !== 'string') continue;
      const target = value['$ref'];
      assert.ok(target.startsWith('#/'), `${pointer}: external reference ${target}`);
      assert.ok(at(document, target.slice(1)) !== undefined, `${pointer}: ${target} does not resolve`);
    }
  });

  it('gives each operation a unique id, declared path parameters and answers for success and failure', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(document['paths'] as JsonObject)) {
      const pathItem = item as JsonObject;
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      for (const method of Object.keys(pathItem).filter((m) => METHODS.includes(m))) {
        const operation = pathItem[method] as JsonObject;
        const id = operation['operationId'] as string;
        assert.ok(!ids.has(id), `duplicate operationId ${id}`);
        ids.add(id);
        const parameters = [
          ...((pathItem['parameters'] as JsonObject[]) ?? []),
          ...((operation['parameters'] as JsonObject[]) ?? []),
        ];
        for (const name of templated) {
          const declared = parameters.find((p) => p['in'] === 'path' && p['name'] === name);
          assert.ok(
            declared !== undefined && declared['required'] === true,
            `${method} ${path}: path parameter ${name}`,
          );
        }
        for (const parameter of parameters) {
          assert.ok(['query', 'header', 'path', 'cookie'].includes(parameter['in'] as string));
          assert.ok(typeof parameter['name'] === 'string' && 'schema' in parameter);
        }
        const responses = Object.keys(operation['responses'] as JsonObject);
        for (const status of responses) assert.match(status, /^(?:[1-5](?:\d\d|XX)|default)$/);
        assert.ok(
          responses.some((s) => /^[23]/.test(s)),
          `${method} ${path}: no success answer`,
        );
        for (const [status, response] of Object.entries(operation['responses'] as JsonObject)) {
          const resolved =
            isObject(response) && typeof response['$ref'] === 'string'
              ? at(document, response['$ref'].slice(1))
              : response;
          assert.ok(
            isObject(resolved) && typeof resolved['description'] === 'string',
            `${method} ${path} ${status}: description`,
          );
          if (/^[45]/.test(status)) {
            const content = resolved['content'] as JsonObject;
            assert.ok('application/problem+json' in content, `${method} ${path} ${status}: not problem+json`);
          }
        }
        if (operation['requestBody'] !== undefined) assert.ok(method === 'post' || method === 'put');
      }
    }
  });

  it('holds only valid JSON Schema 2020-12 schemas', () => {
    const locations = schemaLocations();
    assert.ok(locations.length > 40, `found ${locations.length} schemas`);
    for (const { pointer, schema } of locations) {
      const issues = new IssueCollector('OpenAPI');
      checkSchemaDocument(schema, pointer, issues, { codePrefix: 'openapi', what: pointer });
      assert.deepEqual(issues.issues, [], pointer);
    }
  });

  it("describes the resolver's and the gateway's real answers", async () => {
    const translator = agentOf(
      aidipDocument({
        id: 'translator',
        name: 'Translator',
        description: 'Translates text.',
        operation: 'translate',
        operationDescription: 'Translate text.',
        auth: 'api_key',
      }),
    );
    const result = await resolveIntent(
      { intent: 'translate text' },
      depsOver([recordOf(translator)], 'https://r.example'),
    );
    assert.equal(result.status, 200);
    if (result.status === 200) {
      assert.equal(result.body.candidates.length, 1);
      assert.deepEqual(validateAgainst('ResolveResponse', result.body), []);
    }
    const invalid = await resolveIntent({ intent: 3 }, depsOver([]));
    if (invalid.status === 400) assert.deepEqual(validateAgainst('Problem', invalid.problem), []);
    assert.deepEqual(validateAgainst('ResolveRequest', { intent: 'x', policy: { min_trust: 0.5 } }), []);
    assert.notDeepEqual(validateAgainst('ResolveRequest', { intent: 'x', policy: { min_trust: 5 } }), []);
    const problem = problemDetails({
      status: 502,
      code: 'AgentError',
      detail: 'Boom.',
      errors: [{ pointer: '/input', detail: 'x' }],
    });
    assert.deepEqual(validateAgainst('Problem', problem), []);
    assert.notDeepEqual(validateAgainst('Problem', { title: 'no type' }), []);
  });
});
