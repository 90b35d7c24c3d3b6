import { isObject } from '../../json/values.js';

/** Keys that, beside a `skills` array, mark an AgentCard of some version. */
const CARD_MARKERS = ['protocolVersion', 'supportedInterfaces', 'url', 'defaultInputModes'] as const;

/**
 * An AgentCard has a `skills` array and one of the card's own keys. JSON-LD documents (`@context`) and agent://
 * descriptors (an array of `capabilities`) can carry AgentCard-style `skills` too, and are not cards.
 */
export function isAgentCard(document: unknown): boolean {
  if (!isObject(document) || !Array.isArray(document['skills'])) return false;
  if (Object.hasOwn(document, '@context') || Array.isArray(document['capabilities'])) return false;
  return CARD_MARKERS.some((key) => Object.hasOwn(document, key)) || isObject(document['capabilities']);
}
