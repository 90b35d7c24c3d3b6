/**
 * IRIs and prefixes Agentry writes into documents. Our own terms live under one namespace so that fields no
 * ecosystem defines (the WoT ADR's governance fields, canonical bindings) are visibly ours, never squatting on
 * another vocabulary.
 */

/** Agentry's RDF namespace (a w3id.org permanent identifier). */
export const AGENTRY_NS = 'https://w3id.org/agentry/ns#';
/** Prefix bound to `AGENTRY_NS` in the documents we emit. */
export const AGENTRY_PREFIX = 'agentry';
/** Where our JSON-LD context is published; the same file ships in @agentry/core's `ontology/` folder. */
export const AGENTRY_CONTEXT_URL = 'https://w3id.org/agentry/ns/context.jsonld';
/** Where our ontology (Turtle) is published; the same file ships in @agentry/core's `ontology/` folder. */
export const AGENTRY_ONTOLOGY_URL = 'https://w3id.org/agentry/ns';

/** The ADR-0015 namespace whose `trails:` terms we also read. */
export const TRAILS_NS = 'https://trails.dev/ont/core#';

export const TD_CONTEXT_1_0 = 'https://www.w3.org/2019/wot/td/v1';
export const TD_CONTEXT_1_1 = 'https://www.w3.org/2022/wot/td/v1.1';
export const TD_CONTEXTS: readonly string[] = [TD_CONTEXT_1_0, TD_CONTEXT_1_1];

export const SCHEMA_ORG_NS = 'https://schema.org/';
export const PROV_NS = 'http://www.w3.org/ns/prov#';
export const DCTERMS_NS = 'http://purl.org/dc/terms/';
