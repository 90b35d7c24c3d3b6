/**
 * `/.well-known/wot` (WoT Discovery §6: the directory entry point): a Thing Description of a ThingDirectory whose
 * `things` property lists the TDs this host serves (read at `/things`, as Discovery's listing answers), with a link
 * to each agent's card. Core emits AgentCards, not directories, so this TD is written here.
 */
import type { JsonObject } from '@agentry/core';

export const DISCOVERY_CONTEXT = 'https://www.w3.org/2022/wot/discovery';
const TD_CONTEXT = 'https://www.w3.org/2022/wot/td/v1.1';

export function directoryThing(options: {
  baseUrl: string;
  title: string;
  cardUrls: readonly string[];
}): JsonObject {
  return {
    '@context': [TD_CONTEXT, DISCOVERY_CONTEXT],
    '@type': 'ThingDirectory',
    id: `${options.baseUrl}/.well-known/wot`,
    title: options.title,
    description: 'The WoT Thing Descriptions (AgentCards) of the agents this host serves.',
    securityDefinitions: { nosec_sc: { scheme: 'nosec' } },
    security: 'nosec_sc',
    properties: {
      things: {
        description: "The Thing Descriptions of this host's agents",
        type: 'array',
        items: { type: 'object' },
        readOnly: true,
        forms: [
          {
            href: `${options.baseUrl}/things`,
            op: 'readproperty',
            contentType: 'application/ld+json',
            'htv:methodName': 'GET',
          },
        ],
      },
    },
    links: options.cardUrls.map((href) => ({ href, rel: 'item', type: 'application/td+json' })),
  };
}
