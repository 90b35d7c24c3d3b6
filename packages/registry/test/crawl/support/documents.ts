/**
 * The documents a well-behaved origin serves, in every format: the repository's example WoA document (two agents,
 * summarizer and keywords) re-based onto the test origin, then emitted by core's codecs, as a host would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertDocument, type FormatName, type JsonObject } from '@agentry/core';

const examples = join(import.meta.dirname, '../../../../../examples/documents');
const shared = join(import.meta.dirname, '../../../../../../shared');

export function exampleJson(name: string): JsonObject {
  return JSON.parse(readFileSync(join(examples, name), 'utf8')) as JsonObject;
}

export function sharedJson(...parts: string[]): unknown {
  return JSON.parse(readFileSync(join(shared, ...parts), 'utf8'));
}

/**
 * The example WoA document with its REST transport on `origin`. WoA requires https for REST, so the documents
 * name the https twin of the (plain http) test origin: what they say about invocation is not what is crawled.
 */
export function woaFor(origin: string): JsonObject {
  const woa = exampleJson('summarizer.woa.json');
  woa['transports'] = { rest: { base: httpsTwin(origin), invoke_path: '/agents/{agent_id}/invoke' } };
  return woa;
}

export function httpsTwin(origin: string): string {
  return origin.replace(/^http:/, 'https:');
}

/** The example agents in `format`: one document per agent for single-agent formats. */
export function emitted(origin: string, format: FormatName): JsonObject[] {
  const { output, source } = convertDocument(woaFor(origin), format, { baseUrl: httpsTwin(origin) });
  if (output === undefined) throw new Error(`cannot emit ${format}: ${JSON.stringify(source.issues)}`);
  return Array.isArray(output.document) ? output.document : [output.document];
}

export function emittedOne(origin: string, format: FormatName, index = 0): JsonObject {
  const document = emitted(origin, format)[index];
  if (document === undefined) throw new Error(`no ${format} document ${index}`);
  return document;
}

/** A small OpenAPI 3.1 document: two operations, typed parameters and a JSON body. */
export function openApiDocument(): JsonObject {
  return {
    openapi: '3.1.0',
    info: { title: 'Weather', description: 'Forecasts and alerts for any city.', version: '2.0.0' },
    servers: [{ url: '/v2' }],
    paths: {
      '/forecast': {
        get: {
          operationId: 'getForecast',
          summary: 'The forecast for a city',
          parameters: [
            { name: 'city', in: 'query', required: true, schema: { type: 'string' } },
            { name: 'days', in: 'query', schema: { type: 'integer', default: 3 } },
            { name: 'units', in: 'query', schema: { type: 'string', enum: ['metric', 'imperial'] } },
            { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Forecast' } } },
            },
          },
        },
      },
      '/alerts': {
        post: {
          operationId: 'subscribeAlerts',
          description: 'Subscribe to weather alerts',
          security: [{ apiKey: [] }],
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['city', 'callback'],
                  properties: {
                    city: { type: 'string' },
                    callback: { type: 'string', format: 'uri' },
                    until: { type: 'string', format: 'date-time' },
                  },
                },
              },
            },
          },
          responses: { '201': { description: 'created' } },
        },
      },
    },
    components: {
      schemas: {
        Forecast: {
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'array', items: { type: 'number' } } },
        },
      },
    },
  };
}
