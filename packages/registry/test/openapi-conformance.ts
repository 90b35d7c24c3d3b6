/**
 * Every answer an API test gets is held to `/openapi.json`: its status must be one the document lists for that
 * operation, and a body of a documented media type must validate against the documented schema. So the document
 * is tested against the implementation by every request of every API test, not by a sample.
 */
import { compileSchema, type JsonObject, type JsonValue } from '@agentry/core';
import { openApiDocument } from '../src/openapi/index.js';

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Templated segments: the fewer, the more specific (`/agents/search` before `/agents/{id}`). */
  parameters: number;
  responses: JsonObject;
}

const document = openApiDocument({ baseUrl: 'http://127.0.0.1', version: '0.0.0' });
const components = document['components'] as JsonObject;
const operations: Operation[] = Object.entries(document['paths'] as JsonObject)
  .flatMap(([template, item]) =>
    Object.entries(item as JsonObject).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
      parameters: (template.match(/\{/g) ?? []).length,
      responses: (operation as JsonObject)['responses'] as JsonObject,
    })),
  )
  .sort((a, b) => a.parameters - b.parameters);

const validators = new Map<string, (instance: unknown) => Array<{ pointer: string; message: string }>>();

/**
 * Throws when the answer is not one the document describes. Requests to paths or methods the document does not
 * have are left alone (tests probe them on purpose; the routes test checks the document lists every route).
 */
export function assertDocumented(
  method: string,
  path: string,
  answer: { status: number; headers: Headers; json: unknown; text: string },
): void {
  const pathname = new URL(path, 'http://registry.test').pathname;
  const operation = operations.find((op) => op.method === method && op.pattern.test(pathname));
  if (operation === undefined) return;
  const where = `${method} ${path} (${operation.template})`;
  const status = String(answer.status);
  const listed =
    operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses['default'];
  if (listed === undefined) {
    throw new Error(
      `${where} answered ${status}, which /openapi.json does not list (it lists ${Object.keys(operation.responses).join(', ')}): ${answer.text.slice(0, 200)}`,
    );
  }
  const response = resolved(listed);
  const content = response['content'] as JsonObject | undefined;
  const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (answer.text === '' || content === undefined) return;
  const media = content[mediaType] as JsonObject | undefined;
  if (media === undefined) {
    throw new Error(
      `${where} answered ${status} as ${mediaType || 'no media type'}; /openapi.json lists ${Object.keys(content).join(', ')}`,
    );
  }
  const schema = media['schema'] as JsonObject | undefined;
  if (schema === undefined || answer.json === undefined) return;
  const key = `${method} ${operation.template} ${status} ${mediaType}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = compileSchema({ ...schema, components } as JsonObject);
    validators.set(key, validate);
  }
  const failures = validate(answer.json);
  if (failures.length > 0) {
    throw new Error(
      `${where} answered ${status} with a body its /openapi.json schema refuses: ${failures
        .slice(0, 5)
        .map((failure) => `${failure.pointer || '/'}: ${failure.message}`)
        .join('; ')}`,
    );
  }
}

function resolved(response: JsonValue): JsonObject {
  const object = response as JsonObject;
  const reference = object['$ref'];
  if (typeof reference !== 'string') return object;
  const name = reference.slice('#/components/responses/'.length);
  return (components['responses'] as JsonObject)[name] as JsonObject;
}
