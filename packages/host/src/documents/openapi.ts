/**
 * OpenAPI 3.1 of the invocation endpoints: per agent the envelope route, per operation its own route (GET too for
 * safe operations), and the task routes, each with the operation's input and output JSON Schema (OpenAPI 3.1
 * schemas are JSON Schema 2020-12, so they are written unchanged). Core has no OpenAPI codec: this is the one
 * document the host writes itself.
 */
import {
  type Agent,
  CONFIRMATION_HEADER,
  isObject,
  type JsonObject,
  type JsonSchema,
  type JsonValue,
  type Operation,
  type SecurityScheme,
} from '@agentry/core';
import { operationPath } from '../model/hosted-agent.js';

const PROBLEM_REF: JsonObject = { $ref: '#/components/schemas/Problem' };
const PROBLEM_RESPONSE: JsonObject = {
  description: 'Problem details (RFC 9457), with the AIDIP error object',
  content: { 'application/problem+json': { schema: PROBLEM_REF } },
};
const ACCEPTED_RESPONSE: JsonObject = {
  description: 'Deferred: poll the task at Location',
  headers: {
    Location: { schema: { type: 'string' }, description: 'The task: GET for its status, DELETE to cancel' },
    'Retry-After': { schema: { type: 'integer' } },
  },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/TaskAccepted' } } },
};

export interface OpenApiOptions {
  baseUrl: string;
  title: string;
  version: string;
  description?: string;
  /** Serve `/tasks/{taskId}` (some operation is deferred). */
  tasks: boolean;
}

export function openApiDocument(agents: readonly Agent[], options: OpenApiOptions): JsonObject {
  const paths: JsonObject = {};
  const schemes = new Map<string, SecurityScheme>();
  for (const agent of agents) {
    for (const scheme of agent.auth?.schemes ?? []) schemes.set(scheme.id, scheme);
    paths[`/agents/${encodeURIComponent(agent.id)}/invoke`] = { post: envelopeOperation(agent) };
    for (const op of agent.operations) {
      const item: JsonObject = { post: postOperation(agent, op) };
      if (op.safe === true) item['get'] = getOperation(agent, op);
      paths[operationPath(agent.id, op.name)] = item;
    }
  }
  if (options.tasks) paths['/tasks/{taskId}'] = taskPaths();
  const info: JsonObject = { title: options.title, version: options.version };
  if (options.description !== undefined) info['description'] = options.description;
  const components: JsonObject = { schemas: componentSchemas() };
  if (schemes.size > 0) {
    const securitySchemes: JsonObject = {};
    for (const scheme of schemes.values()) {
      const written = securitySchemeOf(scheme);
      if (written !== undefined) securitySchemes[scheme.id] = written;
    }
    components['securitySchemes'] = securitySchemes;
  }
  return { openapi: '3.1.0', info, servers: [{ url: options.baseUrl }], paths, components };
}

function envelopeOperation(agent: Agent): JsonObject {
  const variants: JsonSchema[] = agent.operations.map((op) => ({
    type: 'object',
    required: ['operation', 'input'],
    properties: { agent: { const: agent.id }, operation: { const: op.name }, input: schemaOf(op.input) },
  }));
  const outputs = agent.operations.map((op) => schemaOf(op.output));
  const out: JsonObject = {
    operationId: `${agent.id}.invoke`,
    summary: `Invoke ${agent.name} (WoA envelope)`,
    tags: [agent.id],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: variants.length === 1 ? variants[0]! : { oneOf: variants } } },
    },
    responses: {
      '200': {
        description: "The operation's output",
        content: { 'application/json': { schema: outputs.length === 1 ? outputs[0]! : { anyOf: outputs } } },
      },
      ...(agent.operations.some((op) => op.executionModel === 'async') ? { '202': ACCEPTED_RESPONSE } : {}),
      default: PROBLEM_RESPONSE,
    },
  };
  return out;
}

function postOperation(agent: Agent, op: Operation): JsonObject {
  const out = baseOperation(agent, op, `${agent.id}.${op.name}`);
  const body: JsonObject = { content: { 'application/json': { schema: schemaOf(op.input) } } };
  if (op.input !== undefined) body['required'] = true;
  out['requestBody'] = body;
  return out;
}

