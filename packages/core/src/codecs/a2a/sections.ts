/**
 * Where each rule of an AgentCard comes from. A2A renumbered its specification between v0.3 and v1.0, so a card is
 * checked against the sections of the version its shape says it follows.
 */

export type CardShape = 'v1.0' | 'v0.3' | 'pre-0.3';

export interface CardSections {
  card: string;
  provider: string;
  capabilities: string;
  securityScheme: string;
  skill: string;
  interface: string;
  transports: string;
  signature: string;
}

const V1_0: CardSections = {
  card: '§4.4.1',
  provider: '§4.4.2',
  capabilities: '§4.4.3',
  securityScheme: '§4.5.1',
  skill: '§4.4.5',
  interface: '§4.4.6',
  transports: '§4.4.6',
  signature: '§4.4.7',
};

const V0_3: CardSections = {
  card: 'v0.3 §5.5',
  provider: 'v0.3 §5.5.1',
  capabilities: 'v0.3 §5.5.2',
  securityScheme: 'v0.3 §5.5.3',
  skill: 'v0.3 §5.5.4',
  interface: 'v0.3 §5.5.5',
  transports: 'v0.3 §5.6',
  signature: 'v0.3 §5.5.6',
};

export function sectionsFor(shape: CardShape): CardSections {
  return shape === 'v1.0' ? V1_0 : V0_3;
}
