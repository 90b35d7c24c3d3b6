/**
 * Every discovery document of a host (DESIGN.md §3), built once from its canonical agents with core's codecs and
 * kept as bytes: the agents cannot change while the host runs, so neither can the documents, their ETags or
 * their `Last-Modified`. Multi-agent formats list every agent; single-agent ones (AWP, A2A, the MCP projection at
 * `/capabilities`) describe the primary agent, and each agent has its own descriptor, card and projection.
 */
import { type Agent, type FormatName, getCodec, type JsonObject } from '@agentry/core';
import type { HostLogger } from '../logger.js';
import { ontologyFiles } from './ontology.js';
import { openApiDocument } from './openapi.js';
import { jsonDocument, representation, type StaticDocument } from './static-document.js';
import { directoryThing } from './wot-directory.js';

/** Signs the A2A card and publishes the keys (see ../signing). */
export interface CardSigning {
  sign(card: JsonObject): Promise<JsonObject>;
  jwks(): unknown;
}

export interface DocumentSettings {
  baseUrl: string;
  agents: readonly Agent[];
  primary: Agent;
  lastModified: Date;
  cacheControl: string;
  logger: HostLogger;
  signing?: CardSigning;
  /** Some operation is deferred, so the task routes exist. */
  tasks: boolean;
}

/** Documents by path (relative to the host's base path). */
export type DocumentTable = ReadonlyMap<string, StaticDocument>;

export const TD_MEDIA_TYPES = ['application/td+json', 'application/ld+json'] as const;

export async function buildDocuments(settings: DocumentSettings): Promise<DocumentTable> {
  const { baseUrl, agents, primary, lastModified, cacheControl } = settings;
  const table = new Map<string, StaticDocument>();
  const json = (path: string, value: unknown, mediaTypes: readonly string[]): void => {
    table.set(path, jsonDocument(value, mediaTypes, lastModified, cacheControl));
  };
  const emit = (format: FormatName, of: readonly Agent[], path: string): JsonObject => {
    const result = getCodec(format).emit(of, { baseUrl });
    const errors = result.issues.filter((issue) => issue.severity === 'error');
    if (errors.length > 0) {
      settings.logger.warn(`The ${format} document at ${path} has problems; clients may not read it.`, {
        issues: errors,
      });
    }
    return Array.isArray(result.document) ? result.document[0]! : result.document;
  };

  json('/.well-known/woa.json', emit('woa', agents, '/.well-known/woa.json'), ['application/woa+json']);
  json('/agent.json', emit('awp', [primary], '/agent.json'), ['application/json']);
  let card = emit('a2a', [primary], '/.well-known/agent-card.json');
  if (settings.signing !== undefined) {
    card = await settings.signing.sign(card);
    json('/.well-known/jwks.json', settings.signing.jwks(), ['application/jwk-set+json', 'application/json']);
  }
  json('/.well-known/agent-card.json', card, ['application/json']);
  json('/.well-known/agent.json', card, ['application/json']);
  json('/.well-known/agents.json', emit('agents-json', agents, '/.well-known/agents.json'), [
    'application/json',
  ]);

  const cards: JsonObject[] = [];
  const cardUrls: string[] = [];
  for (const agent of agents) {
    const id = encodeURIComponent(agent.id);
    json(`/agents/${id}/agent.json`, emit('agent-json', [agent], `/agents/${id}/agent.json`), [
      'application/ld+json',
    ]);
    const thing = emit('td', [agent], `/agents/${id}/card`);
    cards.push(thing);
    cardUrls.push(`${baseUrl}/agents/${id}/card`);
    json(`/agents/${id}/card`, thing, TD_MEDIA_TYPES);
    json(`/${id}/card`, thing, TD_MEDIA_TYPES);
    json(`/agents/${id}/capabilities`, emit('mcp', [agent], `/agents/${id}/capabilities`), [
      'application/json',
    ]);
  }
  json('/capabilities', emit('mcp', [primary], '/capabilities'), ['application/json']);
  json('/.well-known/wot', directoryThing({ baseUrl, title: `${primary.name} directory`, cardUrls }), [
    'application/td+json',
  ]);
  json('/things', cards, ['application/ld+json', 'application/json']);
  json(
    '/openapi.json',
    openApiDocument(agents, {
      baseUrl,
      title: agents.length === 1 ? primary.name : `${primary.name} and ${agents.length - 1} more agents`,
      version: primary.version ?? '0.0.0',
      description: primary.description,
      tasks: settings.tasks,
    }),
    ['application/json'],
  );

  const ontology = ontologyFiles();
  const turtle = representation('text/turtle', ontology.turtle);
  const context = representation('application/ld+json', ontology.context);
  table.set('/ontology', { representations: [turtle, context], lastModified, cacheControl });
  table.set('/ontology/agentry.ttl', { representations: [turtle], lastModified, cacheControl });
  table.set('/ontology/agentry.context.jsonld', { representations: [context], lastModified, cacheControl });
  return table;
}