function getOperation(agent: Agent, op: Operation): JsonObject {
  const out = baseOperation(agent, op, `${agent.id}.${op.name}.get`);
  const input = typeof op.input === 'object' ? op.input : {};
  const properties = isObject(input['properties']) ? input['properties'] : {};
  const required = new Set(Array.isArray(input['required']) ? input['required'] : []);
  const query = Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: schema as JsonValue,
    ...(isObject(schema) && schema['type'] === 'array' ? { explode: true } : {}),
  }));
  const headerParameters = Array.isArray(out['parameters']) ? out['parameters'] : [];
  out['parameters'] = [...headerParameters, ...query];
  return out;
}

function baseOperation(agent: Agent, op: Operation, operationId: string): JsonObject {
  const out: JsonObject = { operationId, tags: [agent.id] };
  const summary = op.title ?? op.name;
  out['summary'] = summary;
  if (op.description !== undefined) out['description'] = op.description;
  const content: JsonObject = { 'application/json': { schema: schemaOf(op.output) } };
  if (op.streaming === true) {
    content['text/event-stream'] = {
      schema: { type: 'string', description: 'SSE: chunk events, then result or error' },
    };
    content['application/x-ndjson'] = {
      schema: {
        type: 'string',
        description: 'NDJSON: {"type":"chunk"} lines, then {"type":"result"} or {"type":"error"}',
      },
    };
  }
  const responses: JsonObject = { '200': { description: "The operation's output", content } };
  if (op.executionModel === 'async') responses['202'] = ACCEPTED_RESPONSE;
  responses['default'] = PROBLEM_RESPONSE;
  out['responses'] = responses;
  if (op.security !== undefined) out['security'] = op.security;
  if (op.sensitivity !== undefined || op.requiresConfirmation === true) {
    out['parameters'] = [
      {
        name: CONFIRMATION_HEADER,
        in: 'header',
        required: true,
        description: 'Send `true` once a person confirmed the call; without it the answer is 428',
        schema: { const: 'true' },
      },
    ];
  }
  if (op.safe === true) out['x-agentry-safe'] = true;
  if (op.idempotent === true) out['x-agentry-idempotent'] = true;
  return out;
}

function taskPaths(): JsonObject {
  const parameters = [{ name: 'taskId', in: 'path', required: true, schema: { type: 'string' } }];
  const statusResponse = {
    description: 'The task: status, then result or error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/TaskStatus' } } },
  };
  return {
    parameters,
    get: {
      operationId: 'tasks.get',
      summary: 'Poll a deferred task',
      responses: { '200': statusResponse, default: PROBLEM_RESPONSE },
    },
    delete: {
      operationId: 'tasks.cancel',
      summary: 'Cancel a deferred task',
      responses: { '200': statusResponse, default: PROBLEM_RESPONSE },
    },
  };
}

function componentSchemas(): JsonObject {
  return {
    Problem: {
      type: 'object',
      required: ['type', 'title', 'status'],
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        instance: { type: 'string' },
        code: { type: 'string' },
        errors: {
          type: 'array',
          items: {
            type: 'object',
            required: ['pointer', 'detail'],
            properties: {
              pointer: { type: 'string' },
              detail: { type: 'string' },
              keyword: { type: 'string' },
            },
          },
        },
        error: {
          type: 'object',
          properties: { code: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
    TaskAccepted: {
      type: 'object',
      required: ['taskId', 'status'],
      properties: { taskId: { type: 'string' }, status: { const: 'pending' }, pollUrl: { type: 'string' } },
    },
    TaskStatus: {
      type: 'object',
      required: ['taskId', 'status'],
      properties: {
        taskId: { type: 'string' },
        status: { enum: ['pending', 'running', 'completed', 'failed', 'canceled'] },
        agent: { type: 'string' },
        operation: { type: 'string' },
        progress: {},
        result: {},
        error: PROBLEM_REF,
      },
    },
  };
}

function securitySchemeOf(scheme: SecurityScheme): JsonObject | undefined {
  switch (scheme.type) {
    case 'apiKey':
      return { type: 'apiKey', in: scheme.in ?? 'header', name: scheme.name ?? 'X-API-Key' };
    case 'bearer':
      return {
        type: 'http',
        scheme: 'bearer',
        ...(scheme.bearerFormat === undefined ? {} : { bearerFormat: scheme.bearerFormat }),
      };
    case 'basic':
      return { type: 'http', scheme: 'basic' };
    case 'mtls':
      return { type: 'mutualTLS' };
    case 'openIdConnect':
      return scheme.openIdConnectUrl === undefined
        ? undefined
        : { type: 'openIdConnect', openIdConnectUrl: scheme.openIdConnectUrl };
    default:
      return undefined;
  }
}

function schemaOf(schema: JsonSchema | undefined): JsonSchema {
  return schema ?? {};
}
