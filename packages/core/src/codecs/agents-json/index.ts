/** The agents.json map codec (agent:// §5.1): names → descriptor URLs, for multi-agent domains. */
import { defineCodec } from '../define.js';
import { isAgentsMap } from './detect.js';
import { emitMap } from './emit.js';
import { parseMap } from './parse.js';

export const agentsJsonCodec = defineCodec({
  format: 'agents-json',
  title: 'agent:// agents.json map',
  specName: 'agent://',
  mediaType: 'application/json',
  signature: 'agents as an object mapping names to descriptor URLs',
  carries: {
    // name, description and url survive only with the values a map implies; the emitter reports any other value.
    agent: ['id', 'name', 'description', 'url'],
    // Operations are dropped whole; the emitter reports each as `operations[name]`.
    operation: [],
    bindings: [],
  },
  detect: isAgentsMap,
  parse: parseMap,
  emitMany: emitMap,
});
