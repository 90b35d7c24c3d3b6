/**
 * Index documents: documents that list other documents rather than describe agents. Two are read here (the rest of
 * the formats are core's):
 *
 * - An AI Catalog (`/.well-known/ai-catalog.json`, `application/ai-catalog+json`): `{specVersion, host?, entries:
 *   [{identifier, displayName, type, url | data, description?, ...}], collections?: [{url}]}`. An entry's `url` is a
 *   document to fetch (a nested catalog when its `type` is `application/ai-catalog+json`); its `data` is the
 *   document inline. `id`/`name`/`mediaType` are read as older spellings of `identifier`/`displayName`/`type`.
 * - A WoT directory (`/.well-known/wot`): a ThingDirectory TD whose `things` property (its form's `href`) lists
 *   the Thing Descriptions, or, more simply, a `things` array or `links` with `rel: "item"`. A listing answer is
 *   an array of TDs or of TD URLs. A plain TD there is read as a TD.
 *
 * Both readers only collect; what is fetched, and whether it is on this origin, is the crawl's decision.
 */
import { detectFormat } from '@agentry/core';

export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';

export interface IndexContents {
  /** Documents to fetch, absolute. */
  links: string[];
  /** Nested indexes to fetch and read the same way (AI Catalog collections, WoT listings). */
  indexes: string[];
  /** Documents given inline, with the JSON pointer they were found at. */
  inline: Array<{ pointer: string; document: unknown }>;
  /** Why the document could not be read as this index, when it could not. */
  problem?: string;
}

export function looksLikeAiCatalog(document: unknown): boolean {
  return isObject(document) && Array.isArray(document['entries']);
}

export function readAiCatalog(document: unknown, baseUrl: string): IndexContents {
  const contents = empty();
  if (!looksLikeAiCatalog(document)) {
    contents.problem = 'Not an AI Catalog: expected an object with an "entries" array.';
    return contents;
  }
  const catalog = document as Record<string, unknown>;
  (catalog['entries'] as unknown[]).forEach((entry, index) => {
    if (!isObject(entry)) return;
    const type = stringOf(entry['type']) ?? stringOf(entry['mediaType']);
    if (isObject(entry['data'])) {
      contents.inline.push({ pointer: `/entries/${index}/data`, document: entry['data'] });
      return;
    }
    const url = absolute(entry['url'], baseUrl);
    if (url === undefined) return;
    if (type !== undefined && type.split(';')[0]?.trim() === AI_CATALOG_MEDIA_TYPE)
      contents.indexes.push(url);
    else contents.links.push(url);
  });
  const collections = catalog['collections'];
  if (Array.isArray(collections)) {
    for (const collection of collections) {
      const url = isObject(collection) ? absolute(collection['url'], baseUrl) : absolute(collection, baseUrl);
      if (url !== undefined) contents.indexes.push(url);
    }
  }
  return contents;
}

export function readWotDirectory(document: unknown, baseUrl: string): IndexContents {
  const contents = empty();
  if (Array.isArray(document)) {
    document.forEach((item, index) => {
      addThing(contents, item, `/${index}`, baseUrl);
    });
    return contents;
  }
  if (!isObject(document)) {
    contents.problem = 'Not a WoT directory: expected a ThingDirectory TD or an array of Thing Descriptions.';
    return contents;
  }
  const things = document['things'];
  if (Array.isArray(things)) {
    things.forEach((item, index) => {
      addThing(contents, item, `/things/${index}`, baseUrl);
    });
  }
  const links = document['links'];
  if (Array.isArray(links)) {
    for (const link of links) {
      if (!isObject(link) || (link['rel'] !== 'item' && link['rel'] !== 'describedby')) continue;
      const url = absolute(link['href'], baseUrl);
      if (url !== undefined) contents.links.push(url);
    }
  }
  const listing = thingsListing(document, baseUrl);
  if (listing !== undefined) contents.indexes.push(listing);
  const isDirectory = typeList(document['@type']).includes('ThingDirectory');
  if (!isDirectory && contents.links.length + contents.indexes.length + contents.inline.length === 0) {
    if (detectFormat(document) !== undefined) contents.inline.push({ pointer: '', document });
    else contents.problem = 'Not a WoT directory: no "things" property, no item links, and not a TD.';
  }
  return contents;
}

/** A ThingDirectory's `things` property: the href of its first form lists the directory's TDs. */
function thingsListing(document: Record<string, unknown>, baseUrl: string): string | undefined {
  const properties = document['properties'];
  if (!isObject(properties)) return undefined;
  const things = properties['things'];
  if (!isObject(things) || !Array.isArray(things['forms'])) return undefined;
  for (const form of things['forms']) {
    if (!isObject(form)) continue;
    const base = stringOf(document['base']);
    const url = absolute(form['href'], base !== undefined && URL.canParse(base) ? base : baseUrl);
    if (url !== undefined) return url;
  }
  return undefined;
}

function addThing(contents: IndexContents, item: unknown, pointer: string, baseUrl: string): void {
  if (isObject(item) && typeof item['href'] === 'string') {
    const url = absolute(item['href'], baseUrl);
    if (url !== undefined) contents.links.push(url);
  } else if (isObject(item)) {
    contents.inline.push({ pointer, document: item });
  } else {
    const url = absolute(item, baseUrl);
    if (url !== undefined) contents.links.push(url);
  }
}

function empty(): IndexContents {
  return { links: [], indexes: [], inline: [] };
}

function absolute(value: unknown, baseUrl: string): string | undefined {
  if (typeof value !== 'string' || value.trim() === '' || !URL.canParse(value, baseUrl)) return undefined;
  const url = new URL(value, baseUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  url.hash = '';
  return url.href;
}

function typeList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
