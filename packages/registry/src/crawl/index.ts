/**
 * What the rest of the registry takes from the crawler: the crawler itself, made over the registry's store. The
 * public crawl surface (types, parsers, ids) is named once, by the `@agentry/registry/crawler` entry (crawler.ts);
 * this barrel names only what the registry's own modules import, so the two lists cannot drift apart.
 */
export { type Crawler, createCrawler } from './scheduler.js';
